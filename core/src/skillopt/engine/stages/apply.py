"""``apply``: the selected edits become the candidate skill.

The edit policy applies them and reports every edit's fate (applied, not applied,
duplicate, protected); edits that would copy a training answer into the skill are
refused first; with skill-aware reflection, execution notes go to the protected
appendix. A candidate over ``optimizer.max_skill_chars`` is not built.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from skillopt.engine.context import Current, RunContext, StepPlan
from skillopt.engine.leaks import answers_of, without_leaks
from skillopt.engine.resumable import resumable
from skillopt.engine.stages.records import ApplyResult, MergeResult, SelectResult
from skillopt.errors import SchemaError
from skillopt.policies import OptimizerContext, render as r, schemas
from skillopt.records import EditResult, Rollout
from skillopt.serde import dumps
from skillopt.skilldoc import APPX_END, APPX_START, get_block, set_block

STAGE = "apply"
APPENDIX_HEADING = "## Execution Notes Appendix"


def consolidate_notes(ctx: OptimizerContext, notes: list[str]) -> list[str]:
    user = "## Current appendix notes\n" + "\n".join(f"- {n}" for n in notes) + "\n\n" + r.skill_section(ctx.skill)
    try:
        data = ctx.ask(stage="appendix_consolidate", system=ctx.prompt("consolidate_appendix"), user=user, schema=schemas.notes_schema())
        merged = [str(n).strip() for n in data.get("appendix_notes", []) if str(n).strip()]
    except SchemaError as exc:
        ctx.note(f"appendix consolidation failed: {exc}")
        return notes
    return merged if 0 < len(merged) < len(notes) else notes


def with_appendix_notes(ctx: OptimizerContext, skill: str, new_notes: list[str]) -> str:
    """Add execution notes to the protected appendix (dedupe; consolidate above threshold)."""
    existing_block = get_block(skill, APPX_START, APPX_END) or ""
    existing = [line[2:].strip() for line in existing_block.splitlines() if line.startswith("- ")]
    seen = {n.lower().strip(" .") for n in existing}
    notes = list(existing)
    for note in new_notes:
        key = note.lower().strip(" .")
        if key and key not in seen:
            seen.add(key)
            notes.append(note.strip())
    if notes == existing:
        return skill
    threshold = ctx.config.optimizer.skill_aware_consolidate_threshold
    if threshold and len(notes) > threshold:
        notes = consolidate_notes(ctx, notes)
    return set_block(skill, APPX_START, APPX_END, "\n".join(f"- {n}" for n in notes), heading=APPENDIX_HEADING)


def apply(run: RunContext, plan: StepPlan, current: Current, merged: MergeResult, selected: SelectResult,
          rollouts: list[Rollout], *, at: Path | None = None) -> ApplyResult:
    """``at``: the folder its ``apply/`` goes in (default: the step's)."""
    assert merged.merged is not None
    patch = merged.merged  # narrowed for compute() below
    key = hashlib.sha256(f"{current.skill_hash}\x1f{dumps(selected.selected, indent=None)}\x1f{merged.merged.appendix_notes}".encode()).hexdigest()[:20]

    def compute() -> ApplyResult:
        o = run.cfg.optimizer
        ctx = run.optimizer_context(current, stage=STAGE, budget=selected.budget, seed=run.step_seed(plan, "optimizer"))
        chosen = selected.selected
        refused: list[EditResult] = []
        if o.block_answer_leaks:
            chosen, refused = without_leaks(chosen, answers_of(run.data.index[ro.task_id] for ro in rollouts if ro.task_id in run.data.index))
        candidate, results, extra = run.policy.apply(ctx, current.skill, chosen)
        results = [*results, *refused]
        if ctx.sar and patch.appendix_notes:
            candidate = with_appendix_notes(ctx, candidate, list(patch.appendix_notes))
            extra = {**extra, "appendix_notes": list(patch.appendix_notes)}
        if o.max_skill_chars and len(candidate) > o.max_skill_chars:
            ctx.note(f"candidate has {len(candidate)} characters, above optimizer.max_skill_chars={o.max_skill_chars}; kept the current skill")
            extra = {**extra, "length_rejected": len(candidate)}
            candidate = current.skill
        return ApplyResult(candidate=candidate, results=tuple(results), extra=extra, notes=tuple(ctx.notes))

    return resumable((at or run.step_dir(plan)) / STAGE / "result.json", ApplyResult, key, compute,
                     views=lambda res: {"candidate_skill.md": res.candidate})
