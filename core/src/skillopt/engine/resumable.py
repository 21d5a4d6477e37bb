"""The one place where stage results are saved and reused.

A killed run resumes exactly because every stage goes through :func:`resumable`: the
result file holds a *completed* result and the key of the inputs it was computed from,
and it is reused only when both are there. A stage that raises leaves no file, so an
error (a provider outage, a timeout, a cache miss) is never reused as if it were an
answer: the resumed run simply tries again. Per-item work (rollouts) goes through an
:class:`ItemLog` with the same rule: only finished items are appended.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from skillopt.engine.rundir import (
    RunFileError,
    append_jsonl,
    append_line,
    move_aside,
    read_json,
    read_jsonl,
    write_json,
    write_text,
)
from skillopt.redact import redact_text
from skillopt.serde import from_data, to_data

T = TypeVar("T")

RESULT_VERSION = 1


def saved_result(path: Path, cls: type[T], key: str) -> T | None:
    """The completed result at ``path`` computed from inputs ``key``, else None."""
    try:
        data = read_json(path)
    except RunFileError as exc:
        _set_aside(path, exc.args[0])
        return None
    if data is None:
        return None
    if not isinstance(data, dict) or "complete" not in data:
        _set_aside(path, f"{path} does not hold a stage result")
        return None
    if data.get("complete") is not True or data.get("key") != key:
        return None  # the result of other inputs (a changed config): recomputed and replaced
    try:
        return from_data(data["result"], cls)
    except Exception as exc:  # noqa: BLE001 - an unreadable result is recomputed, never trusted
        _set_aside(path, f"{path} holds a result of the wrong shape ({type(exc).__name__})")
        return None


def _set_aside(path: Path, why: str) -> None:
    """A damaged stage result is moved aside (kept) and recomputed; the call cache makes
    the recomputation free when its calls were already paid for."""
    from skillopt.report import warn

    aside = move_aside(path)
    warn(f"{why.split(';')[0]}; recomputing the stage (the damaged copy is {aside.name})")


def resumable(
    path: Path,
    cls: type[T],
    key: str,
    compute: Callable[[], T],
    *,
    views: Callable[[T], dict[str, str]] | None = None,
) -> T:
    """Reuse the completed result of ``key`` at ``path``, or compute and save it.

    ``views`` maps a result to human-readable files written beside it (a candidate
    skill as markdown); they are written first, so the result file is the commit point.
    """
    found = saved_result(path, cls, key)
    if found is not None:
        return found
    result = compute()  # raises: nothing is written, the next run retries
    for name, text in (views(result) if views else {}).items():
        write_text(path.parent / name, redact_text(text))
    write_json(path, {"version": RESULT_VERSION, "complete": True, "key": key, "stage": path.parent.name, "result": to_data(result)})
    return result


class ItemLog:
    """Append-only ``results.jsonl`` of finished items, keyed by item and input hash."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def finished(self, key: str, cls: type[T], field: str) -> dict[str, T]:
        """Every finished item of input ``key`` (later lines win)."""
        out: dict[str, T] = {}
        for rec in read_jsonl(self.path):
            if rec.get("skill_hash") != key or field not in rec:
                continue
            try:
                out[rec["key"]] = from_data(rec[field], cls)
            except Exception:  # noqa: BLE001 - a line of the wrong shape is redone
                continue
        return out

    def append_encoded(self, item: str, key: str, field: str, encoded: str) -> None:
        """Log a finished item whose value is already redacted JSON text (written to
        another file too): the line is assembled around it, not serialised again."""
        line = f'{{"key": {json.dumps(item, ensure_ascii=False)}, "skill_hash": {json.dumps(key)}, {json.dumps(field)}: {encoded}}}'
        append_line(self.path, line)

    def append(self, item: str, key: str, field: str, value: Any, *, redacted_data: Any = None) -> None:
        """Log a finished item; ``redacted_data`` is ``value`` already serialised and
        scrubbed (when the caller wrote it elsewhere too), so it is not done twice."""
        if redacted_data is not None:
            append_jsonl(self.path, {"key": item, "skill_hash": key, field: redacted_data}, redacted=True)
        else:
            append_jsonl(self.path, {"key": item, "skill_hash": key, field: to_data(value)})
