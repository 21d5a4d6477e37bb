"""Where staged nights live: ``<project>/.skillopt-sleep/staging/<YYYYmmdd-HHMMSS>/``.

The ``.skillopt-sleep`` directory gets a ``.gitignore`` ignoring everything, because
it holds transcript-derived evidence that must never be committed by accident.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from skillopt.api import SkillOptError
from skillopt_sleep.fsutil import ensure_dir, read_json, write_atomic

DIRNAME = ".skillopt-sleep"
NIGHT_RE = re.compile(r"^\d{8}-\d{6}(-\d+)?$")


class StagingError(SkillOptError):
    """A staging directory is missing, unreadable or refuses the operation."""


def sleep_dir(project: Path) -> Path:
    root = Path(project) / DIRNAME
    if root.is_symlink():
        raise StagingError(f"{root} is a symlink; refusing to write through it")
    ensure_dir(root)
    ignore = root / ".gitignore"
    if not ignore.exists():
        write_atomic(ignore, "# skillopt sleep: staged proposals and evidence; never commit\n*\n", mode=0o644)
    return root


def staging_root(project: Path) -> Path:
    return ensure_dir(sleep_dir(project) / "staging")


def reserve(project: Path, now: datetime | None = None) -> Path:
    """A new, empty night directory, created atomically (``-N`` suffix on collisions)."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    root = staging_root(project)
    for n in range(0, 1000):
        path = root / (stamp if n == 0 else f"{stamp}-{n}")
        try:
            path.mkdir(mode=0o700)
            return path
        except FileExistsError:
            continue
    raise StagingError(f"could not reserve a staging directory under {root}")


def nights(project: Path) -> list[Path]:
    """Published nights (those with a manifest), oldest first."""
    root = Path(project) / DIRNAME / "staging"
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and NIGHT_RE.match(p.name) and (p / "manifest.json").is_file())


def find_night(project: Path, night: str | None = None) -> Path:
    """A night directory by name (or path), or the latest one."""
    available = nights(project)
    if night:
        candidate = Path(night)
        if not candidate.is_absolute():
            if not NIGHT_RE.match(night):
                raise StagingError(f"{night!r} is not a night name (YYYYmmdd-HHMMSS)")
            candidate = Path(project) / DIRNAME / "staging" / night
        if candidate not in available and candidate.resolve() not in [p.resolve() for p in available]:
            raise StagingError(f"no staged night {night!r} in {Path(project) / DIRNAME / 'staging'}")
        return candidate
    if not available:
        raise StagingError(f"nothing staged for {project}: run `skillopt sleep run` first")
    return available[-1]


def manifest(night_dir: Path) -> dict:
    data = read_json(night_dir / "manifest.json")
    if not isinstance(data, dict) or data.get("schema") != "skillopt-sleep-staging":
        raise StagingError(f"{night_dir / 'manifest.json'} is missing or not a skillopt sleep manifest")
    return data
