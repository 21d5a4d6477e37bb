"""Work started as soon as its inputs exist, not when the previous phase ends.

The trainer's order is a chain: baseline, then each step's ``rollout → reflect → merge →
select → apply → gate → attribution``, then the final evaluation. Several links do not
depend on the one before: the baseline and the initial skill's test need only the
initial skill (step 1 needs the baseline's score only at its gate); an accepted step's
attribution is reporting that the next step does not read; once the last step is
decided, the final evaluation's tests need nothing else (unless a final pick,
``search.select`` or a selection split, may still change the best skill).
:class:`Lookahead` starts such work on a background thread, in a *lane* (:meth:`RunContext.in_lane`: its calls are
booked under the scope they belong to, and its rollouts use the workers the critical
path leaves idle while the optimizer thinks: :mod:`skillopt.engine.slots`), and the
trainer *joins* it where the chain would have done it. The chain itself is unchanged:
it then does the same work in its turn, which costs nothing because every stage is
memoised (rollouts by folder and skill, stage results by key) and the rollout runner
never runs two batches in one folder at once. So a run's decisions, skills, scores and
per-step usage are the same with and without look-ahead (``engine.lookahead``).

A background failure is dropped: the chain does the work again in its turn and meets
the failure there, where it is handled as always. Look-ahead is off under a hard
budget (the order of spending decides where a budget stops a run) and for pool
strategies.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from skillopt.engine import reporting, saved_run, selection
from skillopt.engine.buffer import render_buffer
from skillopt.engine.context import Current, RunContext, StepPlan
from skillopt.engine.slots import Priority
from skillopt.engine.stages.attribution import attribute
from skillopt.engine.stages.final_eval import final_eval, initial_test
from skillopt.engine.stages.rollout import rollout
from skillopt.engine.step import run_step
from skillopt.records import skill_hash

if TYPE_CHECKING:
    from skillopt.calls import Ledger
    from skillopt.config.schema import RunConfig
    from skillopt.engine.buffer import BufferEntry
    from skillopt.engine.progress import NullReporter
    from skillopt.engine.rundir import RunDir
    from skillopt.engine.stages.records import Attribution
    from skillopt.engine.state import TrainState
    from skillopt.engine.step import StepOutcome
    from skillopt.engine.summary import Stop
    from skillopt.records import StepAction
    from skillopt.strategies import Strategy


class Lookahead:
    """Named background tasks, each in its own lane priority (1, 2, … by start order:
    earlier work is needed earlier), raised to the critical path's when it is joined."""

    def __init__(self) -> None:
        self._tasks: dict[str, tuple[threading.Thread, dict[str, Any], Priority]] = {}
        self._next = 1
        self._lock = threading.Lock()

    def start(self, name: str, work: Callable[[Priority], Any]) -> None:
        """Run ``work(priority)`` in the background (a name already running is left alone)."""
        with self._lock:
            if name in self._tasks:
                return
            priority, self._next = Priority(self._next), self._next + 1
            box: dict[str, Any] = {}

            def run() -> None:
                started = time.monotonic()
                try:
                    box["value"] = work(priority)
                except BaseException as exc:  # noqa: BLE001 - the chain redoes this work and meets the error itself
                    box["error"] = exc
                box["seconds"] = time.monotonic() - started

            thread = threading.Thread(target=run, name=f"lookahead-{name}", daemon=True)
            self._tasks[name] = (thread, box, priority)
        thread.start()

    def running(self, name: str) -> bool:
        with self._lock:
            return name in self._tasks

    def join(self, name: str) -> Any:
        """Wait for ``name``; its result, or None when it failed or was never started."""
        with self._lock:
            task = self._tasks.pop(name, None)
        if task is None:
            return None
        thread, box, priority = task
        priority.urgent()  # waited for: on the critical path now
        thread.join()
        return box.get("value")

    def urgent_all(self) -> None:
        """Everything running is needed now (the run's last step is decided)."""
        with self._lock:
            for _, _, priority in self._tasks.values():
                priority.urgent()

    def join_all(self) -> None:
        with self._lock:
            names = list(self._tasks)
        for name in names:
            self.join(name)


class StopRun(Exception):
    """A stop found while settling work that ran ahead (the baseline's truncation check)."""

    def __init__(self, stop: Stop) -> None:
        super().__init__(stop.reason)
        self.stop = stop


def stop_of(exc: BaseException) -> Stop:
    """The :class:`~skillopt.engine.summary.Stop` an exception means; re-raised when it is none."""
    from skillopt.engine.rollouts import AnswersPending, SystemicFailure, is_missing_error
    from skillopt.engine.summary import Stop
    from skillopt.errors import AwaitingAnswer, BudgetExceeded
    from skillopt.results import RunStatus

    if isinstance(exc, StopRun):
        return exc.stop
    if isinstance(exc, BudgetExceeded):
        return Stop(status=RunStatus.BUDGET_EXHAUSTED, reason=str(exc))
    if isinstance(exc, (AnswersPending, AwaitingAnswer)):
        return Stop(status=RunStatus.AWAITING_ANSWERS, reason=str(exc))
    if isinstance(exc, SystemicFailure):
        return Stop(status=RunStatus.PROVIDER_OUTAGE, reason=str(exc), role=exc.role)
    if is_missing_error(exc):
        return Stop(status=RunStatus.PROVIDER_OUTAGE, reason=f"{type(exc).__name__}: {exc}", role=getattr(exc, "role", ""))
    raise exc


@attrs.frozen(kw_only=True)
class Deferred:
    """An accepted step whose commit waits for its attribution, running beside the next step."""

    plan: StepPlan
    #: the run's current skill before the step (the one ``commit_step`` is given)
    before: str
    #: the skill the step started from, as the step saw it
    current: Current
    outcome: Any
    #: the current skill as the next step sees it once this one is committed
    projected: Current


class AheadOfTurn:
    """The trainer's look-ahead (a mixin of :class:`~skillopt.engine.trainer.Trainer`)."""

    ahead: Lookahead
    #: the initial skill while its baseline evaluation runs ahead (None: settled or never)
    baseline_pending: str | None = None
    deferred: Deferred | None = None

    if TYPE_CHECKING:  # what the mixin uses of :class:`~skillopt.engine.trainer.Trainer` (defined there)
        cfg: RunConfig
        state: TrainState
        ledger: Ledger
        reporter: NullReporter
        rundir: RunDir
        baseline_missing: dict[str, str]

        @property
        def strategy(self) -> Strategy: ...
        def baseline(self, run: RunContext, initial: str, *, lane: bool = False) -> None: ...
        def current(self, skill: str) -> Current: ...
        def commit_step(self, run: RunContext, plan: StepPlan, current: str, outcome: StepOutcome,
                        parent: str | None = None) -> str: ...
        def new_best(self, outcome: StepOutcome) -> bool: ...
        def accepted_action(self, outcome: StepOutcome) -> StepAction: ...
        def buffer_entry(self, plan: StepPlan, action: StepAction, outcome: StepOutcome, score_before: float) -> BufferEntry: ...

    def looking_ahead(self) -> bool:
        b = self.cfg.budget
        return (self.cfg.engine.lookahead and self.strategy.single
                and b.max_calls is None and b.max_cost_usd is None and b.max_tokens is None)

    def start_ahead(self, run: RunContext, initial: str) -> bool:
        """On a fresh run: the baseline and the initial skill's test, beside step 1 (the
        baseline is settled before its gate)."""
        if not self.looking_ahead() or run.data.total_steps < 1:
            return False
        # the baseline's state is saved as soon as it is scored (the step's stages do not touch the state)
        self.ahead.start("baseline", lambda p: self.baseline(run.in_lane("baseline", p), initial, lane=True))
        if self.cfg.evaluation.eval_test:
            self.ahead.start("initial test", lambda p: initial_test(run.in_lane("final", p), initial))
        self.baseline_pending = initial
        return True

    def settle_baseline(self, run: RunContext) -> None:
        """The baseline's score and state, as :meth:`start` would have set them (redone
        here when it failed beside step 1: a failure then stops the run as it always did)."""
        initial, self.baseline_pending = self.baseline_pending, None
        if initial is None:
            return
        self.ahead.join("baseline")
        if self.state.baseline_score is None:
            self.baseline(run.in_lane("baseline"), initial, lane=True)
        target = self.ledger.scope_totals("baseline").role("target")
        self.reporter.line(reporting.baseline_line(run, self.state, self.ledger, self.baseline_missing, target=target))
        stop = reporting.truncation_stop(run, self.ledger, self.state, target=target)
        if stop is not None:
            raise StopRun(stop)

    def step_ahead(self, run: RunContext, plan: StepPlan, parent: str, following: StepPlan | None = None) -> tuple[Current, StepOutcome]:
        """Run one step (the baseline settled before its gate, attribution left to
        :meth:`commit_ahead`); returns the Current it started from and its outcome.
        ``following``: the next step of the same epoch, whose rollouts start as soon as
        this step's gate decision is settled (:meth:`rollout_ahead`)."""
        self.ahead.join(f"rollout {plan.step}")  # started by the previous step's gate: the rollout stage finds it done
        current = self.deferred.projected if self.deferred is not None else self.current(parent)
        before_gate = before_reflect = None
        if self.baseline_pending is not None:
            def before_gate() -> Current:
                self.settle_baseline(run)
                return self.current(parent)

            def before_reflect() -> None:
                # every train reply cut at its cap: the baseline may stop the run, so it is
                # settled before the optimizer is paid for a step that would be thrown away
                rolled = self.ledger.scope_totals(f"step {plan.step}").role("target")
                if rolled.calls and rolled.truncated == rolled.calls:
                    self.settle_baseline(run)
        on_settled = functools.partial(self.rollout_ahead, run, following) if following is not None and self.looking_ahead() else None
        outcome = run_step(run, plan, current, before_gate=before_gate, attribution=not self.looking_ahead(),
                           before_reflect=before_reflect, on_settled=on_settled)
        return current, outcome

    def rollout_ahead(self, run: RunContext, plan: StepPlan, skill: str) -> None:
        """Step ``plan``'s train rollouts under ``skill``, the skill the previous step's
        gate has settled on while its last val answers are still out. They are the
        critical path's work (the next thing the chain needs), so they take worker slots
        as the gate's answers free them; the chain's rollout stage then finds them done
        (memoised by folder and skill: a different skill would be rolled out afresh)."""

        def work(priority: Priority) -> None:
            priority.urgent()
            rollout(run.in_lane(f"step {plan.step}", priority), plan, Current(skill=skill, skill_hash=skill_hash(skill), score=0.0))

        self.ahead.start(f"rollout {plan.step}", work)

    def commit_ahead(self, run: RunContext, plan: StepPlan, before: str, current: Current, outcome: StepOutcome,
                     parent: str) -> str:
        """Commit the step now, or, when it was accepted and has an attribution to run,
        start that beside the next step and commit it when the next step is decided."""
        self.settle_baseline(run)
        self.settle_deferred(run)
        gated = outcome.gate
        if not (self.looking_ahead() and outcome.action.accepted and gated is not None and attribution_due(run, outcome)):
            return self.commit_step(run, plan, before, outcome, parent=parent)
        scope = f"step {plan.step}"
        applied = outcome.apply
        assert applied is not None  # attribution_due: the step applied edits

        def attribution(priority: Priority) -> tuple[Attribution | None, float]:
            started = time.monotonic()
            found = attribute(run.in_lane(scope, priority), plan, current, outcome.candidate, applied)
            return found, round(time.monotonic() - started, 3)

        self.ahead.start(f"attribution {plan.step}", attribution)
        action = self.accepted_action(outcome)
        entry = self.buffer_entry(plan, action, outcome, self.state.current_score)
        projected = Current(skill=outcome.candidate, skill_hash=skill_hash(outcome.candidate), score=gated.candidate.gate_score,
                            step_history=render_buffer([*self.state.step_buffer, entry]), meta_skill=self.state.meta_skill)
        self.deferred = Deferred(plan=plan, before=before, current=current, outcome=outcome, projected=projected)
        if plan.step == run.data.total_steps and self.cfg.evaluation.eval_test and not selection.active(self.cfg) and not (
                plan.epoch >= 2 and self.cfg.optimizer.use_slow_update) and not self.cfg.evaluation.final_recheck:
            # nothing changes the skills before the end (a final pick or a recheck may)
            best, best_score = ((outcome.candidate, gated.candidate.gate_score) if self.new_best(outcome)
                                else (saved_run.best_skill(self.rundir, self.state), self.state.best_score))
            initial = saved_run.initial_skill(self.rundir, self.state)
            self.ahead.start("final_eval", lambda p: final_eval(run.in_lane("final", p), projected, initial=initial, best=best,
                                                                best_score=best_score))
        return outcome.candidate

    def settle_deferred(self, run: RunContext) -> None:
        """Commit the deferred step with its attribution (done beside, or redone here)."""
        deferred, self.deferred = self.deferred, None
        if deferred is None:
            return
        plan, outcome = deferred.plan, deferred.outcome
        if plan.step == run.data.total_steps:
            self.ahead.urgent_all()  # the last step: whatever runs beside is needed now (its final evaluation)
        found = self.ahead.join(f"attribution {plan.step}")
        stop = None
        if found is None:  # failed beside: redo it here
            started = time.monotonic()
            try:
                found = (attribute(run.in_lane(f"step {plan.step}"), plan, deferred.current, outcome.candidate, outcome.apply),
                         round(time.monotonic() - started, 3))
            except Exception as exc:  # noqa: BLE001 - a stop (anything else is re-raised by stop_of)
                # attribution only reports: the gate validated the step, so it is kept, then the run stops
                stop, found = stop_of(exc), (None, round(time.monotonic() - started, 3))
        attributed, seconds = found
        outcome = attrs.evolve(outcome, attribution=attributed, timing={**outcome.timing, "attribution_s": seconds})
        self.commit_step(run, plan, deferred.before, outcome, parent=deferred.before)
        if stop is not None:
            raise StopRun(stop)


def attribution_due(run: RunContext, outcome: StepOutcome) -> bool:
    """Whether ``attribute`` would run for this accepted step (else there is nothing to defer)."""
    applied = [res for res in (outcome.apply.results if outcome.apply else ()) if res.status == "applied"]
    return run.cfg.evaluation.attribution_rollouts > 0 and bool(applied) and run.policy.edits_skill
