"""One step's optimizer side: reflect → merge tree → (LR) → select → apply.

Each stage writes its result file atomically and a resumed step reuses what exists,
so a kill mid-reflection loses at most the minibatches in flight. Degraded paths
(a minibatch whose reply broke the schema, a merge or ranking fallback) are counted
and listed in the step record, never hidden.
"""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import attrs

from skillopt.errors import BackendError, SchemaError
from skillopt.policies import EditPolicy, OptimizerContext
from skillopt.policies import render as r
from skillopt.policies import schemas
from skillopt.records import EditResult, Patch, Rollout, Task
from skillopt.serde import from_data, to_data
from skillopt.skilldoc import APPX_END, APPX_START, get_block, set_block
from skillopt.engine.leaks import answers_of, without_leaks
from skillopt.engine.rollouts import FATAL
from skillopt.engine.rundir import append_jsonl, read_json, write_json, write_text

APPENDIX_HEADING = "## Execution Notes Appendix"


@attrs.frozen(kw_only=True)
class Proposal:
    candidate: str
    patches: tuple[Patch, ...]
    merged: Patch | None
    selected: Patch | None
    results: tuple[EditResult, ...]
    reflect_failures: int
    budget: int | None
    lr_decision: dict[str, Any] | None
    selection: dict[str, Any]
    extra: dict[str, Any]
    notes: tuple[str, ...]

    @property
    def n_proposed(self) -> int:
        return sum(p.size for p in self.patches)


def _chunks(items: list, size: int) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def reflect_minibatches(
    policy: EditPolicy, ctx: OptimizerContext, rollouts: list[Rollout], tasks: dict[str, Task], patches_dir: Path, *, seed: int
) -> tuple[list[Patch], int]:
    cfg = ctx.config.gradient
    usable = [ro for ro in rollouts if ro.status == "ok"]
    failures = [ro for ro in usable if ro.failed]
    successes = [] if cfg.failure_only else [ro for ro in usable if not ro.failed]
    random.Random(seed).shuffle(failures)
    random.Random(seed + 1).shuffle(successes)
    jobs = [("failure", f"minibatch_fail_{i:03d}.json", chunk) for i, chunk in enumerate(_chunks(failures, cfg.minibatch_size))]
    jobs += [("success", f"minibatch_succ_{i:03d}.json", chunk) for i, chunk in enumerate(_chunks(successes, cfg.minibatch_size))]

    def run(job) -> dict:
        kind, name, chunk = job
        path = patches_dir / name
        saved = read_json(path)
        if saved is not None:
            return saved
        try:
            patch = policy.reflect(ctx, chunk, tasks, kind)
            record = {"kind": kind, "items": len(chunk), "patch": to_data(patch)}
        except FATAL:
            raise
        except (SchemaError, BackendError) as exc:
            record = {"kind": kind, "items": len(chunk), "error": f"{type(exc).__name__}: {exc}"}
        write_json(path, record)
        return record

    if not jobs:
        return [], 0
    with ThreadPoolExecutor(max_workers=min(cfg.analyst_workers, len(jobs))) as pool:
        records = list(pool.map(run, jobs))
    patches = [from_data(rec["patch"], Patch) for rec in records if "patch" in rec]
    return patches, sum(1 for rec in records if "error" in rec)


def merge_tree(policy: EditPolicy, ctx: OptimizerContext, patches: list[Patch], kind: str) -> Patch | None:
    """Hierarchical k-ary merge: groups of k per level, in parallel, until one remains."""
    k = ctx.config.gradient.merge_batch_size
    level = [p for p in patches if p.size or p.appendix_notes]
    while len(level) > 1:
        groups = _chunks(level, k)
        with ThreadPoolExecutor(max_workers=min(ctx.config.gradient.analyst_workers, len(groups))) as pool:
            level = list(pool.map(lambda g: g[0] if len(g) == 1 else policy.merge(ctx, g, kind), groups))
    return level[0] if level else None


def autonomous_budget(ctx: OptimizerContext, merged: Patch, rollouts: list[Rollout], fallback: int | None) -> tuple[int | None, dict]:
    available = merged.size
    n_fail = sum(1 for ro in rollouts if ro.failed)
    evidence = (
        f"## Rollout evidence\n{len(rollouts)} trajectories, {n_fail} failed; "
        f"hard={sum(ro.score.hard for ro in rollouts) / max(len(rollouts), 1):.3f}\n"
        f"## Edits on offer\n{available} merged proposals (patterns: {'; '.join(merged.patterns[:6])})"
    )
    user = r.join_sections(r.skill_section(ctx.skill), evidence, r.history_section(ctx.step_history), r.meta_section(ctx.meta_skill))
    try:
        data = ctx.ask(stage="lr_autonomous", system=ctx.prompt("lr_autonomous"), user=user, schema=schemas.lr_schema())
        budget = max(0, min(int(data["learning_rate"]), available))
        return budget, {"mode": "autonomous", "learning_rate": budget, "requested": data["learning_rate"], **{k: data.get(k) for k in ("reasoning", "confidence", "risk_notes")}}
    except (SchemaError, BackendError, KeyError, ValueError) as exc:
        if isinstance(exc, FATAL):
            raise
        ctx.note(f"autonomous learning rate failed ({exc}); used the scheduled budget {fallback}")
        return fallback, {"mode": "autonomous", "fallback": True, "learning_rate": fallback, "error": str(exc)}


def consolidate_notes(ctx: OptimizerContext, notes: list[str]) -> list[str]:
    user = "## Current appendix notes\n" + "\n".join(f"- {n}" for n in notes) + "\n\n" + r.skill_section(ctx.skill)
    try:
        data = ctx.ask(stage="appendix_consolidate", system=ctx.prompt("consolidate_appendix"), user=user, schema=schemas.notes_schema())
        merged = [str(n).strip() for n in data.get("appendix_notes", []) if str(n).strip()]
    except (SchemaError, BackendError) as exc:
        if isinstance(exc, FATAL):
            raise
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


def propose(
    policy: EditPolicy,
    ctx: OptimizerContext,
    rollouts: list[Rollout],
    tasks: dict[str, Task],
    step_dir: Path,
    *,
    seed: int,
    scheduled: int | None,
    micro_rollouts: list[tuple[Path, list[Rollout]]] | None = None,
) -> Proposal:
    """Run reflect → merge → select → apply for one step, reusing saved stage files."""
    cfg = ctx.config
    patches: list[Patch] = []
    reflect_failures = 0
    groups = micro_rollouts or [(step_dir, rollouts)]
    for i, (folder, batch) in enumerate(groups):
        got, failed = reflect_minibatches(policy, ctx, batch, tasks, folder / "patches", seed=seed + i)
        patches += got
        reflect_failures += failed

    merged_file = step_dir / "merged_patch.json"
    saved = read_json(merged_file)
    if saved is not None:
        merged = from_data(saved["patch"], Patch) if saved.get("patch") else None
        ctx.notes.extend(saved.get("notes", []))
    else:
        fail_patch = merge_tree(policy, ctx, [p for p in patches if p.source_type == "failure"], "failure")
        succ_patch = merge_tree(policy, ctx, [p for p in patches if p.source_type == "success"], "success")
        if fail_patch is not None and succ_patch is not None and fail_patch.size and succ_patch.size:
            merged = policy.merge(ctx, [fail_patch, succ_patch], "final")
        else:
            merged = fail_patch if fail_patch is not None and (fail_patch.size or succ_patch is None) else succ_patch
            if merged is not None and fail_patch is not None and succ_patch is not None:
                notes = tuple(dict.fromkeys(fail_patch.appendix_notes + succ_patch.appendix_notes))
                merged = attrs.evolve(merged, appendix_notes=notes)
        write_json(merged_file, {"patch": to_data(merged) if merged is not None else None, "notes": list(ctx.notes)})

    if merged is None or (merged.size == 0 and not merged.appendix_notes):
        return Proposal(candidate=ctx.skill, patches=tuple(patches), merged=merged, selected=None, results=(), reflect_failures=reflect_failures,
                        budget=scheduled, lr_decision=None, selection={}, extra={}, notes=tuple(ctx.notes))

    budget, lr_decision = scheduled, None
    if policy.uses_budget and cfg.optimizer.lr_control_mode == "autonomous":
        decision_file = step_dir / "lr_decision.json"
        lr_decision = read_json(decision_file)
        if lr_decision is None:
            budget, lr_decision = autonomous_budget(ctx, merged, rollouts, scheduled)
            write_json(decision_file, lr_decision)
            append_jsonl(step_dir.parent.parent / "lr_history.jsonl", {"step_dir": step_dir.name, **lr_decision})
        budget = lr_decision.get("learning_rate")
    if not policy.uses_budget:
        budget = None

    ranked_file = step_dir / "ranked_edits.json"
    saved = read_json(ranked_file)
    if saved is not None:
        selected = from_data(saved["patch"], Patch)
        selection = saved["selection"]
    else:
        selected, selection = policy.select(ctx, merged, budget)
        write_json(ranked_file, {"budget": budget, "patch": to_data(selected), "selection": selection, "notes": list(ctx.notes)})

    report_file = step_dir / "edit_apply_report.json"
    cand_file = step_dir / "candidate_skill.md"
    saved = read_json(report_file)
    if saved is not None and cand_file.is_file():
        candidate = cand_file.read_text(encoding="utf-8")
        results = [from_data(x, EditResult) for x in saved["results"]]
        extra = saved.get("extra", {})
    else:
        refused: list[EditResult] = []
        if cfg.optimizer.block_answer_leaks:
            selected, refused = without_leaks(selected, answers_of(tasks[ro.task_id] for ro in rollouts if ro.task_id in tasks))
        candidate, results, extra = policy.apply(ctx, ctx.skill, selected)
        results = [*results, *refused]
        if ctx.sar and merged.appendix_notes:
            candidate = with_appendix_notes(ctx, candidate, list(merged.appendix_notes))
            extra = {**extra, "appendix_notes": list(merged.appendix_notes)}
        max_chars = cfg.optimizer.max_skill_chars
        if max_chars and len(candidate) > max_chars:
            ctx.note(f"candidate has {len(candidate)} characters, above optimizer.max_skill_chars={max_chars}; kept the current skill")
            extra = {**extra, "length_rejected": len(candidate)}
            candidate = ctx.skill
        write_text(cand_file, candidate)
        write_json(report_file, {
            "summary": _summary(results), "results": [to_data(x) for x in results], "extra": extra, "notes": list(ctx.notes),
        })
    return Proposal(
        candidate=candidate, patches=tuple(patches), merged=merged, selected=selected, results=tuple(results),
        reflect_failures=reflect_failures, budget=budget, lr_decision=lr_decision, selection=selection, extra=extra,
        notes=tuple(dict.fromkeys(ctx.notes)),
    )


def _summary(results: list[EditResult]) -> dict[str, int]:
    out = {"total": len(results)}
    for res in results:
        out[res.status] = out.get(res.status, 0) + 1
    return out
