"""``select``: rank the merged edits and clip them to the step's edit budget.

The budget is the learning-rate schedule's (or, in autonomous mode, the optimizer's
own choice, bounded by what is on offer). Extra edits an analyst proposed beyond the
budget arrive here and are ranked with the rest; they are never thrown away earlier.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from skillopt.engine.context import Current, RunContext, StepPlan
from skillopt.engine.resumable import resumable
from skillopt.engine.stages.records import MergeResult, SelectResult
from skillopt.errors import SchemaError
from skillopt.policies import OptimizerContext, render as r, schemas
from skillopt.records import Patch, Rollout
from skillopt.serde import dumps

STAGE = "select"


def autonomous_budget(ctx: OptimizerContext, merged: Patch, rollouts: list[Rollout], fallback: int | None) -> tuple[int | None, dict[str, Any]]:
    available = merged.size
    n_fail = sum(1 for ro in rollouts if ro.failed)
    evidence = (
        f"## Rollout evidence\n{len(rollouts)} trajectories, {n_fail} failed; "
        f"hard={sum(ro.score.hard for ro in rollouts) / max(len(rollouts), 1):.3f}\n"
        f"## Edits on offer\n{available} merged proposals (patterns: {'; '.join(merged.patterns[:6])})"
    )
    user = r.join_sections(r.skill_block(ctx), evidence, r.history_section(ctx.step_history), r.meta_section(ctx.meta_skill))
    try:
        data = ctx.ask(stage="lr_autonomous", system=ctx.prompt("lr_autonomous"), user=user, schema=schemas.lr_schema())
        budget = max(0, min(int(data["learning_rate"]), available))
        extra = {k: data.get(k) for k in ("reasoning", "confidence", "risk_notes")}
        return budget, {"mode": "autonomous", "learning_rate": budget, "requested": data["learning_rate"], **extra}
    except (SchemaError, KeyError, ValueError) as exc:
        ctx.note(f"autonomous learning rate failed ({exc}); used the scheduled budget {fallback}")
        return fallback, {"mode": "autonomous", "fallback": True, "learning_rate": fallback, "error": str(exc)}


def select(run: RunContext, plan: StepPlan, current: Current, merged: MergeResult, rollouts: list[Rollout], *,
           at: Path | None = None) -> SelectResult:
    """``at``: the folder its ``select/`` goes in (default: the step's)."""
    assert merged.merged is not None
    patch = merged.merged
    key = hashlib.sha256(f"{current.skill_hash}\x1f{plan.told}\x1f{current.step_history}\x1f{dumps(patch, indent=None)}".encode()).hexdigest()[:20]

    def compute() -> SelectResult:
        ctx = run.optimizer_context(current, stage=STAGE, budget=plan.told, seed=run.step_seed(plan, "optimizer"))
        budget, decision = plan.scheduled, None
        if run.policy.uses_budget and run.cfg.optimizer.lr_control_mode == "autonomous":
            budget, decision = autonomous_budget(ctx, patch, rollouts, plan.scheduled)
        if not run.policy.uses_budget:
            budget = None
        selected, selection = run.policy.select(ctx, patch, budget)
        return SelectResult(budget=budget, selected=selected, selection=selection, lr_decision=decision, notes=tuple(ctx.notes))

    return resumable((at or run.step_dir(plan)) / STAGE / "result.json", SelectResult, key, compute)
