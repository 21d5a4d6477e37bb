"""The part of a long task prompt an analyst needs: the question, and the passages that
hold the gold answer, the prediction or the question's own rare words.

A retrieval task sends the target thousands of characters of context; an analyst judging
why the answer was right or wrong needs the question, the passage the gold answer came from
and the passage that misled the target. Keeping the head and the tail of the prompt (what
``clip`` does) sends the first passages, which are usually neither, and costs most of the
analyst's prompt. Env-agnostic: it looks only at lines, the answers and the question's words.
"""

from __future__ import annotations

import re

#: a question's words this short, or this common in the context, say nothing about which passage matters
MIN_TERM_CHARS = 4
COMMON_LINE_SHARE = 0.25
#: the longest single passage kept whole; a longer one keeps only its matching sentences
MAX_PASSAGE_CHARS = 320
#: below this much room the question and one passage do not fit together: head and tail
#: are kept instead (the small presets' 150-1,000 characters)
MIN_FOCUS_ROOM = 1200
#: a passage cut shorter than this to fit is not worth showing
MIN_PASSAGE_CHARS = 40
#: answers this short ("1", "no") match everywhere; they anchor only as whole words
MIN_ANCHOR_CHARS = 3

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _terms(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) >= MIN_TERM_CHARS}


def _anchor_patterns(anchors: list[str]) -> list[re.Pattern[str]]:
    patterns = []
    for anchor in dict.fromkeys(a.strip() for a in anchors if a and a.strip()):
        if len(anchor) > 200:
            continue
        escaped = re.escape(anchor)
        if len(anchor) < MIN_ANCHOR_CHARS or anchor.isdigit():
            escaped = rf"(?<![^\W_]){escaped}(?![^\W_])"
        patterns.append(re.compile(escaped, re.IGNORECASE))
    return patterns


def _split_tail(lines: list[str], budget: int) -> int:
    """Index where the question starts: the last paragraph when it fits ``budget``, else
    the last lines that do."""
    for start in range(len(lines) - 1, 0, -1):
        if not lines[start - 1].strip() and any(line.strip() for line in lines[start:]):
            if sum(len(line) + 1 for line in lines[start:]) <= budget:
                return start
            break
    start, used = len(lines), 0
    while start > 0:
        size = len(lines[start - 1]) + 1
        if used + size > budget // 2 and used > 0:  # no paragraph: the last lines, in half the room
            break
        start -= 1
        used += size
    return start


def _trim_passage(line: str, patterns: list[re.Pattern[str]], terms: set[str], room: int) -> str:
    """A passage within ``room`` characters: whole when it fits, else its label and the
    sentences that match, in order."""
    if len(line) <= room:
        return line
    label, sep, body = line.partition(": ")
    if not sep or len(label) > 60:
        label, body = "", line
    sentences = _SENTENCE_END.split(body)
    kept = [s for s in sentences if any(p.search(s) for p in patterns) or len(_terms(s) & terms) >= 2]
    if not kept:
        kept = sentences[:1]
    text = " ... ".join(kept)
    room -= len(label) + 2 if label else 0
    if len(text) > room:
        text = text[: max(room - 3, 0)] + "..."
    return f"{label}: {text}" if label else text


def focus(text: str, anchors: list[str], limit: int) -> str | None:
    """``text`` within ``limit`` characters, keeping its first line, its question (the tail)
    and the passages matching ``anchors`` (gold answers, the prediction) or the question's
    rare words, in their original order; gaps are marked. Text that fits is returned as is;
    ``None`` when nothing in it matches or ``limit`` is too small to hold a question and a
    passage (the caller falls back to head and tail).
    """
    if len(text) <= limit:
        return text
    if limit < MIN_FOCUS_ROOM:
        return None
    lines = text.split("\n")
    tail_start = _split_tail(lines, max(limit // 2, 80))
    tail = lines[tail_start:]
    if len("\n".join(tail)) > limit // 2:  # one huge last line: no structure to use
        return None
    head_end = 1 if tail_start > 1 and len(lines[0]) <= 200 else 0
    middle = list(range(head_end, tail_start))
    patterns = _anchor_patterns(anchors)
    question_terms = _terms("\n".join(tail))
    shared = {i: _terms(lines[i]) & question_terms for i in middle}
    present: dict[str, int] = {}
    for terms in shared.values():
        for term in terms:
            present[term] = present.get(term, 0) + 1
    rare = {t for t, n in present.items() if n <= max(1, COMMON_LINE_SHARE * len(middle))}
    scored = []
    for i in middle:
        hits = sum(1 for p in patterns if p.search(lines[i]))
        overlap = len(shared[i] & rare)
        if hits or overlap >= 2:
            scored.append((-(3 * hits + overlap), i))
    if not scored:
        return None
    budget = limit - sum(len(line) + 1 for line in lines[:head_end] + tail)
    chosen: dict[int, str] = {}
    for _, i in sorted(scored):
        passage = _trim_passage(lines[i], patterns, rare, min(MAX_PASSAGE_CHARS, budget - 1))
        if len(passage) < MIN_PASSAGE_CHARS:
            break
        chosen[i] = passage
        budget -= len(passage) + 1
    if not chosen:
        return None
    out = [lines[i] for i in range(head_end)]
    previous = head_end - 1
    for i in [*sorted(chosen), tail_start]:
        gap = lines[previous + 1 : i]
        if any(line.strip() for line in gap):
            n = sum(1 for line in gap if line.strip())
            out.append(f"[... {n} line{'s' if n > 1 else ''} omitted ...]")
        if gap and not gap[-1].strip():
            out.append("")  # the paragraph break before the question, or between passages
        if i < tail_start:
            out.append(chosen[i])
        previous = i
    return "\n".join(out + tail)
