"""``skillopt blame RUN``: each line of a run's best skill, with the step and edit that
wrote it and the effect attribution measured for that edit.

A trained skill is a pile of lines from many steps; when one looks wrong, a user wants
to know when it came in, what the analysts meant by it and whether it helped. The
lineage is the run's skill versions (``skills/skill_vNNNN.md``, the current skill after
each step): a line belongs to the earliest version from which it stays present up to
the best skill. Lines inside the slow-update block belong to the slow update. The edit
is found in that step's ``attribution.json`` (or, without one, its applied edits). For a
folder skill each line also names its file, numbered within it (the file-marker lines of
the skill's canonical text are not shown as lines).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs

from skillopt.skilldoc import SLOW_END, SLOW_START
from skillopt.skillfolder import file_marker, is_folder


@attrs.frozen(kw_only=True)
class BlameLine:
    """One line of the best skill and where it came from."""

    #: 1-based line number in ``best_skill.md`` (in its file, for a folder skill)
    number: int
    text: str
    #: a folder skill's file holding the line (``SKILL.md``, ``references/NAME.md`` ...); '' for a single-file skill
    file: str = attrs.field(default="", metadata={"skillopt_omit_if_default": True})
    #: ``initial``, ``step N`` or ``slow update``
    origin: str
    #: the step that wrote it (0 = the initial skill; None = the slow update)
    step: int | None = None
    #: the edit's position among that step's applied edits, and its op (None when not found)
    edit: int | None = None
    op: str = ""
    #: the edit's measured mean gain on the items attribution evaluated (None = not measured)
    effect: float | None = None
    #: val items the edit fixed
    helped: tuple[str, ...] = ()


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _versions(run: Path) -> list[tuple[int, list[str]]]:
    out = []
    for path in sorted((run / "skills").glob("skill_v*.md")):
        try:
            step = int(path.stem.removeprefix("skill_v"))
        except ValueError:
            continue
        text = _read(path)
        if text is not None:
            out.append((step, text.splitlines()))
    return out


def _step_edits(run: Path, step: int) -> list[dict[str, Any]]:
    """The step's edits with their measured effect, or its applied edits unmeasured."""
    step_dir = run / "steps" / f"step_{step:04d}"
    found = step_attribution(run, step)
    if found is not None:
        return list(found.get("edits") or [])
    try:
        applied = json.loads((step_dir / "apply" / "result.json").read_text(encoding="utf-8"))
        results = (applied.get("result") or {}).get("results") or []
        edits = [r.get("edit") or {} for r in results if r.get("status") == "applied"]
        return [{"index": i, **e} for i, e in enumerate(edits)]
    except (OSError, ValueError, AttributeError):
        return []


def step_attribution(run: Path, step: int) -> dict[str, Any] | None:
    """A step's saved attribution as data (None when the step has none)."""
    try:
        data = json.loads((Path(run) / "steps" / f"step_{step:04d}" / "attribution.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    result = data.get("result") if isinstance(data, dict) and data.get("complete") is True else None
    return result if isinstance(result, dict) else None


def _owner(edits: list[dict[str, Any]], line: str) -> dict[str, Any] | None:
    wanted = " ".join(line.split())
    for edit in edits:
        if wanted and wanted in " ".join(str(edit.get("content") or "").split()):
            return edit
    return None


def blame(run: Path) -> list[BlameLine]:
    """Every line of ``run``'s ``best_skill.md``, with its origin."""
    best = _read(run / "best_skill.md")
    if best is None:
        from skillopt.errors import ConfigError

        raise ConfigError(f"{run} has no readable best_skill.md yet")
    versions = _versions(run)
    best_lines = best.splitlines()
    # the last version that is the best skill (or the last one: a slow update or promotion came after)
    upto = max((i for i, (_, lines) in enumerate(versions) if lines == best_lines), default=len(versions) - 1)
    chain = versions[: upto + 1]
    out, in_slow = [], False
    folder, file, number = is_folder(best), "", 0
    for text in best_lines:
        found = file_marker(text) if folder else None
        if found:
            file, number = found, 0
            continue
        number += 1
        if text.strip() == SLOW_START:
            in_slow = True
        line = _line(run, chain, number, text, in_slow)
        out.append(attrs.evolve(line, file=file) if file else line)
        in_slow = in_slow and text.strip() != SLOW_END
    return out


def _line(run: Path, chain: list[tuple[int, list[str]]], number: int, text: str, in_slow: bool) -> BlameLine:
    """Where one line of the best skill came from: the earliest version of ``chain`` from
    which it stays present."""
    if in_slow or not text.strip():
        return BlameLine(number=number, text=text, origin="slow update" if in_slow else "", step=None)
    index = len(chain)
    while index > 0 and text in chain[index - 1][1]:
        index -= 1
    if index == len(chain):  # in no version: written after the last step (promotion, slow update)
        return BlameLine(number=number, text=text, origin="after training")
    step = chain[index][0]
    if step == 0:
        return BlameLine(number=number, text=text, origin="initial", step=0)
    owner = _owner(_step_edits(run, step), text) or {}
    return BlameLine(number=number, text=text, origin=f"step {step}", step=step, edit=owner.get("index"),
                     op=str(owner.get("op") or ""), effect=owner.get("effect"), helped=tuple(owner.get("helped") or ()))


def render(lines: list[BlameLine]) -> str:
    """``origin  edit  effect │ text`` per line, as a terminal table."""
    rows, file = [], ""
    for b in lines:
        if b.file and b.file != file:
            file = b.file
            rows.append(f"── {file}")
        edit = f"#{b.edit + 1} {b.op}" if b.edit is not None else ""
        effect = f"{b.effect:+.2f}" if b.effect is not None else ""
        rows.append(f"{b.origin:<13} {edit:<12} {effect:>6} │ {b.text}")
    return "\n".join(rows)
