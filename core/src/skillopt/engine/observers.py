"""Firing the observer hooks (loggers, dashboards, MLflow/W&B trackers)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs


@attrs.frozen(kw_only=True)
class RunInfo:
    """What observers learn about a run. ``config`` is redacted."""

    #: the run directory
    out_dir: Path
    #: the env's name
    env: str
    #: ``train`` (``skillopt run``) or ``eval`` (``skillopt eval``)
    mode: str
    #: the resolved run config as data, secrets redacted
    config: dict[str, Any] = attrs.field(factory=dict)
    #: this process continues a run that was interrupted
    resumed: bool = False
    #: on a resume, the last step finished before the interruption (its steps are fired again)
    resumed_after_step: int = 0


class Observers:
    """Calls every installed observer; an observer that raises is reported, not fatal."""

    def __init__(self, host=None, warn=None, settings: dict[str, Any] | None = None):
        self.host = host
        self.warn = warn
        #: plugin name (``skillopt.observers:NAME``) -> that observer's typed settings
        self.settings = settings or {}

    @classmethod
    def installed(cls, cfg=None) -> Observers:
        """Every installed observer, each given its ``[observers.NAME]`` settings."""
        from skillopt.plugin_config import settings_for
        from skillopt.plugins import declared, get_host
        from skillopt.report import warn

        host = get_host()
        settings: dict[str, Any] = {}
        for ep in declared("observers"):
            module = host.load(ep)
            config_cls = getattr(module, "Config", None) if module is not None else None
            if config_cls is not None and cfg is not None:
                settings[ep.plugin_name] = settings_for(cfg, "observers", ep.name, config_cls) or config_cls()
            elif config_cls is not None:
                settings[ep.plugin_name] = config_cls()
        return cls(host, warn=warn, settings=settings)

    def _call(self, hook: str, **kw: Any) -> None:
        if self.host is None:
            return
        caller = getattr(self.host.pm.hook, hook)
        for impl in caller.get_hookimpls():
            args = {**kw, "config": self.settings.get(impl.plugin_name)}
            try:
                impl.function(**{k: v for k, v in args.items() if k in impl.argnames})
            except Exception as exc:  # noqa: BLE001 - an observer must not break training
                if self.warn:
                    self.warn(f"observer {impl.plugin_name} failed in {hook}: {exc}")

    def run_started(self, run: RunInfo) -> None:
        self._call("skillopt_run_started", run=run)

    def step_finished(self, run: RunInfo, step) -> None:
        self._call("skillopt_step_finished", run=run, step=step)

    def run_finished(self, run: RunInfo, summary: dict) -> None:
        self._call("skillopt_run_finished", run=run, summary=summary)
