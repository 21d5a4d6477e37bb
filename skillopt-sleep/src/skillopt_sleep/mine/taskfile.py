"""Tasks files: ``harvest --output`` writes the mined tasks for review; ``run
--tasks-file`` replays a file only once a person has set ``"reviewed": true``.

The split of each task is assigned at harvest time by the same per-session rule the
nightly cycle uses, with the same ``--val-fraction``/``--test-fraction``/``--seed``,
and travels in the file — upstream's harvest and tasks-file paths silently ignored
the val/test fractions. Checks in a file are validated like mined ones; a bad check
is an error naming the task.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from skillopt.api import ConfigError, from_data, to_data
from skillopt_sleep.fsutil import read_json, write_json
from skillopt_sleep.mine.tasks import SleepTask
from skillopt_sleep.replay.judging import validate_checks

SCHEMA = "skillopt-sleep-tasks"


def harvest_tasks(kw: dict) -> dict:
    from skillopt_sleep.harvest import HarvestRequest, harvest
    from skillopt_sleep.mine.heuristic import mine
    from skillopt_sleep.mine.memory import read_memory
    from skillopt_sleep.mine.split import session_splits

    project = Path(kw["project"]).expanduser().resolve()
    roots: dict[str, tuple[Path, ...]] = {}
    for item in kw.get("root") or []:
        src, sep, path = item.partition("=")
        if not sep:
            raise ConfigError(f"--root expects SOURCE=PATH, got {item!r}")
        roots[src] = roots.get(src, ()) + (Path(path).expanduser(),)
    hours = kw.get("lookback_hours", 168.0)
    since = None if hours <= 0 else datetime.now(UTC) - timedelta(hours=hours)
    result = harvest(
        HarvestRequest(
            sources=tuple(kw.get("source") or ("auto",)),
            roots=roots,
            project=project,
            scope=kw.get("scope", "invoked"),
            since=since,
            max_sessions=kw.get("max_sessions", 200),
        )
    )
    splits = session_splits(
        [s.id for s in result.sessions],
        val_fraction=kw.get("val_fraction", 0.34),
        test_fraction=kw.get("test_fraction", 0.0),
        seed=kw.get("seed", 42),
    )
    mined = mine(result.sessions, splits, project_name=project.name, memory=read_memory(project))
    return {
        "schema": SCHEMA,
        "version": 1,
        "reviewed": False,
        "project": str(project),
        "split": {
            "val_fraction": kw.get("val_fraction", 0.34),
            "test_fraction": kw.get("test_fraction", 0.0),
            "seed": kw.get("seed", 42),
        },
        "sessions": len(result.sessions),
        "session_splits": splits,
        "warnings": list(result.warnings),
        "dropped": result.dropped,
        "skipped_lines": result.skipped_lines,
        "unreadable": list(result.unreadable),
        "tasks": [to_data(t) for t in mined.tasks],
    }


def write_tasks(path: Path, payload: dict) -> None:
    write_json(path, payload)


def load_tasks(path: Path) -> list[SleepTask]:
    import json

    try:
        data = read_json(Path(path))
    except (OSError, UnicodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"--tasks-file {path}: cannot read it as JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ConfigError(
            f"--tasks-file {path}: not a skillopt sleep tasks file (write one with `skillopt sleep harvest --output`)"
        )
    if data.get("reviewed") is not True:
        raise ConfigError(f'--tasks-file {path}: review the tasks, then set "reviewed": true in the file')
    tasks = []
    for n, raw in enumerate(data.get("tasks") or []):
        try:
            task = from_data(raw, SleepTask)
        except Exception as exc:  # noqa: BLE001 - cattrs raises several types
            raise ConfigError(f"--tasks-file {path}: task #{n} is malformed: {exc}") from None
        checks, problems = validate_checks([to_data(c) for c in task.checks])
        if problems:
            raise ConfigError(f"--tasks-file {path}: task {task.id}: " + "; ".join(problems))
        if task.split not in ("train", "val", "test"):
            raise ConfigError(f"--tasks-file {path}: task {task.id} has split {task.split!r}; use train, val or test")
        tasks.append(task)
    return tasks
