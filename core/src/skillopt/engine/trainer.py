"""The training loop: plan the steps, run each as a stage pipeline, commit the result.

The trainer is the only writer of the run state (``runtime_state.json``), the skill
versions and ``history.json``; stages return records and save only their own
completed results. A step is committed in one place, state last, so a kill at any
instant leaves either the step done or the step to redo from its saved stages, and a
resumed run ends exactly where an uninterrupted one would.
"""

from __future__ import annotations

import time
from pathlib import Path

from skillopt.calls import Ledger
from skillopt.config.schema import RunConfig
from skillopt.envs import Env
from skillopt.errors import BudgetExceeded, ConfigError
from skillopt.gates import Gate
from skillopt.policies import EditPolicy
from skillopt.records import StepAction, skill_hash
from skillopt.results import ConfigChange, RunStatus, RunSummary
from skillopt.serde import from_data, to_data
from skillopt.engine.buffer import make_entry, render_buffer
from skillopt.engine.context import Current, RunContext, RunData, StepPlan
from skillopt.engine.evaluation import Evaluator, ScoreBook
from skillopt.engine.lock import RunLock
from skillopt.engine.observers import Observers, RunInfo
from skillopt.engine.plan import check_train_size, epoch_batches, scheduled_budget, steps_per_epoch
from skillopt.engine.progress import NullReporter
from skillopt.engine.rollouts import RolloutRunner, SystemicFailure, is_missing_error
from skillopt.engine.rundir import RunDir, read_json, write_json
from skillopt.engine.state import TrainState
from skillopt.engine.step import StepOutcome, run_step
from skillopt.engine.subsets import subset
from skillopt.engine import reporting


def rollout_deadline(cfg: RunConfig, target) -> float:
    """When the engine gives up on one rollout: the env's own limit plus the time the
    client's retries of one call may need (so a slow call's retry is never cut off and
    scored as a timeout)."""
    settings = getattr(getattr(target, "backend", None), "settings", None)
    call = float(getattr(settings, "timeout_s", None) or cfg.model.timeout_s)
    retries = cfg.model.max_retries
    retry_policy = getattr(target, "retry", None)
    base, cap = (retry_policy.base_delay_s, retry_policy.max_delay_s) if retry_policy else (0.5, 30.0)
    backoff = sum(min(cap, base * 2**i) for i in range(retries))
    return cfg.env.exec_timeout + call * retries + backoff


class Trainer:
    def __init__(
        self, *, cfg: RunConfig, env: Env, target, optimizer, policy: EditPolicy, gate: Gate, out_dir: Path,
        ledger: Ledger | None = None, reporter=None, observers: Observers | None = None, config_data: dict | None = None,
    ):
        self.cfg, self.env, self.policy, self.gate = cfg, env, policy, gate
        self.target, self.optimizer = target, optimizer
        self.rundir = RunDir(out_dir).ensure()
        self.ledger = ledger or getattr(target, "ledger", None) or Ledger()
        self.reporter = reporter or NullReporter()
        self.observers = observers or Observers()
        self.config_data = config_data or {}
        self.runner = RolloutRunner(env, target, workers=cfg.env.workers, timeout_s=cfg.env.exec_timeout,
                                    deadline_s=rollout_deadline(cfg, target), reporter=self.reporter)
        self.evaluator = Evaluator(self.runner, ScoreBook(self.rundir.scores), seed=cfg.train.seed)
        self.run_info = RunInfo(out_dir=self.rundir.root, env=env.name, mode="train", config=self.config_data)
        self.state = TrainState()
        #: baseline val items that got no answer (left out of its score, retried later)
        self.baseline_missing: dict[str, str] = {}
        self._started = time.monotonic()
        self._prior_wall = 0.0

    # ------------------------------------------------------------------ setup

    def context(self) -> RunContext:
        train = self.env.tasks("train")
        check_train_size(train, self.cfg.train)
        val = self.env.tasks("val")
        if not val:
            raise ConfigError("the val split is empty; the gate needs validation items")
        val = subset(val, self.cfg.evaluation.sel_env_num, self.cfg.train.seed)
        spe = steps_per_epoch(len(train), self.cfg.train)
        schedule = self.cfg.train.num_epochs * spe
        total = min(schedule, self.cfg.train.max_steps) if self.cfg.train.max_steps else schedule
        data = RunData(train=tuple(train), val=tuple(val), index={t.id: t for t in [*train, *val]},
                       steps_per_epoch=spe, schedule_steps=schedule, total_steps=total)
        return RunContext(cfg=self.cfg, env=self.env, target=self.target, optimizer=self.optimizer, policy=self.policy,
                          gate=self.gate, rundir=self.rundir, data=data, runner=self.runner, evaluator=self.evaluator,
                          ledger=self.ledger, reporter=self.reporter)

    def plans(self, run: RunContext, epoch: int) -> list[StepPlan]:
        o = self.cfg.optimizer
        out = []
        for j, micro in enumerate(epoch_batches(list(run.data.train), self.cfg.train, epoch)):
            step = (epoch - 1) * run.data.steps_per_epoch + j + 1
            scheduled = scheduled_budget(step, run.data.schedule_steps, o)
            told = scheduled if scheduled is not None or o.lr_control_mode != "autonomous" else o.learning_rate
            out.append(StepPlan(step=step, epoch=epoch, index=j, micro=tuple(tuple(b) for b in micro), scheduled=scheduled, told=told))
        return out

    def save_state(self) -> None:
        self.state.wall_time_s = self._prior_wall + (time.monotonic() - self._started)
        write_json(self.rundir.state, to_data(self.state))

    def skill_at(self, path: str) -> str:
        return (self.rundir.root / path).read_text(encoding="utf-8")

    def current(self, skill: str) -> Current:
        return Current(skill=skill, skill_hash=skill_hash(skill), score=self.state.current_score,
                       step_history=render_buffer(self.state.step_buffer), meta_skill=self.state.meta_skill)

    def set_current(self, skill: str, score: float, origin: str, path: Path) -> None:
        self.rundir.write_skill(path, skill)
        self.state.current_skill_path = str(path.relative_to(self.rundir.root))
        self.state.current_hash, self.state.current_score, self.state.current_origin = skill_hash(skill), score, origin

    def set_best(self, skill: str, score: float, step: int, origin: str) -> None:
        self.rundir.write_skill(self.rundir.best_skill, skill)
        self.state.best_skill_path = self.rundir.best_skill.name
        self.state.best_hash, self.state.best_score = skill_hash(skill), score
        self.state.best_step, self.state.best_origin = step, origin

    # ------------------------------------------------------------------ start / resume

    def start(self, run: RunContext, fingerprint: str, changes: tuple[str, ...]) -> str:
        self.ledger.attach(self.rundir.usage)
        saved = read_json(self.rundir.state)
        if isinstance(saved, dict) and saved.get("current_skill_path"):
            self.state = from_data(saved, TrainState)
            self._prior_wall = self.state.wall_time_s
            self.state.config_fingerprint, self.state.status = fingerprint, RunStatus.RUNNING
            if changes:
                change = ConfigChange(after_step=self.state.last_completed_step, changes=changes, at=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
                self.state.config_changes.append(change)
                reporting.append_history(self.rundir, {"kind": "config_change", **to_data(change)})
                self.save_state()
            return self.skill_at(self.state.current_skill_path)
        initial = self.env.initial_skill()
        v0 = self.rundir.skill_version(0)
        self.state.config_fingerprint, self.state.initial_hash = fingerprint, skill_hash(initial)
        self.ledger.scope = "baseline"
        self.reporter.phase("baseline")
        baseline = run.evaluate_val(initial, self.rundir.root / "gate_baseline", "val: initial skill")
        self.baseline_missing = dict(baseline.missing)
        score = self.gate.score(baseline)
        self.set_current(initial, score, "initial_skill", v0)
        self.state.baseline_score = score
        self.set_best(initial, score, 0, "initial_skill")
        self.save_state()
        return initial

    # ------------------------------------------------------------------ loop

    def train(self, fingerprint: str = "", *, config_changes: tuple[str, ...] = (), lock: RunLock | None = None) -> RunSummary:
        """Run (or resume) training to the end; ``lock`` is the run directory's lock when
        the caller already holds it (it is released here either way)."""
        from skillopt.engine.boundary import epoch_boundary
        from skillopt.engine.summary import Stop, finish

        lock = lock or RunLock(self.rundir.root).acquire()
        try:
            if lock.took_over is not None:
                self.reporter.line(f"[yellow]note:[/yellow] took over the lock of {lock.took_over.describe()} (no longer running)")
            run = self.context()
            self.observers.run_started(self.run_info)
            stopped: Stop | None = None
            current: str | None = None  # None until the baseline exists (a skill may be empty)
            try:
                current = self.start(run, fingerprint, config_changes)
                self.reporter.line(reporting.baseline_line(run, self.state, self.ledger, self.baseline_missing))
                stopped = reporting.truncation_stop(run, self.ledger, self.state)
                if stopped is None:
                    current = self.loop(run, current, epoch_boundary)
            except BudgetExceeded as exc:
                stopped = Stop(status=RunStatus.BUDGET_EXHAUSTED, reason=str(exc))
            except SystemicFailure as exc:
                stopped = Stop(status=RunStatus.PROVIDER_OUTAGE, reason=str(exc), role=exc.role)
            except Exception as exc:
                if not is_missing_error(exc):
                    raise
                stopped = Stop(status=RunStatus.PROVIDER_OUTAGE, reason=f"{type(exc).__name__}: {exc}", role=getattr(exc, "role", ""))
            if stopped is not None and current is not None:
                self.state.status = stopped.status
                self.save_state()
            summary = finish(self, run, current, stopped)
            self.observers.run_finished(self.run_info, summary)
            return summary
        finally:
            self.ledger.close()
            lock.release()

    def loop(self, run: RunContext, current: str, epoch_boundary) -> str:
        for ep in range(1, self.cfg.train.num_epochs + 1):
            stop = False
            for plan in self.plans(run, ep):
                if plan.step > run.data.total_steps:
                    stop = True
                    break
                if plan.step <= self.state.last_completed_step:
                    continue
                if self.state.buffer_epoch != ep:  # a new epoch's first step: its buffer starts empty
                    self.state.step_buffer, self.state.buffer_epoch = [], ep
                self.ledger.check()
                self.ledger.scope = f"step {plan.step}"
                current = self.commit_step(run, plan, current, run_step(run, plan, self.current(current)))
            if stop:
                break
            if ep not in self.state.epochs_done:
                self.ledger.scope = f"epoch {ep}"
                current = epoch_boundary(self, run, ep, current)
        return current

    def commit_step(self, run: RunContext, plan: StepPlan, current: str, outcome: StepOutcome) -> str:
        action = outcome.action
        score_before = self.state.current_score
        gated = outcome.gate
        if action.accepted and gated is not None:
            origin = f"step_{plan.step:04d}"
            current = outcome.candidate
            self.set_current(current, gated.candidate.gate_score, origin, self.rundir.skill_version(plan.step))
            if self.state.current_score > self.state.best_score:
                self.set_best(current, self.state.current_score, plan.step, origin)
                action = StepAction.FORCE_ACCEPT if gated.verdict.forced else StepAction.ACCEPT_NEW_BEST
        else:
            self.rundir.write_skill(self.rundir.skill_version(plan.step), current)
        rollouts = outcome.rollout.rollouts
        results = outcome.apply.results if outcome.apply else ()
        patches = outcome.reflect.patches
        self.state.step_buffer.append(make_entry(plan.step, action, rollouts, patches, results, score_before,
                                                 gated.candidate.gate_score if gated else None))
        record = reporting.step_record(self, run, plan, action, outcome)
        write_json(self.rundir.step_dir(plan.step) / "step_record.json", to_data(record))
        reporting.append_history(self.rundir, to_data(record), step=plan.step)
        if outcome.select is not None and outcome.select.lr_decision:
            reporting.append_lr_decision(self.rundir, plan.step, outcome.select.lr_decision)
        self.state.last_completed_step = plan.step
        self.save_state()
        self.observers.step_finished(self.run_info, record)
        self.reporter.line(reporting.step_line(record, run.data.total_steps, outcome))
        return current
