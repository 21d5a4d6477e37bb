"""Operations on a skill, single file or folder: bounded edits and protected blocks.

A skill is one of two kinds (:func:`skillopt.skillfolder.skill_of`): a single markdown
text, edited as :mod:`skillopt.skilltext` says, or a folder skill
(:mod:`skillopt.skillfolder`), which gets the same operations file by file: each edit
goes to its ``target_file`` and the protected blocks live in ``SKILL.md``.
"""

from __future__ import annotations

from skillopt import skilltext
from skillopt.records import Edit, EditResult
from skillopt.skillfolder import MAIN, SkillFolder, edits as folder_edits, skill_of
from skillopt.skilltext import (  # the text operations, re-exported (`x as x`: explicit for mypy)
    APPX_END as APPX_END,
    APPX_START as APPX_START,
    MARKERS as MARKERS,
    SLOW_END as SLOW_END,
    SLOW_START as SLOW_START,
    apply_edit as apply_edit,
    body_end as body_end,
    find_span as find_span,
    get_block as get_block,
    normalise as normalise,
    protected_blocks as protected_blocks,
    protected_spans as protected_spans,
    strip_markers as strip_markers,
)


def apply_edits(skill: str, edits: list[Edit] | tuple[Edit, ...]) -> tuple[str, list[EditResult]]:
    """Apply edits in order; every edit gets a status, none is silently changed. A folder
    skill routes each edit to its ``target_file``; a single-file skill refuses an edit
    that names another file than ``SKILL.md``."""
    value = skill_of(skill)
    if isinstance(value, SkillFolder):
        return folder_edits.apply_folder_edits(value, edits)
    results: list[EditResult] = []
    for edit in edits:
        if edit.target_file.strip() not in ("", MAIN):
            results.append(EditResult(edit=edit, status="invalid",
                                      detail=f"target_file {edit.target_file!r}: the skill is a single file, not a folder"))
            continue
        skill, result = apply_edit(skill, edit)
        results.append(result)
    return skill, results


def set_block(skill: str, start: str, end: str, content: str, heading: str = "") -> str:
    """Replace (or create at the end) a protected block (of ``SKILL.md`` in a folder skill)."""
    value = skill_of(skill)
    if isinstance(value, SkillFolder):
        return value.with_body(skilltext.set_block(value.body, start, end, content, heading)).text()
    return skilltext.set_block(skill, start, end, content, heading)


def restore_protected(original: str, rewritten: str) -> str:
    """Put back protected blocks a rewrite dropped or altered. A folder skill's rewrite
    keeps its front matter and scripts too (:func:`skillopt.skillfolder.edits.rewrite_folder`)."""
    value = skill_of(original)
    if isinstance(value, SkillFolder):
        return folder_edits.rewrite_folder(value, rewritten)
    return skilltext.restore_protected(original, rewritten)
