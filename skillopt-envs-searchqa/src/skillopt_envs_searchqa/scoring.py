"""SearchQA scorers: answer extraction, SQuAD-style normalisation, exact match, token F1.

All pure functions. Normalisation follows SQuAD (lowercase, drop punctuation, drop the
articles a/an/the, collapse whitespace) with one deliberate difference from upstream:
punctuation is every Unicode punctuation character (categories ``P*``), after NFKC,
not just ASCII ``string.punctuation``. Upstream leaves curly quotes and dashes in
place, so ``O’Brien`` never matches ``O'Brien`` and a trained skill learns to write
straight apostrophes for the grader's sake; here both normalise to ``obrien``.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

import attrs

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)
_OPEN_TAG = re.compile(r"<answer>", re.IGNORECASE)
# "Answer: X", "**Final answer:** X" at the start of a line ...
_ANSWER_LINE = re.compile(
    r"^[\s*_>#-]*(?:(?:the|my)\s+)?(?:final\s+)?answer\s*[*_]*\s*[:：\-–—]\s*[*_]*\s*(.*?)\s*$",
    re.IGNORECASE,
)
# ... or "the answer is X", "the answer to the clue is: X" anywhere in a line.
_ANSWER_IS = re.compile(r"^.*\banswer(?:\s+to\s+(?:the|this)\s+(?:clue|question))?\s+is\b\s*:?\s*(.*?)\s*$", re.IGNORECASE)
_QUOTES = "\"'`“”‘’«»"


def _strip_punctuation(text: str) -> str:
    return "".join(ch for ch in text if not unicodedata.category(ch).startswith("P"))


def normalize_answer(text: str) -> str:
    """SQuAD normalisation with Unicode-aware punctuation (see module docstring)."""
    text = unicodedata.normalize("NFKC", text or "").lower()
    text = _strip_punctuation(text)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def gold_list(gold: str | Iterable[str] | None) -> list[str]:
    """Gold answers as a list (a single string is one answer), blanks and duplicates dropped."""
    if gold is None:
        return []
    items = [gold] if isinstance(gold, str) else list(gold)
    out: list[str] = []
    for item in items:
        text = str(item).strip()
        if text and text not in out:
            out.append(text)
    return out


def _usable(golds: list[str]) -> list[str]:
    """Golds that still say something after normalisation (``"The"`` says nothing)."""
    return [g for g in golds if normalize_answer(g)]


def exact_match(prediction: str, golds: str | Iterable[str]) -> float:
    """1.0 if the normalised prediction equals any normalised gold; an empty prediction scores 0."""
    pred = normalize_answer(prediction)
    if not pred:
        return 0.0
    return float(any(pred == normalize_answer(g) for g in _usable(gold_list(golds))))


def _f1(pred_tokens: list[str], gold_tokens: list[str]) -> float:
    common = Counter(pred_tokens) & Counter(gold_tokens)
    overlap = sum(common.values())
    if overlap == 0:
        return 0.0
    precision, recall = overlap / len(pred_tokens), overlap / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def token_f1(prediction: str, golds: str | Iterable[str]) -> float:
    """SQuAD token F1 (multiset overlap), maximised over the gold aliases."""
    pred_tokens = normalize_answer(prediction).split()
    if not pred_tokens:
        return 0.0
    return max((_f1(pred_tokens, normalize_answer(g).split()) for g in _usable(gold_list(golds))), default=0.0)


def substring_match(prediction: str, golds: str | Iterable[str]) -> float:
    """Logged only: a normalised gold inside the prediction or the reverse (empty never matches)."""
    pred = normalize_answer(prediction)
    if not pred:
        return 0.0
    return float(any((g := normalize_answer(x)) in pred or pred in g for x in _usable(gold_list(golds))))


def best_gold(prediction: str, golds: str | Iterable[str]) -> str:
    """The alias the prediction comes closest to (F1, then the first listed)."""
    usable = _usable(gold_list(golds))
    if not usable:
        return ""
    pred_tokens = normalize_answer(prediction).split()
    return max(usable, key=lambda g: (_f1(pred_tokens, normalize_answer(g).split()) if pred_tokens else 0.0, -usable.index(g)))


@attrs.frozen(kw_only=True)
class Extracted:
    """The answer pulled out of a reply, and how it was found."""

    answer: str
    method: str  # "tag", "answer-line", "last-line" or "empty"


def extract_answer(reply: str) -> Extracted:
    """The final answer of a reply.

    In order: the last ``<answer>…</answer>``; an unclosed last ``<answer>`` (a reply cut
    off at the token limit) up to the end of its line; the last ``Answer: …`` line; the
    last non-empty line. An ``Answer: …`` line is also found as "the answer (to the clue) is …"
    inside a line, the way small models phrase it.
    """
    text = reply or ""
    tags = _ANSWER_TAG.findall(text)
    if tags:
        return Extracted(answer=_clean(tags[-1]), method="tag")
    opened = list(_OPEN_TAG.finditer(text))
    if opened:
        rest = text[opened[-1].end():].strip().splitlines()
        if rest:
            return Extracted(answer=_clean(rest[0]), method="tag")
    lines = [line for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        m = _ANSWER_LINE.match(line)
        if not m:
            m = _ANSWER_IS.match(line)  # greedy prefix: the last "answer is" of the line
        if m and m.group(1).strip(" *_"):
            return Extracted(answer=_clean(m.group(1)), method="answer-line")
    if lines:
        return Extracted(answer=_clean(lines[-1]), method="last-line")
    return Extracted(answer="", method="empty")


def _clean(text: str) -> str:
    """Drop markdown emphasis, wrapping quotes and a sentence-final full stop."""
    text = " ".join(text.split()).strip("*_ ")
    if len(text) > 1 and text.endswith(".") and not text[-3:-1].isupper():
        text = text[:-1].rstrip()
    return text.strip(_QUOTES + " ").strip("*_ ")


def explain(prediction: str, golds: str | Iterable[str], em: float, f1: float) -> str:
    """Feedback for the optimizer: what was predicted, what was expected, how they differ."""
    accepted = gold_list(golds)
    shown = " | ".join(repr(g) for g in accepted[:5]) or "(none)"
    if not normalize_answer(prediction):
        return f"No answer was given; expected {shown}."
    head = f"Predicted {prediction!r}; expected {shown}."
    if em:
        return f"{head} Correct (exact match)."
    target = best_gold(prediction, accepted)
    pred_tokens, gold_tokens = normalize_answer(prediction).split(), normalize_answer(target).split()
    extra = list((Counter(pred_tokens) - Counter(gold_tokens)).elements())
    missing = list((Counter(gold_tokens) - Counter(pred_tokens)).elements())
    if f1 == 0:
        return f"{head} Wrong: no word in common with the expected answer."
    parts = [f"{head} Not an exact match (token F1 {f1:.2f})"]
    if sorted(pred_tokens) == sorted(gold_tokens):
        parts.append("the right words in the wrong order")
    else:
        if extra:
            parts.append("extra words: " + " ".join(extra[:8]))
        if missing:
            parts.append("missing words: " + " ".join(missing[:8]))
    return "; ".join(parts) + "."
