"""What ``skillopt run`` / ``eval`` / ``config show`` do before and around the engine:
resolve config and plugins, pick backends, guard resume, report."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from skillopt.config.loading import (
    ConfigSources,
    config_diff,
    config_fingerprint,
    env_name_of,
    peek,
    raw_layers,
    redacted_config_data,
    resolve_config,
)
from skillopt.config.schema import RunConfig
from skillopt.engine.rundir import RunDir, read_json, write_json
from skillopt.errors import ConfigError, SkillOptError
from skillopt.report import Reporter, say

if TYPE_CHECKING:
    from collections.abc import Callable

    from skillopt.calls import Ledger, ModelClient
    from skillopt.engine.lock import RunLock
    from skillopt.envs import Env
    from skillopt.executors import Executor
    from skillopt.gates import Gate
    from skillopt.policies import EditPolicy
    from skillopt.registry import Component
    from skillopt.results import RunSummary


def _env_component(sources: ConfigSources) -> Component:
    from skillopt.registry import get, get_registry

    name = env_name_of(sources)
    if not name:
        names = get_registry().names("envs")
        raise ConfigError(f"no env named: pass --env NAME. Installed envs: {', '.join(names) or 'none'}")
    return get("envs", name)


def resolve_run_config(*, config_file: Path | None, assignments: list[str], flags: dict[str, Any],
                       cfg_options: tuple[str, ...] = ()) -> tuple[RunConfig, type]:
    from skillopt.config.presets import resolve_preset

    sources = ConfigSources(file=config_file, assignments=tuple(assignments), flags=dict(flags), cfg_options=tuple(cfg_options))
    comp = _env_component(sources)
    env_cls = comp.obj
    raw = raw_layers(sources, env_cls.Config)
    asked = str(peek(raw, "preset", "") or "")
    preset_name = asked
    if not preset_name and env_cls.presets:
        preset_name = auto_preset(env_cls, resolve_config(sources, env_cls.Config))
    preset_name, preset = resolve_preset(env_cls, preset_name, explicit=bool(asked), env_name=comp.name)
    cfg = resolve_config(attrs.evolve(sources, preset=preset), env_cls.Config)
    cfg = attrs.evolve(cfg, env=attrs.evolve(cfg.env, name=comp.name), preset=preset_name)
    return cfg, env_cls


def auto_preset(env_cls: type[Env], cfg: RunConfig) -> str:
    """The env's choice when no preset is named: its small preset on the embedded local
    model (so a fresh machine finishes quickly), its full-size settings otherwise (never
    the paper's exact gate: see :mod:`skillopt.config.presets`)."""
    from skillopt.engine.models import backend_name
    from skillopt.errors import PluginError
    from skillopt.registry import get

    target, _ = backend_name(cfg, "target")
    try:
        backend_cls = get("backends", target).obj
    except PluginError:
        backend_cls = None  # the run itself reports the unknown backend
    return env_cls.auto_preset(backend_cls) or ""


def build_gate(cfg: RunConfig) -> Gate:
    """The run's gate with its typed ``[gates.NAME]`` settings (:func:`skillopt.gates.build_gate`)."""
    from skillopt.gates import build_gate as build

    return build(cfg)


def build_policy(cfg: RunConfig) -> EditPolicy:
    """The run's edit policy with its typed ``[edit_policies.NAME]`` settings."""
    from skillopt.plugin_config import settings_for
    from skillopt.registry import get

    comp = get("edit_policies", cfg.optimizer.skill_update_mode)
    policy: EditPolicy = comp.obj(settings=settings_for(cfg, "edit_policies", cfg.optimizer.skill_update_mode, comp.obj.Config))
    return policy


def build_executor(cfg: RunConfig) -> Executor:
    """The run's executor (``engine.executor``) with its typed ``[executors.NAME]`` settings;
    not started yet (the rollout runner starts it)."""
    from skillopt.plugin_config import settings_for
    from skillopt.registry import get

    comp = get("executors", cfg.engine.executor)
    executor: Executor = comp.obj(settings_for(cfg, "executors", cfg.engine.executor, comp.obj.Config), engine=cfg.engine)
    return executor


def default_out_dir(cfg: RunConfig) -> Path:
    from skillopt import paths

    stamp = time.strftime("%Y%m%d-%H%M%S")
    return paths.data_dir() / "runs" / f"{cfg.env.name}-{stamp}"


def pipeline_note(clients: dict[str, Any], env: str) -> str:
    """The line a run on a model too small to learn starts and ends with ('' otherwise):
    the target's note, which names the command that trains with a real model."""
    from rich.markup import escape

    target = clients.get("target")
    note = target.backend.pipeline_check_note(env) if target is not None else ""
    return f"[yellow]note:[/yellow] {escape(note)}" if note else ""


def guard_resume(rundir: RunDir, data: dict[str, Any], force: bool,
                 say: Callable[[str], None] | None = None) -> tuple[str, tuple[str, ...]]:
    """The config's fingerprint, and what changed when resuming with ``--force-config``
    (a changed config is refused without it)."""
    fingerprint = config_fingerprint(data)
    old = read_json(rundir.config, expect=dict)
    if old is not None and config_fingerprint(old) != fingerprint:
        diff = config_diff(old, data)
        if not force:
            raise ConfigError(
                f"{rundir.root} holds a run with a different config; refusing to resume. Changed:\n  "
                + "\n  ".join(diff) + "\nUse a new --out, or --force-config to resume anyway."
            )
        if say is not None:
            say("[yellow]resuming with a changed config (--force-config):[/yellow] " + "; ".join(diff))
        return fingerprint, tuple(diff)
    return fingerprint, ()


@attrs.define
class Session:
    cfg: RunConfig
    env_cls: type
    console: Any = None
    #: the pipeline-check note of a run on a model too small to learn ('' = none)
    note: str = ""
    #: the reporter port the session's lines go to, ``(message, level)``; None = the
    #: invocation's installed one (:func:`skillopt.report.say`: the CLI's terminal, a list
    #: in a test). The engine never renders: it reports, and the reporter shows.
    reporter: Reporter | None = None

    def _say(self, text: str, *, level: str = "info") -> None:
        """A line for the person running the session (style tags allowed; user-given parts
        escaped with :func:`rich.markup.escape`)."""
        if self.reporter is not None:
            self.reporter(text, level)
        else:
            say(text, level=level)

    def _clients(self, roles: tuple[str, ...], *, training: bool = False) -> tuple[dict[str, ModelClient], Ledger]:
        """The role clients; a training run on a model that only checks the pipeline says
        so first (see :meth:`Backend.pipeline_check_note`)."""
        from skillopt.calls import Ledger
        from skillopt.engine.models import build_clients

        b = self.cfg.budget
        ledger = Ledger(max_cost_usd=b.max_cost_usd, max_calls=b.max_calls, max_tokens=b.max_tokens)
        clients, reasons = build_clients(self.cfg, ledger=ledger, roles=roles)
        self.note = pipeline_note(clients, self.cfg.env.name) if training else ""
        if self.note:
            self._say(self.note)
        described = {role: (c.backend.name, c.model or "default", reasons[role]) for role, c in clients.items()}
        if len(set(described.values())) == 1:  # one line when both roles share a backend
            name, model, reason = next(iter(described.values()))
            roles_text = " and ".join(described)
            self._say(f"{roles_text}: backend [bold]{name}[/bold], model {model}" + (f" ({reason})" if reason else ""))
        else:
            for role, (name, model, reason) in described.items():
                self._say(f"{role}: backend [bold]{name}[/bold], model {model}" + (f" ({reason})" if reason else ""))
        return clients, ledger

    def _say_plan(self, clients: dict[str, ModelClient], env: Env) -> None:
        """The run's ceiling before it starts (what ``skillopt check`` estimates), from
        the env the run trains with (built once: it announces its data source once)."""
        from skillopt.engine.estimate import describe, estimate, pricers_for

        try:
            found = estimate(self.cfg, env, pricers=pricers_for(self.cfg, {r: c.backend for r, c in clients.items()}))
            self._say("plan: " + describe(found, self.cfg.budget.max_cost_usd))
        except SkillOptError as exc:  # an estimate never stops a run; the run itself will say what is wrong
            self._say(f"plan: no estimate ({exc})")

    def _say_gate_power(self, cfg: RunConfig, gate: Gate, env: Env) -> None:
        """A warning when the gate cannot accept anything on the run's val items."""
        from rich.markup import escape

        from skillopt.engine.gate_power import too_few_items, val_items

        try:
            problem = too_few_items(cfg, gate, val_items(cfg, env))
        except SkillOptError:  # missing data: the run itself says what is wrong
            return
        if problem:
            self._say(escape(problem), level="warning")

    def _guard_resume(self, rundir: RunDir, data: dict[str, Any], force: bool) -> tuple[str, tuple[str, ...]]:
        return guard_resume(rundir, data, force, self._say)

    def train(self, *, force_config: bool = False) -> RunSummary:
        """Train (or resume) in the run directory; returns the :class:`RunSummary`."""
        from skillopt.engine.lock import RunLock

        out = Path(self.cfg.out_dir).expanduser() if self.cfg.out_dir else default_out_dir(self.cfg)
        cfg = attrs.evolve(self.cfg, out_dir=str(out))
        self.cfg = cfg
        data = redacted_config_data(cfg)
        fresh = not out.exists()
        rundir = RunDir(out).ensure()
        lock = RunLock(rundir.root).acquire()  # first: a second run on this directory is refused before it does anything
        try:
            return self._train_locked(cfg, rundir, data, lock, force_config)
        finally:
            lock.release()
            if fresh:
                _remove_if_only_lock(rundir.root, lock.path)

    def _train_locked(self, cfg: RunConfig, rundir: RunDir, data: dict[str, Any], lock: RunLock, force_config: bool) -> RunSummary:
        from skillopt.engine import saved_run
        from skillopt.engine.observers import Observers
        from skillopt.engine.progress import RichReporter
        from skillopt.engine.trainer import Trainer

        out = rundir.root
        fingerprint, changes = self._guard_resume(rundir, data, force_config)
        policy, gate = build_policy(cfg), build_gate(cfg)
        env = self.env_cls(cfg.env)
        clients, ledger = self._clients(("target", "optimizer"), training=True)
        state = read_json(rundir.state, {}, expect=dict) or {}
        saved = saved_run.load_state(rundir)
        if saved is not None:  # a damaged saved run is named before anything in it is written
            saved_run.check_saved_skills(rundir, saved)
        write_json(rundir.config, data)
        self._say(f"run directory: {out}" + (f" (preset: {cfg.preset})" if cfg.preset else ""))
        if state.get("status") not in (None, "finished"):
            self._say(f"resuming after step {state.get('last_completed_step', 0)}: finished work is not paid for again")
        else:
            self._say_plan(clients, env)
        self._say_gate_power(cfg, gate, env)
        reporter = RichReporter(ledger)
        executor = build_executor(cfg)
        try:
            trainer = Trainer(
                cfg=cfg, env=env, target=clients["target"], optimizer=clients["optimizer"], policy=policy, gate=gate,
                out_dir=out, ledger=ledger, reporter=reporter, observers=Observers.installed(cfg), config_data=data,
                executor=executor,
            )
            summary = trainer.train(fingerprint, config_changes=changes, lock=lock)
        finally:
            executor.close()
            reporter.close()
            env.close()
            for client in clients.values():
                client.close()
        if self.note:  # the last line too: the reader of a lift of +0.000 sees why
            self._say(self.note)
        return summary

    def evaluate(self, skill: str, *, split: str, repeats: int = 1, skill_path: str = "") -> dict[str, Any]:
        from skillopt.engine.evaluation import Evaluator, ScoreBook, breakdown
        from skillopt.engine.progress import RichReporter
        from skillopt.engine.rollouts import RolloutRunner, missing_summary
        from skillopt.engine.subsets import subset
        from skillopt.engine.trainer import rollout_deadline
        from skillopt.envs import canonical_split
        from skillopt.records import skill_hash

        split = canonical_split(split)
        cfg = self.cfg
        out = Path(cfg.out_dir).expanduser() if cfg.out_dir else default_out_dir(cfg).with_name(f"eval-{cfg.env.name}-{time.strftime('%Y%m%d-%H%M%S')}")
        from skillopt.engine.observers import Observers, RunInfo

        env = self.env_cls(cfg.env)
        clients, ledger = self._clients(("target",))
        reporter = RichReporter(ledger)
        observers = Observers.installed(cfg)
        run_info = RunInfo(out_dir=out, env=cfg.env.name, mode="eval", config=redacted_config_data(cfg))
        observers.run_started(run_info)
        executor = build_executor(cfg)
        try:
            runner = RolloutRunner(env, clients["target"], workers=cfg.env.workers, timeout_s=cfg.env.exec_timeout,
                                   deadline_s=rollout_deadline(cfg, clients["target"]), reporter=reporter,
                                   executor=executor, config=cfg)
            tasks = env.tasks(split)
            if split == "test":
                tasks = subset(tasks, cfg.evaluation.test_env_num, cfg.train.seed)
            rundir = RunDir(out).ensure()
            evaluation, rollouts = Evaluator(runner, ScoreBook(rundir.scores), seed=cfg.train.seed).evaluate(
                skill, tasks, out / f"{split}_eval", split=split, repeats=repeats
            )
        finally:
            executor.close()
            reporter.close()
            env.close()
            clients["target"].close()
        totals = ledger.totals()
        summary = {
            "env": cfg.env.name, "skill": skill_path, "skill_hash": skill_hash(skill), "split": split, "n": evaluation.n,
            "repeats": repeats, "hard": evaluation.hard, "soft": evaluation.soft, "by_task_type": breakdown(rollouts),
            "errors": sum(1 for r in rollouts if r.missing), "excluded_items": len(evaluation.missing),
            "usage": {"calls": totals.calls, "cached_calls": totals.cached_calls, "tokens": totals.tokens, "cost_usd": totals.cost_usd},
            "out_dir": str(out),
        }
        write_json(out / "eval_summary.json", summary)
        observers.run_finished(run_info, summary)
        self._say(f"{split}: hard {evaluation.hard:.3f} soft {evaluation.soft:.3f} on {evaluation.n} items -> {out / 'eval_summary.json'}")
        if evaluation.missing:
            self._say(f"[yellow]{missing_summary(rollouts)}; left out of the scores. Re-run the same command to retry them.[/yellow]")
        return summary


def open_session(*, config_file: Path | None, assignments: list[str], flags: dict[str, Any], for_eval: bool = False,
                 cfg_options: tuple[str, ...] = ()) -> Session:
    cfg, env_cls = resolve_run_config(config_file=config_file, assignments=assignments, flags=flags, cfg_options=cfg_options)
    return Session(cfg=cfg, env_cls=env_cls)


def _remove_if_only_lock(root: Path, lock_path: Path) -> None:
    """A run refused before it wrote anything (an unknown backend, a missing key) leaves no
    directory behind: a new ``--out`` holding only ``run.lock`` would look like a run."""
    try:
        if [p.name for p in root.iterdir()] == [lock_path.name]:
            lock_path.unlink()
            root.rmdir()
    except OSError:
        pass
