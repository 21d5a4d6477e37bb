"""The trainer's side of a pool strategy (``search.strategy``, see :mod:`skillopt.strategies`).

The strategy decides; these functions measure and record. A pool member carries its
per-item val scores, read from the val evaluations the run already made (memoised, so
nothing is paid twice), and its skill file in the run directory, so the pool in
``runtime_state.json`` is enough to resume exactly. The epoch-boundary merge gives the
leader the lines of a partner it lacks, as bounded edits: ranked and clipped to the
scheduled budget by the edit policy, then gated against the leader like any child.
"""

from __future__ import annotations

import difflib
import hashlib
from typing import TYPE_CHECKING

from skillopt.engine.context import Current, RunContext
from skillopt.engine.resumable import resumable
from skillopt.engine.seeds import derive_seed
from skillopt.engine.stages.records import ApplyResult
from skillopt.records import Edit, Patch, skill_hash
from skillopt.strategies import PoolMember

if TYPE_CHECKING:
    from collections.abc import Iterable

    from skillopt.records import Rollout

STAGE = "pool_merge"


def member(run: RunContext, skill: str, path: str, origin: str, *, step: int, parent_hash: str = "") -> PoolMember:
    """A pool member for ``skill``, scored item by item on the gate's val items, with its objectives."""
    e = run.cfg.evaluation
    evaluation, rollouts = run.evaluator.evaluate(
        skill, list(run.data.val), run.rundir.root / "search" / "members" / skill_hash(skill)[:12], split="val",
        repeats=e.gate_repeats, label=f"val: {origin}", client=run.target.for_stage("gate"))
    items = evaluation.item_metric(e.gate_metric, e.gate_mixed_weight)
    score = run.gate.score(evaluation)
    return PoolMember(skill_hash=skill_hash(skill), path=path, origin=origin, score=score,
                      items=items, parent_hash=parent_hash, step=step, objectives=objectives(skill, score, rollouts))


def objectives(skill: str, accuracy: float, rollouts: Iterable[Rollout]) -> dict[str, float]:
    """``accuracy`` (a gate score), the skill's length in tokens (estimated, as the skill
    budget counts them) and the target's mean tokens per scored rollout."""
    from skillopt.skillbudget import estimate_tokens

    scored = [ro for ro in rollouts if not ro.missing]
    tokens = sum(ro.usage.total_tokens for ro in scored) / len(scored) if scored else 0.0
    return {"accuracy": round(accuracy, 6), "skill_tokens": float(estimate_tokens(skill)), "rollout_tokens": round(tokens, 2)}


def parent_seed_of(seed: int, step: int) -> int:
    """The seed a pool strategy draws step ``step``'s parent with."""
    return derive_seed(seed, "parent", step)


def missing_lines(receiver: str, donor: str) -> list[str]:
    """Blocks of ``donor`` that ``receiver`` lacks (consecutive new lines kept together)."""
    ours, theirs = receiver.splitlines(), donor.splitlines()
    blocks = []
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(a=ours, b=theirs, autojunk=False).get_opcodes():
        if tag in ("insert", "replace"):
            block = "\n".join(line for line in theirs[j1:j2] if line.strip() and line not in ours)
            if block:
                blocks.append(block)
    return blocks


def merge_candidate(run: RunContext, epoch: int, lead: Current, partner: str, budget: int | None) -> ApplyResult:
    """The leader with up to ``budget`` of the partner's missing blocks appended (ranked
    by the edit policy when there are more), saved under ``search/epoch_NN``."""
    folder = run.rundir.epoch_dir("search", epoch) / STAGE
    key = hashlib.sha256(f"{lead.skill_hash}\x1f{skill_hash(partner)}\x1f{budget}".encode()).hexdigest()[:20]

    def compute() -> ApplyResult:
        edits = tuple(Edit(op="append", content=block, source_type="success", rationale="from a Pareto-front partner")
                      for block in missing_lines(lead.skill, partner))
        ctx = run.optimizer_context(lead, stage="select", budget=budget, seed=derive_seed(run.seed, "optimizer", STAGE, epoch))
        patch = Patch(edits=edits, source_type="success")
        chosen, _ = run.policy.select(ctx, patch, budget) if edits else (patch, {})
        candidate, results, _ = run.policy.apply(ctx, lead.skill, chosen)
        return ApplyResult(candidate=candidate, results=tuple(results), notes=tuple(ctx.notes))

    return resumable(folder / "result.json", ApplyResult, key, compute,
                     views=lambda r: {"candidate_skill.md": r.candidate})


def describe(pool: tuple[PoolMember, ...]) -> str:
    """``pool: 3 (step_0002 0.625, …)`` for the step line."""
    shown = ", ".join(f"{m.origin} {m.score:.3f}" for m in sorted(pool, key=lambda m: -m.score))
    return f"pool {len(pool)} ({shown})"


