"""Publishing a night: proposed files, report, evidence and a manifest written last.

The manifest pins, for each target, the live file's sha256 captured *before* any
model call and the proposal's sha256; staging refuses when a live file changed during
the night, and adoption refuses when it changed since staging. Only documents whose
text actually changed are staged, so an accepted night never creates an empty
memory file. Each target names its *unit*: ``main`` (the night's skill and memory
files) or ``skill:NAME`` (a fan-out skill, staged under ``proposed/skills/NAME/`` with
its own report in ``skills/NAME/``), the granularity of ``adopt`` and ``rollback``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import attrs

from skillopt.api import to_data
from skillopt_sleep.documents import Doc
from skillopt_sleep.evidence import EvidenceLog
from skillopt_sleep.fsutil import sha256_bytes, sha256_file, write_atomic, write_json
from skillopt_sleep.report import NightReport
from skillopt_sleep.stage.layout import StagingError, reserve
from skillopt_sleep.stage.report import render, render_skill

SCHEMA = "skillopt-sleep-staging"
#: 2: every target names its ``unit`` (``main``, or ``skill:NAME`` for a fan-out skill)
VERSION = 2
MAIN = "main"


def skill_unit(name: str) -> str:
    return f"skill:{name}"


def changed_docs(before: list[Doc], after: list[Doc]) -> list[tuple[Doc, Doc]]:
    pairs = []
    for old, new in zip(before, after, strict=True):
        if new.changed and new.text.strip():
            pairs.append((old, new))
    return pairs


def _pinned(old: Doc) -> None:
    live = sha256_file(old.path)
    pinned = sha256_bytes(old.original) if old.original is not None else None
    if live != pinned:
        raise StagingError(f"{old.path} changed while the night ran; not staging a proposal against a moving file")


def _target(night_dir: Path, unit: str, rel: Path, old: Doc, new: Doc) -> dict:
    data = new.text.encode("utf-8")
    write_atomic(night_dir / rel, data)
    return {
        "unit": unit,
        "role": new.role,
        "live_path": str(new.path),
        "baseline_exists": old.original is not None,
        "baseline_sha256": sha256_bytes(old.original) if old.original is not None else None,
        "proposed": str(rel),
        "proposed_sha256": sha256_bytes(data),
    }


def stage(
    project: Path,
    *,
    night: int,
    report: NightReport,
    evidence: EvidenceLog,
    before: list[Doc],
    after: list[Doc],
    skills: Sequence = (),
    now: datetime | None = None,
) -> Path:
    """Publish the night: the main proposal (``before`` → ``after``) and each fan-out
    skill's (``skills``: :class:`~skillopt_sleep.fanout.SkillProposal`), each target
    tagged with its unit so it is adopted and rolled back on its own."""
    pairs = changed_docs(before, after)
    skill_pairs = [(s, s.before, s.after) for s in skills if s.after.changed and s.after.text.strip()]
    if not pairs and not skill_pairs:
        raise StagingError("nothing to stage: no document changed")
    for old, _new in pairs:
        _pinned(old)
    for _s, old, _new in skill_pairs:
        _pinned(old)
    night_dir = reserve(project, now)
    targets = [_target(night_dir, MAIN, Path("proposed") / new.role / new.path.name, old, new) for old, new in pairs]
    report = attrs.evolve(report, staging=str(night_dir))
    by_name = {r.name: r for r in report.skills}
    for proposal, old, new in skill_pairs:
        rel = Path("proposed") / "skills" / proposal.name / new.path.name
        targets.append({**_target(night_dir, skill_unit(proposal.name), rel, old, new), "skill": proposal.name})
        result = by_name.get(proposal.name)
        if result is not None:  # the skill's own gate evidence, next to its proposal
            write_json(night_dir / "skills" / proposal.name / "report.json", to_data(result))
            write_atomic(night_dir / "skills" / proposal.name / "report.md", render_skill(result, report.night))
    write_json(night_dir / "report.json", to_data(report))
    write_atomic(night_dir / "report.md", render(report))
    evidence.write(night_dir / "evidence.jsonl")
    write_json(
        night_dir / "manifest.json",
        {
            "schema": SCHEMA,
            "version": VERSION,
            "night": night,
            "name": night_dir.name,
            "created": (now or datetime.now(UTC)).isoformat(timespec="seconds"),
            "project": str(Path(project).resolve()),
            "targets": targets,
        },
    )
    return night_dir
