"""Firing the observer hooks (loggers, dashboards, MLflow/W&B trackers)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs


@attrs.frozen(kw_only=True)
class RunInfo:
    """What observers learn about a run. ``config`` is redacted."""

    out_dir: Path
    env: str
    mode: str
    config: dict[str, Any] = attrs.field(factory=dict)


class Observers:
    """Calls every installed observer; an observer that raises is reported, not fatal."""

    def __init__(self, host=None, warn=None):
        self.host = host
        self.warn = warn

    @classmethod
    def installed(cls) -> Observers:
        from skillopt.plugins import get_host

        host = get_host()
        host.load_kind("observers")
        return cls(host)

    def _call(self, hook: str, **kw: Any) -> None:
        if self.host is None:
            return
        caller = getattr(self.host.pm.hook, hook)
        for impl in caller.get_hookimpls():
            try:
                impl.function(**{k: v for k, v in kw.items() if k in impl.argnames})
            except Exception as exc:  # noqa: BLE001 - an observer must not break training
                if self.warn:
                    self.warn(f"observer {impl.plugin_name} failed in {hook}: {exc}")

    def run_started(self, run: RunInfo) -> None:
        self._call("skillopt_run_started", run=run)

    def step_finished(self, run: RunInfo, step) -> None:
        self._call("skillopt_step_finished", run=run, step=step)

    def run_finished(self, run: RunInfo, summary: dict) -> None:
        self._call("skillopt_run_finished", run=run, summary=summary)
