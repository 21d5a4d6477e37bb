"""Several proposals per step (``search.proposals`` > 1): ``merge → select → apply`` once
per proposal, then a race.

The sampler plugin (``search.sampler``, see :class:`skillopt.strategies.Sampler`) says
how the proposals differ: which analyst patches each merge gets, and which subsets of a
merge's ranked edits its proposals apply. Each merge, ranking and application is the
usual stage function, resumable in a folder of its own (``steps/step_NNNN/proposals/``:
``gN/merge``, ``gN/select`` per merge, ``pN/apply`` per proposal). The distinct
candidates then race on the gate's val items (:mod:`skillopt.engine.stages.race`) and
the winner goes to the gate like a single proposal would; the losers' edits go to the
rejected-edit ledger with the effect the race measured.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from skillopt.engine.context import Current, RunContext, StepPlan
from skillopt.engine.stages.apply import apply
from skillopt.engine.stages.merge import merge
from skillopt.engine.stages.race import RaceResult, race
from skillopt.engine.stages.records import ApplyResult, MergeResult, ReflectResult, SelectResult
from skillopt.engine.stages.select import select
from skillopt.records import Rollout, StepAction

if TYPE_CHECKING:
    from skillopt.strategies import Sampler

FOLDER = "proposals"


@attrs.frozen(kw_only=True)
class Proposal:
    """One proposal: the merge it came from, its edit set and its candidate."""

    number: int
    group: int
    merge: MergeResult
    select: SelectResult
    apply: ApplyResult


@attrs.frozen(kw_only=True)
class Proposed:
    """A step's proposals and what became of them: the winner's records (as a single
    proposal's would be), the race (one entrant, unscored, when only one distinct
    candidate was left), or the skip when no proposal changed the skill."""

    merge: MergeResult | None = None
    select: SelectResult | None = None
    apply: ApplyResult | None = None
    race: RaceResult | None = None
    skip: StepAction | None = None
    proposals: int = 0


def sampler_of(run: RunContext) -> Sampler:
    from skillopt.registry import get

    sampler: Sampler = get("strategies", run.cfg.search.sampler).obj(run.cfg.search)
    return sampler


def make(run: RunContext, plan: StepPlan, current: Current, reflected: ReflectResult, rollouts: list[Rollout]) -> list[Proposal]:
    """Up to ``search.proposals`` proposals, in the sampler's order."""
    k = run.cfg.search.proposals
    sampler = sampler_of(run)
    seed = run.step_seed(plan, "proposals")
    root = run.step_dir(plan) / FOLDER
    patches = reflected.patches
    groups = [tuple(i for i in group if 0 <= i < len(patches)) for group in sampler.groups(patches, k, seed)]
    groups = [g for g in groups if g]

    def one(g: int) -> list[tuple[MergeResult, SelectResult]]:
        part = attrs.evolve(reflected, patches=tuple(patches[i] for i in groups[g]), minibatches=len(groups[g]))
        merged = merge(run, plan, current, part, at=root / f"g{g}")
        if merged.empty or merged.merged is None:
            return []
        selected = select(run, plan, current, merged, rollouts, at=root / f"g{g}")
        variants = sampler.variants(merged.merged, selected.selected, selected.budget, k, seed + g)
        return [(merged, selected if v == 0 else attrs.evolve(selected, selected=chosen,
                                                             selection={**selected.selection, "variant": v}))
                for v, chosen in enumerate(variants)]

    with ThreadPoolExecutor(max_workers=max(1, min(len(groups), run.cfg.gradient.analyst_workers))) as pool:
        per_group = list(pool.map(one, range(len(groups))))
    chosen = [(g, m, s) for g, made in enumerate(per_group) for m, s in made][:k]
    return [Proposal(number=n, group=g, merge=m, select=s,
                     apply=apply(run, plan, current, m, s, rollouts, at=root / f"p{n}"))
            for n, (g, m, s) in enumerate(chosen)]


def propose(run: RunContext, plan: StepPlan, current: Current, reflected: ReflectResult, rollouts: list[Rollout]) -> Proposed:
    """The step's proposals, raced when two or more distinct candidates differ from the
    current skill; the winner's records stand for the step."""
    made = make(run, plan, current, reflected, rollouts)
    if not made:
        return Proposed(skip=StepAction.SKIP_NO_PATCHES)
    seen: dict[str, Proposal] = {}
    for p in made:
        if p.apply.candidate != current.skill:
            seen.setdefault(p.apply.candidate, p)
    distinct = list(seen.values())
    if not distinct:
        first = made[0]
        action = StepAction.SKIP_NO_CHANGE if run.policy.edits_skill else StepAction.SKIP_NO_REWRITE
        return Proposed(merge=first.merge, select=first.select, apply=first.apply, skip=action, proposals=len(made))
    entries = [(p.number, p.group, p.apply.candidate, tuple(r.edit for r in p.apply.results if r.status == "applied"))
               for p in distinct]
    raced = race(run, run.step_dir(plan) / "race", current, entries, current_folder=run.step_dir(plan) / "gate" / "current")
    winner = distinct[raced.winner]
    return Proposed(merge=winner.merge, select=winner.select, apply=winner.apply, race=raced, proposals=len(made))


def record_losers(run: RunContext, step: int, parent_hash: str, raced: RaceResult | None) -> None:
    """The race's losers in the cross-run rejected-edit ledger, with their measured effect
    (refused candidates were not measured and are left out)."""
    from skillopt.engine.rejected import Rejection, record

    if raced is None or not run.rejected_path:
        return
    for loser in raced.losers:
        if loser.round == 0 or not loser.edits:
            continue
        record(Path(run.rejected_path), Rejection(
            parent_hash=parent_hash, candidate_hash=loser.skill_hash, gate_context=run.gate_context, effect=loser.effect,
            reason=f"lost a race of {len(raced.entrants)} proposals: {loser.out}"[:300], edits=loser.edits,
            run=run.rundir.root.name, step=step, lost_to=raced.won.skill_hash,
        ))
