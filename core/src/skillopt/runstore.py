"""The run store: which folders are runs, finding them, and reading their files safely.

The one owner of the run-directory layout's reads for everything that is not the engine
writing its own run: the CLI (``skillopt runs``, ``export``, ``ui``), the dashboard and
plugins (``skillopt.api.find_run``/``is_run_dir``). Every reader is lenient: a run being
written has no ``summary.json`` yet, a crashed one may hold half a file. A run is named
by its directory name, and a name is only ever looked up among the runs found, never
joined onto a path, so a request cannot read outside the run roots. Kept import-light
(``skillopt --help`` and the API load it).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from skillopt.errors import ConfigError


def is_run_dir(path: Path | str) -> bool:
    """A folder the engine wrote: its state or summary, or (a run still computing its
    baseline, which has neither yet) its lock beside its config."""
    path = Path(path)
    return path.is_dir() and (
        (path / "runtime_state.json").is_file() or (path / "summary.json").is_file()
        or ((path / "run.lock").is_file() and (path / "config.json").is_file())
    )


def runs_under(roots: Iterable[Path]) -> dict[str, Path]:
    """Run name -> directory, for the runs under ``roots`` (each root holds run
    directories, or is one); a name found twice is told apart by its parent's name."""
    found: dict[str, Path] = {}
    for root in (Path(r).expanduser() for r in roots):
        candidates = [root] if is_run_dir(root) else (sorted(root.iterdir()) if root.is_dir() else [])
        for path in candidates:
            if is_run_dir(path):
                name = path.name if path.name not in found else f"{path.parent.name}/{path.name}"
                found[name] = path
    return found


def planted_link(file: Path) -> bool:
    """True when ``file``, or a folder between it and its run directory, is a symlink: the
    engine never writes one, so it was planted, and the dashboard must not follow it out
    of the run (the run directory itself may be a link)."""
    node = Path(file)
    for _ in range(6):
        if node.is_symlink():
            return True
        parent = node.parent
        if parent == node or is_run_dir(parent):
            return False
        node = parent
    return False


def read_text_inside(file: Path) -> str | None:
    """A run file's text, never through a planted link; None when unreadable."""
    if planted_link(file):
        return None
    try:
        return file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def read_json(path: Path) -> Any:
    """A run file's JSON, never through a planted link; None when missing or unreadable."""
    if planted_link(path):
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def damage(path: Path, expect: type) -> str:
    """Why a run file that exists cannot be read as the ``expect`` a run writes there ('' when
    it can, or does not exist yet)."""
    if planted_link(path) or not path.exists():
        return ""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return f"{path.name} is damaged ({type(exc).__name__})"
    if not isinstance(data, expect):
        return f"{path.name} holds a JSON {type(data).__name__}, not the {expect.__name__} a run writes there"
    return ""




def default_runs_dir() -> Path:
    """Where runs go when ``--out`` is not given."""
    from skillopt import paths

    return paths.data_dir() / "runs"


def checked_runs_dirs(runs_dirs: Iterable[str | Path] | None) -> list[Path]:
    """``--runs-dir`` values as paths; one that exists and is not a folder (a file, a
    device) is a :class:`ConfigError` naming it instead of an empty listing or a crash."""
    roots = [Path(r).expanduser() for r in runs_dirs or ()]
    for root in roots:
        if root.exists() and not root.is_dir():
            raise ConfigError(f"--runs-dir {root} is a file, not a folder of runs")
    return roots


def find_run(run: str | Path, runs_dirs: list[Path] | tuple[Path, ...] = ()) -> Path:
    """The directory of ``run``: a run directory path, or a run name (its directory name)
    under ``runs_dirs`` (default: the user data dir's runs). Raises ConfigError naming
    the folders searched when there is no such run."""
    as_path = Path(run).expanduser()
    if is_run_dir(as_path):
        return as_path
    roots = checked_runs_dirs(runs_dirs) or [default_runs_dir()]
    for root in roots:
        if is_run_dir(root) and root.name == str(run):
            return root
        candidate = root / str(run)
        # a name is looked up among the runs found, never joined as a path (no ../ escapes)
        if "/" not in str(run) and "\\" not in str(run) and str(run) not in (".", "..") and is_run_dir(candidate):
            return candidate
    where = ", ".join(str(r) for r in roots)
    raise ConfigError(f"no run named {str(run)!r} under {where}; `skillopt runs` lists them (or pass the run directory's path)")
