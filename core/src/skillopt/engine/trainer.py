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
from typing import TYPE_CHECKING, Any

from skillopt.calls import Ledger
from skillopt.config.schema import RunConfig
from skillopt.engine import reporting, saved_run, selection, summary as summaries
from skillopt.engine.buffer import make_entry
from skillopt.engine.context import Current, RunContext, RunData, StepPlan
from skillopt.engine.evaluation import Evaluator, ScoreBook
from skillopt.engine.lock import RunLock
from skillopt.engine.lookahead import AheadOfTurn, Lookahead, StopRun, stop_of
from skillopt.engine.observers import Observers, RunInfo
from skillopt.engine.plan import check_train_size, epoch_batches, scheduled_budget, steps_per_epoch
from skillopt.engine.pool import Search
from skillopt.engine.progress import NullReporter
from skillopt.engine.proposals import record_losers
from skillopt.engine.rejected import for_run as rejected_for_run, remember as remember_rejection, start_line as rejected_line
from skillopt.engine.rollouts import RolloutRunner
from skillopt.engine.rundir import GATE_VERDICT, RunDir, write_json
from skillopt.engine.stages.final_eval import final_eval
from skillopt.engine.stages.gate import gate
from skillopt.engine.stages.meta_skill import meta_skill
from skillopt.engine.stages.recheck import recheck
from skillopt.engine.stages.slow_update import comparison_pairs, slow_update
from skillopt.engine.state import TrainState, adopt_best, adopt_current, current_view
from skillopt.engine.step import StepOutcome
from skillopt.engine.subsets import subset
from skillopt.envs import Env
from skillopt.errors import ConfigError
from skillopt.gates import Gate
from skillopt.policies import EditPolicy
from skillopt.records import StepAction, skill_hash
from skillopt.results import ConfigChange, RunStatus, RunSummary
from skillopt.serde import from_data, to_data

if TYPE_CHECKING:
    from skillopt.calls import ModelClient
    from skillopt.engine.buffer import BufferEntry
    from skillopt.engine.stages.records import FinalEvalResult, GateResult
    from skillopt.executors import Executor
    from skillopt.strategies import Strategy


def rollout_deadline(cfg: RunConfig, target: ModelClient) -> float:
    """When the engine gives up on one rollout: the env's own limit plus the time the
    client's retries of one call may need (so a slow call's retry is never cut off and
    scored as a timeout)."""
    from skillopt.calls import RetryPolicy

    settings = getattr(getattr(target, "backend", None), "settings", None)
    call = float(getattr(settings, "timeout_s", None) or cfg.model.timeout_s)
    retries = cfg.model.max_retries
    policy = getattr(target, "retry", None) or RetryPolicy(max_retry_after_s=cfg.model.max_retry_wait_s)
    backoff = sum(policy.longest_wait(i) for i in range(retries))
    return cfg.env.exec_timeout + call * retries + backoff


class Trainer(AheadOfTurn):
    def __init__(
        self, *, cfg: RunConfig, env: Env, target: ModelClient, optimizer: ModelClient, policy: EditPolicy, gate: Gate, out_dir: Path,
        ledger: Ledger | None = None, reporter: NullReporter | None = None, observers: Observers | None = None,
        config_data: dict[str, Any] | None = None, executor: Executor | None = None,
    ) -> None:
        """``executor``: where rollouts run (its owner closes it; None = threads of this process)."""
        self.cfg, self.env, self.policy, self.gate = cfg, env, policy, gate
        self.target, self.optimizer = target, optimizer
        self.rundir = RunDir(out_dir).ensure()
        self.ledger = ledger or getattr(target, "ledger", None) or Ledger()
        self.reporter = reporter or NullReporter()
        self.observers = observers or Observers()
        self.config_data = config_data or {}
        self.runner = RolloutRunner(env, target, workers=cfg.env.workers, timeout_s=cfg.env.exec_timeout,
                                    deadline_s=rollout_deadline(cfg, target), reporter=self.reporter, executor=executor,
                                    config=cfg)
        self.evaluator = Evaluator(self.runner, ScoreBook(self.rundir.scores), seed=cfg.train.seed)
        if hasattr(optimizer, "watch_flight"):  # idle rollout workers serve work run ahead while the optimizer thinks
            optimizer.watch_flight(self.runner.lend)
        self.run_info = RunInfo(out_dir=self.rundir.root, env=env.name, mode="train", config=self.config_data)
        self.state = TrainState()
        from skillopt.registry import get

        #: the kept skills and which one each step branches from (``search.strategy``)
        self.search = Search(get("strategies", cfg.search.strategy).obj(cfg.search), self.rundir, seed=cfg.train.seed,
                             picks_final=selection.active(cfg))
        #: baseline val items that got no answer (left out of its score, retried later)
        self.baseline_missing: dict[str, str] = {}
        #: work started before its turn (see :mod:`skillopt.engine.lookahead`)
        self.ahead = Lookahead()
        self._started = time.monotonic()
        self._prior_wall = 0.0
        #: what the run says about earlier runs' rejections it starts with ('' = nothing)
        self.rejected_line = ""

    @property
    def strategy(self) -> Strategy:
        """The search strategy plugin (``search.strategy``)."""
        return self.search.strategy

    # ------------------------------------------------------------------ setup

    def context(self) -> RunContext:
        train = self.env.tasks("train")
        check_train_size(train, self.cfg.train)
        val = self.env.tasks("val")
        if not val:
            raise ConfigError("the val split is empty; the gate needs validation items")
        val = subset(val, self.cfg.evaluation.sel_env_num, self.cfg.train.seed)
        val, held_out = selection.carve(self.env, val, self.cfg.evaluation, self.cfg.train.seed)
        spe = steps_per_epoch(len(train), self.cfg.train)
        schedule = self.cfg.train.num_epochs * spe
        total = min(schedule, self.cfg.train.max_steps) if self.cfg.train.max_steps else schedule
        data = RunData(train=tuple(train), val=tuple(val), index={t.id: t for t in [*train, *val]},
                       steps_per_epoch=spe, schedule_steps=schedule, total_steps=total, selection=tuple(held_out))
        found = rejected_for_run(self.cfg, self.env, self.target, self.rundir.root, [t.id for t in val],
                                 fresh=not self.rundir.state.exists())
        self.rejected_line = rejected_line(found)
        return RunContext(cfg=self.cfg, env=self.env, target=self.target, optimizer=self.optimizer, policy=self.policy,
                          gate=self.gate, rundir=self.rundir, data=data, runner=self.runner, evaluator=self.evaluator,
                          ledger=self.ledger, reporter=self.reporter, rejected=found.entries, gate_context=found.context,
                          rejected_path=found.path)

    def plans(self, run: RunContext, epoch: int) -> list[StepPlan]:
        o = self.cfg.optimizer
        out = []
        for j, micro in enumerate(epoch_batches(list(run.data.train), self.cfg.train, epoch)):
            step = (epoch - 1) * run.data.steps_per_epoch + j + 1
            scheduled = scheduled_budget(step, run.data.schedule_steps, o)
            cap = self.strategy.edit_budget
            if cap is not None:  # the search's own limit (one edit at a time) beats the schedule
                scheduled = cap if scheduled is None else min(scheduled, cap)
            told = scheduled if scheduled is not None or o.lr_control_mode != "autonomous" else o.learning_rate
            out.append(StepPlan(step=step, epoch=epoch, index=j, micro=tuple(tuple(b) for b in micro), scheduled=scheduled, told=told))
        return out

    def save_state(self) -> None:
        self.state.wall_time_s = self._prior_wall + (time.monotonic() - self._started)
        write_json(self.rundir.state, to_data(self.state))

    def skill_at(self, path: str, expect_hash: str = "") -> str:
        return saved_run.read_skill(self.rundir, path, expect_hash)

    def current(self, skill: str) -> Current:
        return current_view(self.state, skill)

    def set_current(self, skill: str, score: float, origin: str, path: Path) -> None:
        adopt_current(self.rundir, self.state, skill, score, origin, path)

    def set_best(self, skill: str, score: float, step: int, origin: str) -> None:
        adopt_best(self.rundir, self.state, skill, score, step, origin)

    # ------------------------------------------------------------------ start / resume

    def start(self, run: RunContext, fingerprint: str, changes: tuple[str, ...]) -> str:
        self.ledger.attach(self.rundir.usage)
        saved = saved_run.load_state(self.rundir)
        if saved is not None:
            self.state = saved
            self.state.total_steps = run.data.total_steps  # train.max_steps may differ on a resume
            current = saved_run.check_saved_skills(self.rundir, saved)
            self._prior_wall = self.state.wall_time_s
            self.state.config_fingerprint, self.state.status = fingerprint, RunStatus.RUNNING
            if changes:
                change = ConfigChange(after_step=self.state.last_completed_step, changes=changes, at=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
                self.state.config_changes.append(change)
                reporting.append_history(self.rundir, {"kind": "config_change", **to_data(change)})
                self.save_state()
            return current
        self.state.total_steps = run.data.total_steps
        initial = self.env.initial_skill()
        self.state.config_fingerprint, self.state.initial_hash = fingerprint, skill_hash(initial)
        if not self.start_ahead(run, initial):
            self.baseline(run, initial)
        return initial

    def baseline(self, run: RunContext, initial: str, *, lane: bool = False) -> None:
        """The initial skill's val score: the run's current and best skill; ``lane``: run
        beside step 1 (``run`` books in its own scope; the trainer's scope is step 1's)."""
        v0 = self.rundir.skill_version(0)
        if not lane:
            self.ledger.scope = "baseline"
            self.reporter.phase("baseline")
        baseline = run.evaluate_val(initial, self.rundir.root / "gate_baseline", "val: initial skill")
        self.baseline_missing = dict(baseline.missing)
        score = self.gate.score(baseline)
        self.set_current(initial, score, "initial_skill", v0)
        self.state.baseline_score = score
        self.set_best(initial, score, 0, "initial_skill")
        self.search.begin(run, self.state, initial, v0)
        self.save_state()

    # ------------------------------------------------------------------ loop

    def train(self, fingerprint: str = "", *, config_changes: tuple[str, ...] = (), lock: RunLock | None = None) -> RunSummary:
        """Run (or resume) training to the end; ``lock`` is the run directory's lock when
        the caller already holds it (it is released here either way)."""
        from skillopt.engine.summary import Stop

        lock = lock or RunLock(self.rundir.root).acquire()
        try:
            if lock.took_over is not None:
                self.reporter.line(f"[yellow]note:[/yellow] took over the lock of {lock.took_over.describe()} (no longer running)")
            run = self.context()
            if self.rejected_line:
                self.reporter.line(self.rejected_line)
            self.announce_start()
            stopped: Stop | None = None
            current: str | None = None  # None until the baseline exists (a skill may be empty)
            try:
                current = self.start(run, fingerprint, config_changes)
                if self.baseline_pending is None:
                    self.reporter.line(reporting.baseline_line(run, self.state, self.ledger, self.baseline_missing))
                    stopped = reporting.truncation_stop(run, self.ledger, self.state)
                if stopped is None:
                    current = self.loop(run, current)
            except Exception as exc:  # noqa: BLE001 - a stop (anything else is re-raised)
                stopped = stop_of(exc)
                current, stopped = self.settle_for_stop(run, current, stopped)
            if stopped is not None and current is not None:
                self.state.status = stopped.status
                self.save_state()
            summary = self.finish(run, current, stopped)
            self.observers.run_finished(self.run_info, summary)
            return summary
        finally:
            self.ahead.join_all()  # nothing runs beside once the run is over
            self.ledger.close()
            lock.release()

    def settle_for_stop(self, run: RunContext, current: str | None,
                        stopped: summaries.Stop | None) -> tuple[str | None, summaries.Stop | None]:
        """Before a run stops, the work that ran ahead of the chain is settled in the
        chain's order; a failure there came first in the chain, so it is the stop (the
        baseline failing leaves no current skill, as when it ran first)."""
        if self.baseline_pending is not None:
            try:
                self.settle_baseline(run)
            except Exception as exc:  # noqa: BLE001 - a stop (anything else is re-raised)
                return (current if isinstance(exc, StopRun) else None), stop_of(exc)
        try:
            self.settle_deferred(run)
        except Exception as exc:  # noqa: BLE001 - the same
            return current, stop_of(exc)
        return current, stopped

    def announce_start(self) -> None:
        """``run_started``; on a resume, then ``step_finished`` again for every step
        finished before the interruption, so an observer in this new process (a tracker
        that lost its connection) sees the whole run. Observers key on ``step.step``."""
        import attrs

        from skillopt.records import StepRecord

        try:
            entries = reporting.step_entries(reporting.load_history(self.rundir))
            prior = [from_data(entry, StepRecord) for entry in entries]
        except Exception:  # noqa: BLE001 - a damaged history is the trainer's to report, not the observers'
            prior = []
        if prior:
            self.run_info = attrs.evolve(self.run_info, resumed=True, resumed_after_step=max(r.step for r in prior))
        self.observers.run_started(self.run_info)
        for record in prior:
            self.observers.step_finished(self.run_info, record)

    def loop(self, run: RunContext, current: str) -> str:
        for ep in range(1, self.cfg.train.num_epochs + 1):
            stop = False
            plans = self.plans(run, ep)
            for position, plan in enumerate(plans):
                if plan.step > run.data.total_steps:
                    stop = True
                    break
                if plan.step <= self.state.last_completed_step:
                    continue
                if self.state.buffer_epoch != ep:  # a new epoch's first step: its buffer starts empty
                    self.state.step_buffer, self.state.buffer_epoch = [], ep
                self.ledger.check()
                self.ledger.scope = f"step {plan.step}"
                parent = self.search.parent(self.state, plan, current)
                following = plans[position + 1] if position + 1 < len(plans) else None
                if following is not None and following.step > run.data.total_steps:
                    following = None
                started, outcome = self.step_ahead(run, plan, parent, following)
                current = self.commit_ahead(run, plan, current, started, outcome, parent)
            self.settle_deferred(run)  # before the epoch's end is recorded
            if stop:
                break
            if ep not in self.state.epochs_done:
                self.ledger.scope = f"epoch {ep}"
                current = self.epoch_boundary(run, ep, current)
        return current

    def commit_step(self, run: RunContext, plan: StepPlan, current: str, outcome: StepOutcome, parent: str | None = None) -> str:
        """Record a finished step; ``current`` is the run's current skill, ``parent`` the
        skill the step branched from (the current one unless a pool strategy chose)."""
        action = outcome.action
        score_before = self.state.current_score
        parent = current if parent is None else parent
        parent_hash = skill_hash(parent)
        gated = outcome.gate
        if action.accepted and gated is not None:
            origin = f"step_{plan.step:04d}"
            path = self.rundir.skill_version(plan.step)
            current = self.search.keep(run, self.state, outcome.candidate, gated.candidate.gate_score, origin, path,
                                       step=plan.step, parent_hash=parent_hash)
            if self.state.current_score > self.state.best_score:
                self.set_best(current, self.state.current_score, plan.step, self.state.current_origin)
                action = StepAction.FORCE_ACCEPT if gated.verdict.forced else StepAction.ACCEPT_NEW_BEST
        else:
            self.rundir.write_skill(self.rundir.skill_version(plan.step), current)
        self.state.step_buffer.append(self.buffer_entry(plan, action, outcome, score_before))
        record = reporting.step_record(run, plan, action, outcome, state=self.state, skill_len=len(current),
                                       usage=self.ledger.scope_totals(f"step {plan.step}"))
        if gated is not None:  # the verdict alone, where the first run layout documented it (docs/run-layout.md)
            write_json(self.rundir.step_dir(plan.step) / GATE_VERDICT, to_data(gated.verdict))
        write_json(self.rundir.step_dir(plan.step) / "step_record.json", to_data(record))
        reporting.append_history(self.rundir, to_data(record), step=plan.step)
        if outcome.select is not None and outcome.select.lr_decision:
            reporting.append_lr_decision(self.rundir, plan.step, outcome.select.lr_decision)
        remember_rejection(run, plan.step, parent_hash, outcome)
        record_losers(run, plan.step, parent_hash, outcome.race)
        self.state.last_completed_step = plan.step
        self.save_state()
        self.observers.step_finished(self.run_info, record)
        self.reporter.line(reporting.step_line(record, run.data.total_steps, outcome))
        return current

    def new_best(self, outcome: StepOutcome) -> bool:
        """An accepted step's candidate beats the best (one current skill: ``hill``)."""
        assert outcome.gate is not None  # called for accepted steps only, which all have a gate result
        return outcome.gate.candidate.gate_score > self.state.best_score

    def accepted_action(self, outcome: StepOutcome) -> StepAction:
        """What an accepted step is recorded as (one current skill: ``hill``)."""
        if self.new_best(outcome):
            assert outcome.gate is not None  # new_best: an accepted step, gated
            return StepAction.FORCE_ACCEPT if outcome.gate.verdict.forced else StepAction.ACCEPT_NEW_BEST
        return outcome.action

    def buffer_entry(self, plan: StepPlan, action: StepAction, outcome: StepOutcome, score_before: float) -> BufferEntry:
        gated = outcome.gate
        return make_entry(plan.step, action, outcome.rollout.rollouts, outcome.reflect.patches,
                          outcome.apply.results if outcome.apply else (), score_before,
                          gated.candidate.gate_score if gated else None)

    # ------------------------------------------------------------------ epoch boundary

    def epoch_boundary(self, run: RunContext, ep: int, current: str) -> str:
        """``slow_update`` (gated, or force-accepted with its score re-measured) and
        ``meta_skill``, both from the previous epoch's skill against this one's."""
        o, st = self.cfg.optimizer, self.state
        prev_path = st.epoch_end_skills.get(str(ep - 1))
        if ep >= 2 and prev_path and (o.use_slow_update or o.use_meta_skill):
            run.reporter.phase(f"epoch {ep}: slow update / meta skill")
            prev = self.skill_at(prev_path)
            before = self.current(current)  # both updates see the skill as the epoch ended
            pairs = comparison_pairs(run, ep, prev, current)
            if o.use_slow_update:
                proposal = slow_update(run, ep, before, prev, pairs)
                if proposal.status == "ok" and proposal.candidate != current:
                    current = self.adopt_slow_update(run, ep, before, current, proposal.candidate)
            if o.use_meta_skill:
                result = meta_skill(run, ep, before, prev, pairs)
                if result.status == "ok" and result.content:
                    st.meta_skill = result.content
        current = self.search.epoch_end(run, self.state, ep, current)
        path = self.rundir.root / "skills" / f"epoch_{ep:02d}_end.md"
        self.rundir.write_skill(path, current)
        st.epoch_end_skills[str(ep)] = str(path.relative_to(self.rundir.root))
        st.epochs_done.append(ep)
        self.save_state()
        return current

    def adopt_slow_update(self, run: RunContext, ep: int, before: Current, current: str, candidate: str) -> str:
        gated = self.cfg.optimizer.slow_update_gate_with_selection and self.cfg.evaluation.use_gate
        reason = "" if gated else (
            "slow update force-accepted (optimizer.slow_update_gate_with_selection=false); its val score was re-measured")
        result = gate(run, self.rundir.epoch_dir("slow_update", ep) / "gate", before, candidate, label="val: slow update",
                      force_reason=reason)
        write_json(self.rundir.epoch_dir("slow_update", ep) / GATE_VERDICT, to_data(result.verdict))
        run.reporter.line(f"epoch {ep} slow update: {result.verdict.action.value} "
                          f"(val {result.candidate.gate_score:.3f} vs {result.current.gate_score:.3f})")
        if not result.verdict.accepted:
            return current
        origin = f"slow_update_epoch_{ep:02d}"
        path = self.rundir.root / "skills" / f"{origin}.md"  # a pool keeps it as a member like any gated child
        candidate = self.search.keep(run, self.state, candidate, result.candidate.gate_score, origin, path,
                                     step=self.state.last_completed_step, parent_hash=before.skill_hash)
        if self.state.current_score > self.state.best_score:
            self.set_best(candidate, self.state.current_score, self.state.last_completed_step, origin)
        return candidate

    # ------------------------------------------------------------------ end

    def pick_final(self, run: RunContext) -> selection.FinalPickResult:
        """The final skill among the kept ones, by ``search.select`` (on the selection
        split when there is one); it becomes the best skill."""
        self.ledger.scope = "selection"
        where = f"the selection split ({len(run.data.selection)} items)" if run.data.selection else "val"
        run.reporter.phase(f"final pick on {where}")
        picked = selection.pick_final(run, self.search.finalists(self.state), self.search.skill_of)
        chosen = picked.picked
        if chosen.skill_hash != self.state.best_hash:
            skill = saved_run.read_skill(self.rundir, chosen.path, chosen.skill_hash)
            self.set_best(skill, chosen.val_score, chosen.step, chosen.origin)
            self.save_state()
        return picked

    def final_recheck(self, run: RunContext) -> GateResult | None:
        """``recheck`` (``evaluation.final_recheck``): the best skill against the initial one
        on fresh val samples; unconfirmed, the initial skill becomes the best again."""
        st = self.state
        if st.best_hash == st.initial_hash:
            return None
        self.ledger.scope = "recheck"
        run.reporter.phase("final recheck on fresh val samples")
        initial = saved_run.initial_skill(self.rundir, st)
        result = recheck(run, initial, saved_run.best_skill(self.rundir, st))
        verdict = result.verdict
        run.reporter.line(f"final recheck on fresh val samples: {verdict.action.value} "
                          f"(best {result.candidate.gate_score:.3f} vs initial {result.current.gate_score:.3f})")
        if not verdict.accepted:
            assert st.baseline_score is not None  # a best other than the initial skill: the baseline was scored
            self.set_best(initial, st.baseline_score, 0, "initial_skill")
            self.save_state()
        return result

    def final_stages(self, run: RunContext, current: str,
                     ) -> tuple[selection.FinalPickResult | None, GateResult | None, FinalEvalResult | None]:
        """The final pick, the recheck and ``final_eval``, each when configured."""
        st = self.state
        picked = self.pick_final(run) if selection.active(self.cfg) else None
        rechecked = self.final_recheck(run) if self.cfg.evaluation.final_recheck else None
        final = None
        if self.cfg.evaluation.eval_test:
            self.ledger.scope = "final"
            run.reporter.phase("final evaluation")
            self.ahead.join("final_eval")  # started once the last step was decided: found done (memoised) below
            best = saved_run.best_skill(self.rundir, st)
            initial = saved_run.initial_skill(self.rundir, st)
            confirmed = rechecked is None or rechecked.verdict.accepted
            final = final_eval(run, self.current(current), initial=initial, best=best, best_score=st.best_score,
                               promotion=picked is None and confirmed)
            if final.promote_final:
                self.set_best(current, final.final_val_score, st.last_completed_step, "final_promoted")
        return picked, rechecked, final

    def finish(self, run: RunContext, current: str | None, stopped: summaries.Stop | None) -> RunSummary:
        """The final stages (when the run got to its end), then the status, ``summary.json``
        and the final line."""

        st = self.state
        final = picked = rechecked = None
        if stopped is None and current is not None:
            try:
                picked, rechecked, final = self.final_stages(run, current)
            except Exception as exc:  # noqa: BLE001 - a stop in the final stages (a budget, answers pending); else re-raised
                stopped = stop_of(exc)
        history = reporting.step_entries(reporting.load_history(self.rundir))
        totals = self.ledger.totals()
        ending = summaries.classify(self.cfg, st, totals, stopped, history)
        st.status = ending[0]
        if st.current_skill_path:  # a run stopped before its baseline has no state to keep
            self.save_state()
        summary = summaries.build_summary(
            cfg=self.cfg, env_name=self.env.name, root=self.rundir.root, best_skill=self.rundir.best_skill, gate=self.gate,
            data=run.data, state=st, history=history, final=final, totals=totals, ending=ending, config_data=self.config_data,
            picked=picked, recheck=rechecked,
        )
        write_json(self.rundir.summary, to_data(summary))
        self.reporter.line(summaries.final_line(summary))
        return summary
