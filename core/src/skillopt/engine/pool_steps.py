"""The trainer's steps for a pool strategy (``search.strategy = "pareto"``).

Kept apart from :mod:`skillopt.engine.trainer` so the single-skill loop reads as the
paper's; the trainer mixes these in and stays the only writer of the run state.
"""

from __future__ import annotations

from skillopt.engine import search
from skillopt.engine.context import RunContext, StepPlan
from skillopt.engine.plan import scheduled_budget
from skillopt.engine.stages.gate import gate


class PoolSearch:
    """Parent choice, admission and the epoch-boundary merge of a pool of skills."""

    def pool_parent(self, plan: StepPlan) -> str:
        pool = tuple(self.state.pool)
        chosen = self.strategy.parent(pool, self.strategy.lead(pool), search.parent_seed_of(self.cfg.train.seed, plan.step))
        return self.skill_at(chosen.path, chosen.skill_hash)

    def admit_to_pool(self, child) -> str:
        """The pool with ``child`` in it; the leader becomes the current skill (returned)."""
        self.state.pool = list(self.strategy.admit(tuple(self.state.pool), child))
        lead = self.strategy.lead(tuple(self.state.pool))
        skill = self.skill_at(lead.path, lead.skill_hash)
        self.state.current_skill_path = lead.path
        self.state.current_hash, self.state.current_score, self.state.current_origin = lead.skill_hash, lead.score, lead.origin
        return skill

    def pool_merge(self, run: RunContext, ep: int, current: str) -> str:
        """Epoch boundary of a pool: the leader takes a partner's missing lines, gated."""
        pair = self.strategy.merge_pair(tuple(self.state.pool))
        if pair is None:
            return current
        lead, partner = pair
        lead_skill = self.skill_at(lead.path, lead.skill_hash)
        budget = scheduled_budget(ep * run.data.steps_per_epoch, run.data.schedule_steps, self.cfg.optimizer)
        merged = search.merge_candidate(run, ep, self.current(lead_skill), self.skill_at(partner.path, partner.skill_hash), budget)
        if merged.candidate == lead_skill:
            return current
        folder = self.rundir.epoch_dir("search", ep)
        result = gate(run, folder / "gate", self.current(lead_skill), merged.candidate, label="val: pool merge")
        run.reporter.line(f"epoch {ep} pool merge ({lead.origin} + {partner.origin}): {result.verdict.action.value} "
                          f"(val {result.candidate.gate_score:.3f} vs {result.current.gate_score:.3f})")
        if not result.verdict.accepted:
            return current
        origin = f"merge_epoch_{ep:02d}"
        path = self.rundir.root / "skills" / f"{origin}.md"
        self.rundir.write_skill(path, merged.candidate)
        child = search.member(run, merged.candidate, str(path.relative_to(self.rundir.root)), origin,
                              step=self.state.last_completed_step, parent_hash=lead.skill_hash)
        current = self.admit_to_pool(child)
        if self.state.current_score > self.state.best_score:
            self.set_best(current, self.state.current_score, self.state.last_completed_step, self.state.current_origin)
        return current

