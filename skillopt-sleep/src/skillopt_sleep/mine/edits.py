"""Checks from what an edit actually wrote: the difference a late correction made.

"actually, put it under the version heading" names no command; what it changed is in
the file: the accepted edit wrote a line (``## [1.4.1] - 2025-10-02``) the rejected one
did not. That line, generalised (digits become ``\\d+``, only its first two tokens
kept), is the check: an answer that writes such a heading passes, one that appends the entry
anywhere fails, whatever it says about running tools.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from skillopt_sleep.mine.tasks import Check

_STRUCTURE_WORDS = re.compile(r"(?i)\b(heading|header|section|title)\b")
_WORD = re.compile(r"[A-Za-z]{4,}")


def written_lines(edit_details: Sequence[str]) -> list[str]:
    """The lines edits wrote (each detail is the path, then the text written)."""
    out = []
    for detail in edit_details:
        out += [line.rstrip() for line in detail.splitlines()[1:] if len(line.strip()) >= 3]
    return out


def shape(line: str) -> str:
    r"""A regex for the first two tokens of ``line`` (its shape, not its one-off words),
    digits generalised: ``## [1.4.1] - 2025-10-02`` → ``## [\d+.\d+.\d+]``."""
    tokens = line.strip().split()[:2]
    parts = [re.sub(r"\d+", r"\\d+", re.escape(t)) for t in tokens]
    anchor = r"(?m)^\s*" if line.lstrip().startswith(("#", "-", "*")) else ""
    return anchor + r"\s+".join(parts)


def edit_check(adjustment: str, rejected_edits: Sequence[str], accepted_edits: Sequence[str]) -> tuple[Check, str, str] | None:
    """The line the accepted edit wrote that the rejected one did not and that the
    adjustment talks about (a heading when it speaks of headings or sections), as a
    check, with that line's first two tokens as an example and the file it went to."""
    before = {" ".join(line.split()).lower() for line in written_lines(rejected_edits)}
    new = [line for line in written_lines(accepted_edits) if " ".join(line.split()).lower() not in before]
    if not new:
        return None
    if _STRUCTURE_WORDS.search(adjustment):
        candidates = [line for line in new if line.lstrip().startswith("#")]
    else:
        words = {w.lower() for w in _WORD.findall(adjustment)}
        candidates = [line for line in new if words & {w.lower() for w in _WORD.findall(line)}]
    if not candidates:
        return None
    line = candidates[0]
    path = next((d.splitlines()[0] for d in accepted_edits if line in d.splitlines()[1:]), "")
    return Check(op="regex", value=shape(line), why="what the corrected edit wrote"), " ".join(line.split()[:2]), path
