"""One training step: ``rollout → reflect → merge → select → apply → gate``.

Each stage is a function of the frozen run context, the step's plan and the current
skill, and returns a record; each saves its own completed result (see
:mod:`skillopt.engine.resumable`), so a step killed anywhere re-runs only what had not
finished. The step decides nothing about the run state: it returns a
:class:`StepOutcome` and the trainer commits it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from skillopt.engine.context import Current, RunContext, StepPlan
from skillopt.engine.stages.apply import apply
from skillopt.engine.stages.attribution import attribute
from skillopt.engine.stages.gate import gate
from skillopt.engine.stages.merge import merge
from skillopt.engine.stages.records import (
    ApplyResult,
    Attribution,
    GateResult,
    MergeResult,
    ReflectResult,
    RolloutResult,
    SelectResult,
)
from skillopt.engine.stages.reflect import reflect
from skillopt.engine.stages.rollout import rollout
from skillopt.engine.stages.select import select
from skillopt.records import GateAction, StepAction

if TYPE_CHECKING:
    from skillopt.engine.stages.race import RaceResult

STAGES = ("rollout", "reflect", "merge", "select", "apply", "gate")

_GATE_ACTIONS = {
    GateAction.ACCEPT: StepAction.ACCEPT,
    GateAction.FORCE_ACCEPT: StepAction.FORCE_ACCEPT,
    GateAction.REJECT: StepAction.REJECT,
}


@attrs.frozen(kw_only=True)
class StepOutcome:
    """Everything a step produced; ``candidate`` is the current skill when skipped."""

    action: StepAction
    candidate: str
    rollout: RolloutResult
    reflect: ReflectResult
    merge: MergeResult | None = None
    select: SelectResult | None = None
    apply: ApplyResult | None = None
    gate: GateResult | None = None
    #: which applied edit changed which val item (accepted steps of edit policies)
    attribution: Attribution | None = None
    timing: dict[str, float] = attrs.field(factory=dict)
    #: proposals the step made (``search.proposals``; 1 = the paper's single candidate)
    proposals: int = 1
    #: the race of its distinct candidates (several proposals only; one entrant = no race)
    race: RaceResult | None = None

    @property
    def notes(self) -> tuple[str, ...]:
        parts = [r.notes for r in (self.merge, self.select, self.apply) if r is not None]
        return tuple(dict.fromkeys(n for group in parts for n in group))


def run_step(run: RunContext, plan: StepPlan, current: Current, *, before_gate: Callable[[], Current] | None = None,
             attribution: bool = True, before_reflect: Callable[[], None] | None = None,
             on_settled: Callable[[str], None] | None = None) -> StepOutcome:
    """``before_gate`` returns the current skill as the gate must see it (the trainer
    settles a baseline still running there); ``before_reflect`` runs before the optimizer
    is paid (the trainer may settle that baseline first, which can stop the run);
    ``attribution=False`` leaves an accepted step's attribution to the caller (which runs
    it beside the next step); ``on_settled(skill)`` is told the skill the step ends with as
    soon as the gate's decision is settled, while its last val answers are still out (the
    trainer starts the next step's rollouts under it)."""
    timing: dict[str, float] = {}
    clock = time.monotonic()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.monotonic()
        timing[f"{name}_s"] = round(now - clock, 3)
        clock = now

    say = run.reporter.phase
    head = f"epoch {plan.epoch}/{run.cfg.train.num_epochs} step {plan.step}/{run.data.total_steps}"
    say(f"{head}: rollout")
    rolled = rollout(run, plan, current)
    lap("rollout")
    if before_reflect is not None:
        before_reflect()
    say(f"{head}: reflect")
    reflected = reflect(run, plan, current, rolled)
    lap("reflect")
    base: dict[str, Any] = {"rollout": rolled, "reflect": reflected, "timing": timing}
    if not reflected.patches:
        answered = reflected.minibatches - len(reflected.missing)
        action = StepAction.SKIP_REFLECT_FAILED if answered and len(reflected.failures) == answered else StepAction.SKIP_NO_PATCHES
        return StepOutcome(action=action, candidate=current.skill, **base)
    if run.cfg.search.proposals > 1:  # several candidates, raced on val (engine/proposals.py)
        from skillopt.engine.proposals import propose

        say(f"{head}: {run.cfg.search.proposals} proposals")
        made = propose(run, plan, current, reflected, rolled.usable)
        lap("proposals")
        base.update(merge=made.merge, select=made.select, apply=made.apply, race=made.race, proposals=made.proposals)
        if made.skip is not None:
            return StepOutcome(action=made.skip, candidate=current.skill, **base)
        applied = made.apply
        assert applied is not None
    else:
        say(f"{head}: merge")
        merged = merge(run, plan, current, reflected)
        lap("merge")
        if merged.empty:
            return StepOutcome(action=StepAction.SKIP_NO_PATCHES, candidate=current.skill, merge=merged, **base)
        say(f"{head}: select")
        selected = select(run, plan, current, merged, rolled.usable)
        lap("select")
        say(f"{head}: apply")
        applied = apply(run, plan, current, merged, selected, rolled.usable)
        lap("apply")
        base.update(merge=merged, select=selected, apply=applied)
    if applied.candidate == current.skill:
        action = StepAction.SKIP_NO_CHANGE if run.policy.edits_skill else StepAction.SKIP_NO_REWRITE
        return StepOutcome(action=action, candidate=current.skill, **base)
    if before_gate is not None:
        current = before_gate()
    say(f"{head}: gate")
    forced = "" if run.cfg.evaluation.use_gate else "evaluation.use_gate=false: accepted without comparison (validation still measured)"
    gated_from = current

    def settled(accepted: bool) -> None:
        if on_settled is not None:
            on_settled(applied.candidate if accepted else gated_from.skill)

    decided = gate(run, run.step_dir(plan) / "gate", current, applied.candidate, force_reason=forced,
                   on_settled=settled if on_settled is not None else None)
    lap("gate")
    attributed = None
    if decided.verdict.accepted and attribution:
        say(f"{head}: attribution")
        attributed = attribute(run, plan, current, applied.candidate, applied)
        lap("attribution")
    return StepOutcome(action=_GATE_ACTIONS[decided.verdict.action], candidate=applied.candidate, gate=decided,
                       attribution=attributed, **base)
