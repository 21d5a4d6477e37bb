"""Pinning a handoff night's task list, so every re-run resumes on exactly the same tasks.

A handoff night takes several rounds: each stops when prompts wait for answers, and
the developer re-runs the same command. Harvesting again each round would see a moved
lookback window and the sessions the developer added since, so round two could
replay tasks round one never asked about (and leave answered prompts unused). The
first round that has its task list writes it, with the report of how it was found and
the options that shaped it, to ``tasks.json`` in the handoff directory; later rounds
load it instead of harvesting and mining. Dream variants are pinned too, once made.
Re-running with different task-shaping options is an error naming the file, never a
silent re-mine. The file leaves with the handoff directory when the night ends
(``handoff-done/night-NNNN``), or is removed after a dry run.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import attrs

from skillopt.api import ConfigError, from_data, to_data
from skillopt_sleep.fsutil import read_json, write_json
from skillopt_sleep.mine.tasks import SleepTask
from skillopt_sleep.options import SleepOptions
from skillopt_sleep.report import Gathered

PIN_NAME = "tasks.json"
SCHEMA = "skillopt-sleep-handoff-pin"
SHAPING = (
    "sources",
    "roots",
    "scope",
    "lookback_hours",
    "agent",
    "miner",
    "max_sessions",
    "max_tasks",
    "recall_k",
    "dream_factor",
    "val_fraction",
    "test_fraction",
    "seed",
)


@attrs.frozen(kw_only=True)
class Pinned:
    path: Path
    tasks: tuple[SleepTask, ...]
    #: how the tasks were found (harvest and mining summaries, task rows, dreams)
    gathered: Gathered
    dreamed: bool


def shaping(opts: SleepOptions, given: list[SleepTask] | None) -> dict:
    """The options that decide which tasks a night replays (plus a given tasks file)."""
    out = {name: to_data(getattr(opts, name)) for name in SHAPING}
    out["roots"] = {k: [str(p) for p in v] for k, v in sorted(opts.roots.items())}
    out["sources"] = list(opts.sources)
    out["tasks_file"] = (
        hashlib.sha256("\x1f".join(sorted(t.id for t in given)).encode()).hexdigest()[:16] if given is not None else None
    )
    return out


def save(directory: Path, opts: SleepOptions, given, tasks: list[SleepTask], gathered: Gathered, *, dreamed: bool) -> Path:
    path = Path(directory) / PIN_NAME
    write_json(
        path,
        {
            "schema": SCHEMA,
            "version": 2,
            "options": shaping(opts, given),
            "dreamed": dreamed,
            "gathered": to_data(gathered),
            "tasks": [to_data(t) for t in tasks],
        },
    )
    return path


def load(directory: Path, opts: SleepOptions, given) -> Pinned | None:
    """The pinned round, or None when none is pending; different options are an error."""
    import json

    path = Path(directory) / PIN_NAME
    if not path.is_file():
        return None
    fix = f"re-run with the options of the first round, or delete {path} to start the night over"
    try:
        data = read_json(path)
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise ValueError("not a pinned task list")
        tasks = tuple(from_data(raw, SleepTask) for raw in data.get("tasks") or [])
        gathered = from_data(data.get("gathered") or {}, Gathered)
    except (OSError, UnicodeError, ValueError, json.JSONDecodeError, TypeError, KeyError) as exc:
        raise ConfigError(f"handoff: {path} is damaged ({exc}); {fix}") from None
    except Exception as exc:  # noqa: BLE001 - cattrs raises several types for a bad task
        raise ConfigError(f"handoff: {path} holds a malformed task ({exc}); {fix}") from None
    now = shaping(opts, given)
    then = data.get("options") or {}
    changed = sorted(k for k in set(now) | set(then) if now.get(k) != then.get(k))
    if changed:
        raise ConfigError(f"handoff: the pending round in {path.parent} was started with different {', '.join(changed)}; {fix}")
    return Pinned(path=path, tasks=tasks, gathered=gathered, dreamed=bool(data.get("dreamed")))


def clear(directory: Path) -> None:
    (Path(directory) / PIN_NAME).unlink(missing_ok=True)
