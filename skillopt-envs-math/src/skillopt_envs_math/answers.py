"""Reading a choice label out of what a model actually wrote.

Upstream takes the last ``<answer>`` segment and accepts only a bare label, the exact
choice text, or the first token, so ``(B)``, ``**B**`` and ``Option B`` score 0 while
``A cat…`` scores as A. Here a label is accepted only in a form that marks it as a
choice (whole answer, ``(B)``, ``**B**``, ``B.``, ``Option B``, ``Answer: B``,
``\\boxed{B}``, the choice's own text) and never from a capital letter that merely
starts a sentence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

LABELS = "ABCDEFG"

_TAG = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)
_OPEN_TAG = re.compile(r"<answer>", re.IGNORECASE)
_BOXED = re.compile(r"\\(?:boxed|fbox|textbf|text|mathrm|mathbf)\s*\{\s*([^{}]*?)\s*\}")
_LEAD_WORDS = re.compile(
    r"^(?:(?:so|thus|hence|therefore)[,\s]+)?(?:(?:my|the)\s+)?(?:final\s+|correct\s+|best\s+)?"
    r"(?:answer|option|choice|letter)(?:\s+(?:is|would\s+be|should\s+be))?\s*[:=\-]?\s*",
    re.IGNORECASE,
)
# "answer is B", "Answer: (B)", "correct option is **B**", "I choose B" — the letter must be
# a capital standing alone (not "A" in "A prime"), checked by the caller's lookahead.
_PHRASE = re.compile(
    r"(?i:\banswer|\bcorrect\s+(?:option|choice|letter)|\bI\s+(?:choose|pick|select))[\*_`]*"
    r"(?i:\s+(?:is|would\s+be|should\s+be|must\s+be))?\s*[:=]?\s*(?i:option\s+|choice\s+)?"
    r"[\*_`\s]*[\(\[]?\s*([A-G])\s*[\)\]]?[\*_`]*(?=$|[\s.,;:!?)\]])",
)
_MARKED = re.compile(
    r"\*\*\s*\(?([A-G])\)?[.):]?\s*\*\*"  # **B**, **(B)**, **B.**
    r"|__\s*([A-G])\s*__"  # __B__
    r"|(?<![\w\\])\(([A-G])\)"  # (B) but not f(A)
    r"|(?<![\w\\])\[([A-G])\]"  # [B]
)
_LIST_LINE = re.compile(r"^[\s\*_`]*\(?([A-G])[.):]", re.MULTILINE)
_NAMED = re.compile(r"(?i:option|choice)\s*[\(\[]?([A-G])(?![\w'])")
_LEADING = re.compile(r"^(?i:option|choice)?\s*[\(\[]?\s*([A-G])\s*(?:[\)\]]\s*[.:]?|[.:])(?:\s+|$)(.*)$", re.DOTALL)


def answer_segment(reply: str) -> str | None:
    """The text of the last ``<answer>…</answer>`` (or of an unclosed final ``<answer>``)."""
    found = _TAG.findall(reply or "")
    if found:
        return found[-1].strip()
    opened = list(_OPEN_TAG.finditer(reply or ""))
    if opened:
        return reply[opened[-1].end() :].strip()
    return None


def normalize_text(text: str) -> str:
    """Choice-text comparison form: case-folded, markup and outer punctuation removed."""
    text = _BOXED.sub(r"\1", text or "")
    text = re.sub(r"[\*_`$]", "", text)
    text = re.sub(r"\s+", " ", text).strip().strip("\"'“”‘’").strip()
    return text.rstrip(".;,!").strip().casefold()


def _strip_markup(text: str) -> str:
    text = _BOXED.sub(r"\1", text)
    text = re.sub(r"[\*_`$]", "", text)
    return re.sub(r"\s+", " ", text).strip()


def _whole_label(text: str, labels: str) -> str | None:
    """``B``, ``(B)``, ``**B**``, ``B.``, ``Option B``, ``Answer: B``, ``\\boxed{B}``: the whole text is a label."""
    core = _strip_markup(text)
    core = _LEAD_WORDS.sub("", core, count=1).strip()
    core = core.strip("()[]{}<>\"'“”").strip().rstrip(".:;,!)").lstrip("(").strip()
    if len(core) == 1 and core.upper() in labels:
        return core.upper()
    return None


def _by_text(text: str, choices: Mapping[str, str]) -> str | None:
    wanted = normalize_text(text)
    if not wanted:
        return None
    hits = [label for label, body in choices.items() if normalize_text(body) == wanted]
    return hits[0] if len(hits) == 1 else None


def _leading_label(text: str, choices: Mapping[str, str], *, lenient: bool) -> str | None:
    """``B. <text>``, ``(B) <text>``, ``**B.** <text>``: the reply opens with a delimited label.

    Outside ``<answer>`` a reply that names several choices (a recitation ``A. …`` /
    ``B. …``, or a discussion of ``(A)`` and ``(C)``) is not a pick, so the opening
    label is not taken.
    """
    match = _LEADING.match(_strip_markup(text))
    if not match or match.group(1) not in choices:
        return None
    if not lenient and len(_mentioned_labels(text)) >= 2:
        return None
    return match.group(1)


def _mentioned_labels(text: str) -> set[str]:
    """Labels the text refers to as choices (list lines, ``(X)``, ``**X**``, ``option X``)."""
    found = set(_LIST_LINE.findall(text)) | set(_NAMED.findall(text))
    found |= {next(g for g in m.groups() if g) for m in _MARKED.finditer(text)}
    return found


def _phrase_label(text: str, labels: str) -> str | None:
    hits = [m.group(1) for m in _PHRASE.finditer(text) if m.group(1) in labels]
    boxed = [m.group(1).strip().strip("()").upper() for m in _BOXED.finditer(text)]
    boxed = [b for b in boxed if len(b) == 1 and b in labels]
    if boxed:
        return boxed[-1]
    return hits[-1] if hits else None


def _marked_label(text: str, labels: str) -> str | None:
    found = {next(g for g in m.groups() if g) for m in _MARKED.finditer(text)}
    found &= set(labels)
    return found.pop() if len(found) == 1 else None


def _contained_text(text: str, choices: Mapping[str, str]) -> str | None:
    """The one choice whose (non-trivial) text occurs in ``text`` as a whole phrase."""
    hay = normalize_text(text)
    hits = []
    for label, body in choices.items():
        needle = normalize_text(body)
        if len(needle) < 2:
            continue
        if re.search(r"(?<![\w.])" + re.escape(needle) + r"(?![\w])", hay):
            hits.append((label, needle))
    # "12" inside "12 divides n" is not a second hit when "12 divides n" itself matched
    hits = [(lab, n) for lab, n in hits if not any(n != other and n in other for _, other in hits)]
    return hits[0][0] if len(hits) == 1 else None


def _last_line_label(text: str, labels: str) -> str | None:
    lines = [line for line in (text or "").splitlines() if line.strip()]
    return _whole_label(lines[-1], labels) if lines else None


def parse_choice(reply: str, choices: Mapping[str, str]) -> str | None:
    """The label the reply picks among ``choices`` (label -> text), or None.

    Inside ``<answer>`` every accepted form is tried; in the rest of the reply only
    unambiguous statements count (``answer is B``, ``\\boxed{B}``, a bare label on the
    last line), so a choice merely discussed in the reasoning is never taken as the pick.
    """
    labels = "".join(label for label in LABELS if label in choices)
    segment = answer_segment(reply)
    if segment is not None:
        picked = _parse_answer_text(segment, choices, labels)
        if picked:
            return picked
        rest = _TAG.sub(" ", reply)
        return _phrase_label(rest, labels) or _last_line_label(rest, labels)
    text = (reply or "").strip()
    return (
        _whole_label(text, labels)
        or _by_text(text, choices)
        or _phrase_label(text, labels)
        or _leading_label(text, choices, lenient=False)
        or _last_line_label(text, labels)
        or (_marked_label(text, labels) if len(text) <= 400 else None)
        or (_contained_text(text, choices) if len(text) <= 200 else None)
    )


def _parse_answer_text(segment: str, choices: Mapping[str, str], labels: str) -> str | None:
    return (
        _whole_label(segment, labels)
        or _by_text(segment, choices)
        or _phrase_label(segment, labels)
        or _leading_label(segment, choices, lenient=True)
        or _marked_label(segment, labels)
        or _contained_text(segment, choices)
        or _last_line_label(segment, labels)
    )
