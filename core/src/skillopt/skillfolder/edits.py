"""Edits and rewrites of a folder skill: each change goes to the file it names.

An edit's ``target_file`` (``SKILL.md`` when empty) picks the file; inside it the edit
is applied exactly as to a single-file skill (anchors, duplicates, protected blocks).
The rules, each reported on the edit rather than silently bent:

* only ``SKILL.md`` and ``references/*.md`` are edited; an ``append`` to a
  ``references/NAME.md`` that does not exist creates it (other ops on a missing file
  are ``not_applied``); a path outside the layout, absolute, with ``..`` or longer
  than :data:`~skillopt.skillfolder.MAX_PATH_CHARS` (the edit schema's limit, which a
  model may ignore) is ``invalid``;
* ``scripts/*`` are read-only (``protected``): the optimizer never writes code the
  agent would run, and never runs it;
* ``SKILL.md``'s front matter (``name``, ``description``) is ``protected``: it is how
  agents find the skill, so it is the user's to change, not the optimizer's;
* a reference file an edit empties is removed from the folder.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from skillopt.errors import ConfigError
from skillopt.records import Edit, EditResult
from skillopt.skillfolder import (
    MAIN,
    MAX_PATH_CHARS,
    REFERENCES,
    SkillFolder,
    is_script,
    path_problem,
    skill_of,
    split_front_matter,
    strip_file_markers,
)
from skillopt.skilltext import apply_edit, find_span, restore_protected, strip_markers

if TYPE_CHECKING:
    from collections.abc import Iterable


def _where(result: EditResult, path: str) -> EditResult:
    if result.status == "applied" or not result.detail:
        return result
    return attrs.evolve(result, detail=f"{result.detail} ({path})")


def apply_folder_edit(folder: SkillFolder, edit: Edit) -> tuple[SkillFolder, EditResult]:
    """``edit`` applied to the file it names (see the module docstring for the rules)."""
    path = edit.target_file.strip() or MAIN
    if len(path) > MAX_PATH_CHARS:
        return folder, EditResult(edit=edit, status="invalid", detail=(
            f"target_file {path[:40]!r}... is {len(path)} characters; a skill file's path is at most {MAX_PATH_CHARS}"))
    problem = path_problem(path)
    if problem:
        return folder, EditResult(edit=edit, status="invalid", detail=(
            f"target_file {path!r} is {problem}; edits change {MAIN} or {REFERENCES}/*.md, and an append may create "
            f"{REFERENCES}/NAME.md"))
    if is_script(path):
        return folder, EditResult(edit=edit, status="protected",
                                  detail=f"{path} is a script: scripts are read-only (never edited or run by the optimizer)")
    file = folder.file(path)
    if file is None:
        if edit.op != "append":
            return folder, EditResult(edit=edit, status="not_applied",
                                      detail=f"{path} is not a file of the skill (an append creates it)")
        content = strip_file_markers(strip_markers(edit.content or "")).strip("\n")
        if not content.strip():
            return folder, EditResult(edit=edit, status="invalid", detail="empty content")
        return folder.with_file(path, content + "\n"), EditResult(edit=edit, status="applied", detail=f"created {path}")
    if path == MAIN:
        front, body = split_front_matter(file.content)
        new_body, result = apply_edit(body, edit)
        if result.status == "not_applied" and front and edit.target.strip() and find_span(front, edit.target):
            return folder, EditResult(edit=edit, status="protected",
                                      detail=f"the front matter of {MAIN} (name, description) is protected")
        return (folder.with_body(new_body) if result.status == "applied" else folder), _where(result, path)
    new, result = apply_edit(file.content, edit)
    if result.status != "applied":
        return folder, _where(result, path)
    return (folder.with_file(path, new) if new.strip() else folder.without(path)), result


def apply_folder_edits(folder: SkillFolder, edits: Iterable[Edit]) -> tuple[str, list[EditResult]]:
    """Edits applied in order to ``folder``; its canonical text after them, and every
    edit's status."""
    results = []
    for edit in edits:
        folder, result = apply_folder_edit(folder, edit)
        results.append(result)
    return folder.text(), results


def rewrite_folder(old: SkillFolder, rewritten: str) -> str:
    """The folder after a whole-skill rewrite. The rewrite may be the folder in its
    canonical form (then its ``SKILL.md`` body and its reference files are taken; a
    reference it leaves out is kept as it was) or ``SKILL.md``'s body alone. Either
    way the front matter, the scripts and the protected blocks stay as they were."""
    try:
        new = skill_of(rewritten)
    except ConfigError:
        new = None  # a broken folder text: taken as SKILL.md's body
    new = new if isinstance(new, SkillFolder) else None
    body = new.body if new is not None else split_front_matter(strip_file_markers(rewritten).lstrip("\n"))[1]
    if old.body.startswith("\n") and not body.startswith("\n"):
        body = "\n" + body  # the blank line after the front matter
    folder = old.with_body(restore_protected(old.body, body))
    for ref in new.references if new is not None else ():
        content = strip_markers(ref.content)
        if len(ref.path) > MAX_PATH_CHARS and old.file(ref.path) is None:
            from skillopt.report import warn

            warn(f"the rewrite's new file {ref.path[:40]!r}... was left out: its path is {len(ref.path)} characters, "
                 f"at most {MAX_PATH_CHARS}")
            continue
        if content.strip():
            folder = folder.with_file(ref.path, content)
    return folder.text()
