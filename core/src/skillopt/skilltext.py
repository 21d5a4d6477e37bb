"""Operations on one markdown text: protected blocks and bounded edits.

Edits are matched exactly first, then with whitespace normalised; an edit whose anchor
cannot be found is reported as ``not_applied`` (upstream silently turns it into an
append). Text inside protected blocks (slow update, appendix) is never edited. These
work on a single text (a single-file skill, or one file of a folder skill);
:mod:`skillopt.skilldoc` applies them to either kind of skill.
"""

from __future__ import annotations

import re

from skillopt.records import Edit, EditResult
from skillopt.skillfolder import strip_file_markers

SLOW_START, SLOW_END = "<!-- SLOW_UPDATE_START -->", "<!-- SLOW_UPDATE_END -->"
APPX_START, APPX_END = "<!-- APPENDIX_START -->", "<!-- APPENDIX_END -->"
MARKERS = (SLOW_START, SLOW_END, APPX_START, APPX_END)
_BLOCK = re.compile(r"<!-- (SLOW_UPDATE|APPENDIX)_START -->.*?<!-- \1_END -->", re.DOTALL)


def protected_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _BLOCK.finditer(text)]


def body_end(text: str) -> int:
    """Where appended rules go: before the first protected block, else the end."""
    spans = protected_spans(text)
    return spans[0][0] if spans else len(text)


def strip_markers(text: str) -> str:
    for marker in MARKERS:
        text = text.replace(marker, "")
    return text


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def find_span(text: str, target: str) -> tuple[int, int] | None:
    """Span of ``target`` in ``text``: exact, else whitespace-insensitive."""
    idx = text.find(target)
    if idx >= 0:
        return idx, idx + len(target)
    words = target.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(w) for w in words)
    m = re.search(pattern, text)
    return m.span() if m else None


def _in_protected(text: str, span: tuple[int, int]) -> bool:
    return any(start < span[1] and span[0] < end for start, end in protected_spans(text))


def apply_edit(skill: str, edit: Edit) -> tuple[str, EditResult]:
    content = strip_file_markers(strip_markers(edit.content or "")).strip("\n")
    op = edit.op
    if op not in ("append", "insert_after", "replace", "delete"):
        return skill, EditResult(edit=edit, status="invalid", detail=f"unknown op {op!r}")
    if op in ("append", "insert_after") and not content.strip():
        return skill, EditResult(edit=edit, status="invalid", detail="empty content")
    if op in ("append", "insert_after") and normalise(content) in normalise(_BLOCK.sub("", skill)):
        return skill, EditResult(edit=edit, status="duplicate", detail="content already in the skill")
    if op == "append":
        at = body_end(skill)
        head = skill[:at].rstrip("\n")
        tail = skill[at:]
        new = (head + "\n" if head else "") + content + "\n" + ("\n" + tail if tail else "")
        return new, EditResult(edit=edit, status="applied")
    target = edit.target or ""
    if not target.strip():
        return skill, EditResult(edit=edit, status="invalid", detail=f"{op} needs a target")
    span = find_span(skill, target)
    if span is None:
        return skill, EditResult(edit=edit, status="not_applied", detail="target text not found in the skill")
    if _in_protected(skill, span):
        return skill, EditResult(edit=edit, status="protected", detail="target is inside a protected block")
    start, end = span
    if op == "insert_after":
        line_end = skill.find("\n", end)
        line_end = len(skill) if line_end < 0 else line_end
        new = skill[:line_end] + "\n" + content + skill[line_end:]
        if line_end == len(skill):
            new += "\n"
        return new, EditResult(edit=edit, status="applied")
    if op == "replace":
        if not content.strip():
            return skill, EditResult(edit=edit, status="invalid", detail="replace needs content (use delete)")
        return skill[:start] + content + skill[end:], EditResult(edit=edit, status="applied")
    # delete: drop the whole line when the target covers it
    new = skill[:start] + skill[end:]
    new = re.sub(r"\n[ \t]*\n[ \t]*\n", "\n\n", new)
    return new, EditResult(edit=edit, status="applied")


# ------------------------------------------------------------------ protected blocks


def get_block(skill: str, start: str, end: str) -> str | None:
    i, j = skill.find(start), skill.find(end)
    if i < 0 or j < 0 or j < i:
        return None
    return skill[i + len(start) : j].strip("\n")


def set_block(skill: str, start: str, end: str, content: str, heading: str = "") -> str:
    """Replace (or create at the end) a protected block of ``skill``."""
    block = f"{start}\n{heading + chr(10) if heading else ''}{content.strip()}\n{end}"
    i, j = skill.find(start), skill.find(end)
    if i >= 0 and j > i:
        return skill[:i] + block + skill[j + len(end) :]
    return skill.rstrip("\n") + "\n\n" + block + "\n"


def protected_blocks(skill: str) -> list[str]:
    return [m.group(0) for m in _BLOCK.finditer(skill)]


def restore_protected(original: str, rewritten: str) -> str:
    """Put back protected blocks a rewrite dropped or altered."""
    for block in protected_blocks(original):
        kind = block[5 : block.index("_START")]
        start, end = f"<!-- {kind}_START -->", f"<!-- {kind}_END -->"
        if block not in rewritten:
            i, j = rewritten.find(start), rewritten.find(end)
            if i >= 0 and j > i:
                rewritten = rewritten[:i] + block + rewritten[j + len(end) :]
            else:
                rewritten = rewritten.rstrip("\n") + "\n\n" + block + "\n"
    return rewritten
