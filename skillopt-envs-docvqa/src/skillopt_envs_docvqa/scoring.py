"""DocVQA scorers: answer extraction, normalisation, ANLS and exact match. Pure functions.

ANLS is the official DocVQA metric, kept faithful: NL = Levenshtein(p, g) / max(|p|, |g|)
on normalised strings, the score is 1 - NL when NL < tau (0.5) and 0 otherwise, maximised
over the gold answers; two empty strings score 1, one empty string 0.

Normalisation differs from upstream's (lowercase + whitespace collapse) in two places
where upstream is plainly wrong for extractive answers: Unicode NFKC first (a full-width
digit or a ligature is the same text), and punctuation or quotes *surrounding* the answer
are dropped (``"INV-20417".`` is ``inv-20417``). Inner punctuation stays, so ``$1,250.00``
and ``1250.00`` still differ: the aliases on each item say which spellings are accepted.
Upstream's normalisation is still computed as ``anls_upstream`` for comparison.
"""

from __future__ import annotations

import ast
import json
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

import attrs

TAU = 0.5
_SURROUNDING = "\"'`“”‘’«»„‚.,;:!?*_ \t\n"
_BRACKETS = {"(": ")", "[": "]", "{": "}", "<": ">"}
_ANSWER_TAG = re.compile(r"<answer>", re.IGNORECASE)
_ANSWER_END = re.compile(r"</answer>", re.IGNORECASE)
# "The invoice number is INV-1." : small models restate the question; the value follows the verb
_STATEMENT = re.compile(r"^\s*(?:the|its|his|her|their)\b[^:]*?\s(?:is|was|are|were)\s+(.+?)\s*$", re.IGNORECASE)
_ANSWER_LINE = re.compile(r"^[\s*_>#-]*(?:(?:the|my)\s+)?(?:final\s+)?answer\s*[*_]*\s*(?:is\s*)?[:：=\-–—]\s*[*_]*\s*(.*?)\s*$", re.IGNORECASE)


def normalize(text: Any) -> str:
    """NFKC, lowercase, whitespace collapsed, surrounding punctuation and quotes removed."""
    text = unicodedata.normalize("NFKC", str(text if text is not None else ""))
    text = " ".join(text.lower().split())
    while True:
        stripped = text.strip(_SURROUNDING)
        if len(stripped) >= 2 and _BRACKETS.get(stripped[0]) == stripped[-1] and _balanced(stripped[1:-1], stripped[0]):
            stripped = stripped[1:-1]  # a wrapping pair only: "(234) 925-3780" keeps its "("
        if stripped == text:
            return text
        text = stripped


def _balanced(inner: str, opener: str) -> bool:
    """No closer in ``inner`` lacks its opener: ``(a) and (b)`` is not one wrapped pair."""
    depth = 0
    for ch in inner:
        depth += (ch == opener) - (ch == _BRACKETS[opener])
        if depth < 0:
            return False
    return depth == 0


def normalize_upstream(text: Any) -> str:
    """Upstream's normalisation: strip, lowercase, collapse whitespace (nothing else)."""
    return " ".join(str(text if text is not None else "").strip().lower().split())


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions), two-row dynamic programme."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def anls_pair(prediction: str, gold: str, tau: float = TAU) -> float:
    """Similarity of two already normalised strings under the ANLS threshold."""
    if not prediction and not gold:
        return 1.0
    if not prediction or not gold:
        return 0.0
    nl = levenshtein(prediction, gold) / max(len(prediction), len(gold))
    return 0.0 if nl >= tau else 1.0 - nl


def gold_list(gold: Any) -> list[str]:
    """Gold answers as a list of strings, from what upstream rows hold.

    A list; a string holding a JSON or Python-literal list (upstream's CSV); a plain string
    (one answer); or dicts keyed ``answers``/``ground_truth``/``answer``/``text``/``value``.
    Blanks and duplicates are dropped.
    """
    if gold is None:
        return []
    if isinstance(gold, dict):
        for key in ("answers", "ground_truth", "answer", "text", "value"):
            if key in gold:
                return gold_list(gold[key])
        return []
    if isinstance(gold, str):
        text = gold.strip()
        if text[:1] in "[(" and text[-1:] in "])":
            parsed = _parse_literal(text)
            if parsed is not None:
                return gold_list(parsed)
        items: Iterable[Any] = [text]
    else:
        items = gold
    out: list[str] = []
    for item in items:
        for text in gold_list(item) if isinstance(item, dict | list | tuple) else [str(item).strip()]:
            if text and text not in out:
                out.append(text)
    return out


def _parse_literal(text: str) -> list | tuple | None:
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, list | tuple):
            return value
    return None


def anls(prediction: str, golds: Any, tau: float = TAU, *, upstream: bool = False) -> float:
    """ANLS of one prediction, maximised over the gold answers (0 without golds)."""
    norm = normalize_upstream if upstream else normalize
    pred = norm(prediction)
    return max((anls_pair(pred, norm(g), tau) for g in gold_list(golds)), default=0.0)


def exact_match(prediction: str, golds: Any) -> float:
    """1.0 if the normalised prediction equals a normalised gold; an empty prediction scores 0."""
    pred = normalize(prediction)
    return float(bool(pred) and any(pred == normalize(g) for g in gold_list(golds)))


def closest_gold(prediction: str, golds: Any) -> str:
    """The alias the prediction is nearest to (by ANLS, then the first listed)."""
    options = gold_list(golds)
    pred = normalize(prediction)
    return max(options, key=lambda g: (anls_pair(pred, normalize(g)), -options.index(g)), default="")


@attrs.frozen(kw_only=True)
class Extracted:
    """The answer pulled out of a reply, and how it was found."""

    answer: str
    method: str  # "tag", "open-tag", "answer-line", "statement", "last-line" or "empty"


def extract_answer(reply: str) -> Extracted:
    """The final answer of a reply, tolerant of how models actually write it.

    In order: the text between the last ``<answer>`` and the last ``</answer>`` after it
    (upstream's rule); an unclosed last ``<answer>`` (a reply cut off at the token limit)
    up to the end of its line; the last ``Answer: …`` line; the value of a last line
    that restates the question ("The invoice number is INV-1." -> ``INV-1``); the last
    non-empty line.
    """
    text = reply or ""
    opened = list(_ANSWER_TAG.finditer(text))
    if opened:
        start = opened[-1].end()
        closed = list(_ANSWER_END.finditer(text, start))
        if closed:
            return Extracted(answer=_clean(text[start : closed[-1].start()]), method="tag")
        rest = [line for line in text[start:].splitlines() if line.strip()]
        if rest:
            return Extracted(answer=_clean(rest[0]), method="open-tag")
    lines = [line for line in _ANSWER_END.sub("", text).splitlines() if line.strip()]
    for line in reversed(lines):
        m = _ANSWER_LINE.match(line)
        if m and m.group(1).strip(" *_"):
            return Extracted(answer=_clean(m.group(1)), method="answer-line")
    if lines:
        m = _STATEMENT.match(lines[-1])
        if m and m.group(1).strip(" *_."):
            return Extracted(answer=_clean(m.group(1)), method="statement")
        return Extracted(answer=_clean(lines[-1]), method="last-line")
    return Extracted(answer="", method="empty")


def _clean(text: str) -> str:
    """One line, markdown emphasis and wrapping quotes dropped (scoring strips the rest)."""
    return " ".join(text.split()).strip("*_ ").strip("\"'“”‘’` ")


def explain(prediction: str, golds: Any, anls_score: float, em: float) -> str:
    """Feedback for the optimizer: predicted vs expected, and how far apart they are."""
    accepted = gold_list(golds)
    shown = " | ".join(repr(g) for g in accepted[:5]) or "(none)"
    if not normalize(prediction):
        return f"No answer was given; expected {shown}."
    head = f"Predicted {prediction!r}; expected {shown}."
    if em:
        return f"{head} Correct (exact match, ANLS 1.00)."
    target = closest_gold(prediction, accepted)
    if anls_score > 0:
        return f"{head} Not an exact match (ANLS {anls_score:.2f}; nearest accepted answer {target!r}): a miscopied or a neighbouring value."
    if normalize(target) and normalize(target) in normalize(prediction):
        return f"{head} Wrong (ANLS 0): the answer contains {target!r} but adds other text; give only the value."
    return f"{head} Wrong (ANLS 0): not similar to any accepted answer."
