"""Publishing a night: proposed files, report, evidence and a manifest written last.

The manifest pins, for each target, the live file's sha256 captured *before* any
model call and the proposal's sha256; staging refuses when a live file changed during
the night, and adoption refuses when it changed since staging. Only documents whose
text actually changed are staged, so an accepted night never creates an empty
memory file.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import attrs
from skillopt.api import to_data

from skillopt_sleep.documents import Doc
from skillopt_sleep.evidence import EvidenceLog
from skillopt_sleep.fsutil import sha256_bytes, sha256_file, write_atomic, write_json
from skillopt_sleep.report import NightReport
from skillopt_sleep.stage.layout import StagingError, reserve
from skillopt_sleep.stage.report import render

SCHEMA = "skillopt-sleep-staging"
VERSION = 1


def changed_docs(before: list[Doc], after: list[Doc]) -> list[tuple[Doc, Doc]]:
    pairs = []
    for old, new in zip(before, after, strict=True):
        if new.changed and new.text.strip():
            pairs.append((old, new))
    return pairs


def stage(
    project: Path,
    *,
    night: int,
    report: NightReport,
    evidence: EvidenceLog,
    before: list[Doc],
    after: list[Doc],
    now: datetime | None = None,
) -> Path:
    pairs = changed_docs(before, after)
    if not pairs:
        raise StagingError("nothing to stage: no document changed")
    for old, _new in pairs:
        live = sha256_file(old.path)
        pinned = sha256_bytes(old.original) if old.original is not None else None
        if live != pinned:
            raise StagingError(f"{old.path} changed while the night ran; not staging a proposal against a moving file")
    night_dir = reserve(project, now)
    targets = []
    for old, new in pairs:
        rel = Path("proposed") / new.role / new.path.name
        data = new.text.encode("utf-8")
        write_atomic(night_dir / rel, data)
        targets.append(
            {
                "role": new.role,
                "live_path": str(new.path),
                "baseline_exists": old.original is not None,
                "baseline_sha256": sha256_bytes(old.original) if old.original is not None else None,
                "proposed": str(rel),
                "proposed_sha256": sha256_bytes(data),
            }
        )
    report = attrs.evolve(report, staging=str(night_dir))
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
            "created": (now or datetime.now(timezone.utc)).isoformat(timespec="seconds"),
            "project": str(Path(project).resolve()),
            "targets": targets,
        },
    )
    return night_dir
