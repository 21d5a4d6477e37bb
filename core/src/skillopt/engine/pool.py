"""The trainer's search, held by composition: the skills a run keeps, the one each step
branches from, and what a gated child does to them.

The strategy plugin (``search.strategy``, :mod:`skillopt.strategies`) decides; the
:class:`Search` measures and records. ``hill`` is a pool of one: its only member is the
run's current skill, kept in the run state's current fields (its ``runtime_state.json``
holds no pool list), and a child the gate accepts replaces it. A pool strategy
(``pareto``, ``frontier``) keeps its members in the run state's ``pool``, each with its
per-item val scores and objectives read from evaluations the run already made
(memoised) and its file in the run directory, so the state alone resumes it exactly.
The trainer stays the only writer of the run state: the search writes only the state
it is handed.
"""

from __future__ import annotations

from pathlib import Path

from skillopt.engine import search
from skillopt.engine.context import RunContext, StepPlan
from skillopt.engine.plan import scheduled_budget
from skillopt.engine.rundir import RunDir
from skillopt.engine.saved_run import read_skill
from skillopt.engine.state import TrainState, adopt_best, adopt_current, current_view
from skillopt.strategies import PoolMember, Strategy


class Search:
    """The kept skills of one run under one strategy."""

    def __init__(self, strategy: Strategy, rundir: RunDir, *, seed: int, picks_final: bool = False) -> None:
        self.strategy = strategy
        self.rundir = rundir
        #: ``train.seed``: each step's parent is drawn with a seed derived from it
        self.seed = seed
        #: the final skill is picked among the kept ones (``search.select``, ``evaluation.selection_split``):
        #: a single-skill search then remembers every skill it kept (its lineage)
        self.picks_final = picks_final

    @property
    def keeps_pool(self) -> bool:
        """More than the current skill is kept (members with per-item scores)."""
        return not self.strategy.single

    def relative(self, path: Path) -> str:
        return str(path.relative_to(self.rundir.root))

    def skill_of(self, member: PoolMember) -> str:
        return read_skill(self.rundir, member.path, member.skill_hash)

    def finalists(self, state: TrainState) -> tuple[PoolMember, ...]:
        """The skills the final pick chooses among: a pool's members, hill's lineage."""
        return tuple(state.pool) if self.keeps_pool else tuple(state.lineage)

    # ------------------------------------------------------------------ the step loop

    def begin(self, run: RunContext, state: TrainState, initial: str, path: Path) -> None:
        """The initial skill (already the current one) as the first kept skill."""
        if self.keeps_pool:
            state.pool = [search.member(run, initial, self.relative(path), "initial_skill", step=0)]
        elif self.picks_final:
            state.lineage = [search.member(run, initial, self.relative(path), "initial_skill", step=0)]

    def parent(self, state: TrainState, plan: StepPlan, current: str) -> str:
        """The skill step ``plan`` branches from: the current one, or the member the
        strategy draws with the step's own seed."""
        if not self.keeps_pool:
            return current
        pool = tuple(state.pool)
        chosen = self.strategy.parent(pool, self.strategy.lead(pool), search.parent_seed_of(self.seed, plan.step))
        return self.skill_of(chosen)

    def keep(self, run: RunContext, state: TrainState, skill: str, score: float, origin: str, path: Path, *,
             step: int, parent_hash: str) -> str:
        """A child the gate accepted (saved at ``path``) joins the kept skills; returns the
        run's current skill after it (hill: the child; a pool: its leader)."""
        if not self.keeps_pool:
            adopt_current(self.rundir, state, skill, score, origin, path)
            if self.picks_final:
                state.lineage.append(search.member(run, skill, self.relative(path), origin, step=step, parent_hash=parent_hash))
            return skill
        self.rundir.write_skill(path, skill)
        child = search.member(run, skill, self.relative(path), origin, step=step, parent_hash=parent_hash)
        return self.admit(state, child)

    def admit(self, state: TrainState, child: PoolMember) -> str:
        """The pool with ``child`` in it; its leader becomes the current skill (returned)."""
        state.pool = list(self.strategy.admit(tuple(state.pool), child))
        lead = self.strategy.lead(tuple(state.pool))
        skill = self.skill_of(lead)
        state.current_skill_path = lead.path
        state.current_hash, state.current_score, state.current_origin = lead.skill_hash, lead.score, lead.origin
        return skill

    # ------------------------------------------------------------------ epoch boundary

    def epoch_end(self, run: RunContext, state: TrainState, ep: int, current: str) -> str:
        """A pool's epoch boundary: the leader takes a partner's missing lines, gated."""
        from skillopt.engine.stages.gate import gate

        pair = self.strategy.merge_pair(tuple(state.pool)) if self.keeps_pool else None
        if pair is None:
            return current
        lead, partner = pair
        lead_skill = self.skill_of(lead)
        budget = scheduled_budget(ep * run.data.steps_per_epoch, run.data.schedule_steps, run.cfg.optimizer)
        merged = search.merge_candidate(run, ep, current_view(state, lead_skill), self.skill_of(partner), budget)
        if merged.candidate == lead_skill:
            return current
        folder = self.rundir.epoch_dir("search", ep)
        result = gate(run, folder / "gate", current_view(state, lead_skill), merged.candidate, label="val: pool merge")
        run.reporter.line(f"epoch {ep} pool merge ({lead.origin} + {partner.origin}): {result.verdict.action.value} "
                          f"(val {result.candidate.gate_score:.3f} vs {result.current.gate_score:.3f})")
        if not result.verdict.accepted:
            return current
        origin = f"merge_epoch_{ep:02d}"
        path = self.rundir.root / "skills" / f"{origin}.md"
        current = self.keep(run, state, merged.candidate, result.candidate.gate_score, origin, path,
                            step=state.last_completed_step, parent_hash=lead.skill_hash)
        if state.current_score > state.best_score:
            adopt_best(self.rundir, state, current, state.current_score, state.last_completed_step, state.current_origin)
        return current
