"""Finding run directories by name, as ``skillopt runs show RUN`` does."""

from __future__ import annotations

from pathlib import Path

from skillopt.errors import ConfigError


def is_run_dir(path: Path) -> bool:
    """A folder the engine wrote (it has ``runtime_state.json`` or ``summary.json``)."""
    path = Path(path)
    return path.is_dir() and ((path / "runtime_state.json").is_file() or (path / "summary.json").is_file())


def default_runs_dir() -> Path:
    """Where runs go when ``--out`` is not given."""
    from skillopt import paths

    return paths.data_dir() / "runs"


def checked_runs_dirs(runs_dirs) -> list[Path]:
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
