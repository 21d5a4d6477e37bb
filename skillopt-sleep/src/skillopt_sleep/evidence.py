"""The evidence log: an append-only record of what the night saw and decided.

Each event is scrubbed, then clipped, before it is kept, so the log can be read (and
shared) without exposing a secret. It is written next to the staged proposal, or into
the per-project state directory when nothing is staged.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from skillopt_sleep.fsutil import write_atomic
from skillopt_sleep.redaction import scrub_data

MAX_STRING = 2000


def _clip_strings(data: Any) -> Any:
    if isinstance(data, str):
        return data if len(data) <= MAX_STRING else data[: MAX_STRING - 1] + "…"
    if isinstance(data, dict):
        return {k: _clip_strings(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_clip_strings(v) for v in data]
    return data


class EvidenceLog:
    def __init__(self) -> None:
        self._events: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def add(self, stage: str, event: str, **data: Any) -> None:
        record = {"ts": round(time.time(), 3), "stage": stage, "event": event, **_clip_strings(scrub_data(data))}
        with self._lock:
            record["seq"] = len(self._events)
            self._events.append(record)

    @property
    def events(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._events)

    def write(self, path: Path) -> Path:
        lines = [json.dumps(e, ensure_ascii=False, default=str) for e in self.events]
        write_atomic(path, "\n".join(lines) + ("\n" if lines else ""))
        return path
