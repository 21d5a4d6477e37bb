"""``merge``: the analysts' patches become one, by a hierarchical k-ary tree.

Failure patches and success patches are merged in their own trees, side by side (groups
of ``gradient.merge_batch_size`` per level, in parallel), then once more together;
support is counted from the inputs, never self-reported (the policy's job).
"""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import attrs

from skillopt.policies import OptimizerContext
from skillopt.records import Patch
from skillopt.serde import dumps
from skillopt.engine.context import Current, RunContext, StepPlan
from skillopt.engine.resumable import resumable
from skillopt.engine.stages.records import MergeResult, ReflectResult
from skillopt.engine.stages.reflect import chunks

STAGE = "merge"


def merge_tree(run: RunContext, ctx: OptimizerContext, patches: list[Patch], kind: str) -> Patch | None:
    k = run.cfg.gradient.merge_batch_size
    level = [p for p in patches if p.size or p.appendix_notes]
    while len(level) > 1:
        groups = chunks(level, k)
        with ThreadPoolExecutor(max_workers=min(run.cfg.gradient.analyst_workers, len(groups))) as pool:
            level = list(pool.map(lambda grp: grp[0] if len(grp) == 1 else run.policy.merge(ctx, grp, kind), groups))
    return level[0] if level else None


def merge(run: RunContext, plan: StepPlan, current: Current, reflected: ReflectResult, *, at: Path | None = None) -> MergeResult:
    """``at``: the folder its ``merge/`` goes in (default: the step's; a step's proposals have their own)."""
    key = hashlib.sha256((current.skill_hash + current.meta_skill + dumps(reflected.patches, indent=None)).encode()).hexdigest()[:20]

    def compute() -> MergeResult:
        def context() -> OptimizerContext:
            return run.optimizer_context(current, stage=STAGE, budget=plan.told, seed=run.step_seed(plan, "optimizer"))

        ctx, fail_ctx, succ_ctx = context(), context(), context()  # one per tree: notes in a fixed order
        patches = list(reflected.patches)
        with ThreadPoolExecutor(max_workers=2) as pool:  # the two trees do not depend on each other
            fail_job = pool.submit(merge_tree, run, fail_ctx, [p for p in patches if p.source_type == "failure"], "failure")
            succ_job = pool.submit(merge_tree, run, succ_ctx, [p for p in patches if p.source_type == "success"], "success")
            fail, succ = fail_job.result(), succ_job.result()
        ctx.notes.extend([*fail_ctx.notes, *succ_ctx.notes])
        merged: Patch | None
        if fail is not None and succ is not None and fail.size and succ.size:
            merged = run.policy.merge(ctx, [fail, succ], "final")
        else:
            merged = fail if fail is not None and (fail.size or succ is None) else succ
            if merged is not None and fail is not None and succ is not None:
                notes = tuple(dict.fromkeys(fail.appendix_notes + succ.appendix_notes))
                merged = attrs.evolve(merged, appendix_notes=notes)
        return MergeResult(merged=merged, notes=tuple(ctx.notes))

    return resumable((at or run.step_dir(plan)) / STAGE / "result.json", MergeResult, key, compute)
