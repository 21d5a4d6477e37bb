"""``merge``: the analysts' patches become one, by a hierarchical k-ary tree.

Failure patches and success patches are merged in their own trees, side by side (groups
of ``gradient.merge_batch_size`` per level, in parallel), then once more together;
support is counted from the inputs, never self-reported (the policy's job). When every
patch fits in one merge (``gradient.flat_merge``, the default), both kinds are merged in
one call, each proposal labelled with its kind: one sequential model call instead of two.
"""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import attrs

from skillopt.engine.context import Current, RunContext, StepPlan
from skillopt.engine.resumable import resumable
from skillopt.engine.stages.records import MergeResult, ReflectResult
from skillopt.engine.stages.reflect import chunks
from skillopt.policies import OptimizerContext
from skillopt.records import Patch
from skillopt.serde import dumps

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
        flat = flat_inputs(run, patches)
        if flat:
            return MergeResult(merged=run.policy.merge(ctx, flat, "final"), notes=tuple(ctx.notes))
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


def flat_inputs(run: RunContext, patches: list[Patch]) -> list[Patch]:
    """The patches to merge in one call (failure ones first), or [] when the trees do it:
    ``flat_merge`` off, more patches than one merge takes, one kind only, or nothing for
    a tree to merge (one patch of each kind: the trees' final merge is the only call)."""
    usable = [p for p in patches if p.size or p.appendix_notes]
    fail = [p for p in usable if p.source_type == "failure"]
    succ = [p for p in usable if p.source_type == "success"]
    if not run.cfg.gradient.flat_merge or len(usable) > run.cfg.gradient.merge_batch_size:
        return []
    if not any(p.size for p in fail) or not any(p.size for p in succ) or (len(fail) <= 1 and len(succ) <= 1):
        return []
    return [*fail, *succ]
