"""Firing the observer hooks (loggers, dashboards, MLflow/W&B trackers)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from collections.abc import Callable

    from skillopt.config.schema import RunConfig
    from skillopt.plugins import PluginHost
    from skillopt.records import StepRecord
    from skillopt.results import RunSummary


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
    """Calls every installed observer; an observer that raises is reported, not fatal.

    Two kinds share the ``skillopt.observers`` group. A plain observer (a logger, a
    dashboard feed) runs on every run once installed. A *tracker* (its module says
    ``TRACKER = True``: MLflow, W&B) sends the run to a store of its own, so it runs only
    when the run names it (``tracking = ["mlflow"]``) or when its module's
    ``enabled_by_environment()`` finds that tool's own variable set (``MLFLOW_TRACKING_URI``):
    installing the tools for tests or for another project never logs a run anywhere."""

    def __init__(self, host: PluginHost | None = None, warn: Callable[[str], None] | None = None, settings: dict[str, Any] | None = None, off: frozenset[str] = frozenset()) -> None:
        self.host = host
        self.warn = warn
        #: plugin name (``skillopt.observers:NAME``) -> that observer's typed settings
        self.settings = settings or {}
        #: plugin names of installed trackers this run did not switch on
        self.off = off

    @classmethod
    def installed(cls, cfg: RunConfig | None = None) -> Observers:
        """Every installed observer, each given its ``[observers.NAME]`` settings; trackers
        only as ``tracking`` (or their environment) asks."""
        from skillopt.errors import ConfigError
        from skillopt.plugin_config import settings_for
        from skillopt.plugins import declared, get_host
        from skillopt.report import warn

        host = get_host()
        settings: dict[str, Any] = {}
        wanted = set(getattr(cfg, "tracking", None) or [])
        trackers: set[str] = set()
        off: set[str] = set()
        for ep in declared("observers"):
            module = host.load(ep)
            if module is not None and getattr(module, "TRACKER", False):
                trackers.add(ep.name)
                by_env = getattr(module, "enabled_by_environment", None)
                if ep.name not in wanted and not (callable(by_env) and by_env()):
                    off.add(ep.plugin_name)
                    continue
            config_cls = getattr(module, "Config", None) if module is not None else None
            if config_cls is not None and cfg is not None:
                settings[ep.plugin_name] = settings_for(cfg, "observers", ep.name, config_cls) or config_cls()
            elif config_cls is not None:
                settings[ep.plugin_name] = config_cls()
        unknown = sorted(wanted - trackers)
        if unknown:
            raise ConfigError(f"tracking: no installed tracker named {', '.join(map(repr, unknown))}; installed trackers: "
                              + (", ".join(sorted(trackers)) or "none (pip install skillopt-tracking-mlflow or skillopt-tracking-wandb)"))
        return cls(host, warn=warn, settings=settings, off=frozenset(off))

    def _call(self, hook: str, **kw: Any) -> None:
        if self.host is None:
            return
        caller = getattr(self.host.pm.hook, hook)
        for impl in caller.get_hookimpls():
            if impl.plugin_name in self.off:
                continue
            args = {**kw, "config": self.settings.get(impl.plugin_name)}
            try:
                impl.function(**{k: v for k, v in args.items() if k in impl.argnames})
            except Exception as exc:  # noqa: BLE001 - an observer must not break training
                if self.warn:
                    self.warn(f"observer {impl.plugin_name} failed in {hook}: {exc}")

    def run_started(self, run: RunInfo) -> None:
        self._call("skillopt_run_started", run=run)

    def step_finished(self, run: RunInfo, step: StepRecord) -> None:
        self._call("skillopt_step_finished", run=run, step=step)

    def run_finished(self, run: RunInfo, summary: RunSummary | dict[str, Any]) -> None:
        """``summary``: a training run's :class:`RunSummary`; an evaluation's ``eval_summary.json`` dict."""
        self._call("skillopt_run_finished", run=run, summary=summary)
