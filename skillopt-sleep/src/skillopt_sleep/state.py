"""Per-project sleep state, under platformdirs (``SKILLOPT_HOME`` overrides), never in the repo.

One directory per project (``<state_dir>/sleep/<name>-<sha256(realpath)[:12]>``), so
night counters, harvest windows, task archives and adoption logs never mix between
projects (upstream kept one global counter and archive). Every file is 0600.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs

from skillopt.api import to_data
from skillopt_sleep.fsutil import ensure_dir, read_json, write_json

STATE_VERSION = 1
MAX_HISTORY = 60
MAX_ARCHIVE = 300


def project_key(project: Path) -> str:
    real = str(Path(project).resolve())
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(real).name or "root").strip("-")[:40] or "project"
    return f"{name}-{hashlib.sha256(real.encode('utf-8')).hexdigest()[:12]}"


def project_state_dir(project: Path) -> Path:
    from skillopt.api import state_dir

    return ensure_dir(state_dir() / "sleep" / project_key(project))


@attrs.define(kw_only=True)
class SleepState:
    """What survives between nights for one project."""

    project: str
    version: int = STATE_VERSION
    nights: int = 0
    last_harvest: dict[str, str] = attrs.field(factory=dict)
    history: list[dict[str, Any]] = attrs.field(factory=list)
    task_archive: list[dict[str, Any]] = attrs.field(factory=list)
    last_model_key: str = ""

    @property
    def path(self) -> Path:
        return project_state_dir(Path(self.project)) / "state.json"

    @classmethod
    def load(cls, project: Path) -> SleepState:
        real = str(Path(project).resolve())
        data = read_json(project_state_dir(project) / "state.json", default=None)
        if not isinstance(data, dict):
            return cls(project=real)
        fields = attrs.fields_dict(cls)
        kept = {k: v for k, v in data.items() if k in fields}
        kept["project"] = real
        return cls(**kept)

    def save(self) -> None:
        self.history = self.history[-MAX_HISTORY:]
        self.task_archive = self.task_archive[-MAX_ARCHIVE:]
        write_json(self.path, to_data(self))

    def since(self, source: str, lookback_hours: float) -> datetime | None:
        """Harvest window start for a source: its last harvest, else ``now - lookback``."""
        stamp = self.last_harvest.get(source)
        if stamp:
            try:
                return datetime.fromisoformat(stamp)
            except ValueError:
                pass
        if lookback_hours <= 0:
            return None
        from datetime import timedelta

        return datetime.now(UTC) - timedelta(hours=lookback_hours)
