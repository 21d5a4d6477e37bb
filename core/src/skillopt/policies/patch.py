"""``patch``: bounded add / insert / replace / delete edits (the paper's update mode)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from skillopt.errors import SchemaError
from skillopt.hookspecs import hookimpl
from skillopt.policies import EditPolicy, OptimizerContext, render as r, schemas
from skillopt.policies.support import dedupe_edits, edit_text, recount
from skillopt.records import EDIT_OPS, Edit, EditResult, Patch, Rollout, Task
from skillopt.serde import to_data
from skillopt.skillbudget import estimate_tokens, shortens
from skillopt.skilldoc import apply_edits
from skillopt.skillfolder import SkillFolder, skill_of

if TYPE_CHECKING:
    from skillopt.hookspecs import Register
    from skillopt.policies import OptimizerContext


#: what the reply schema asks for at most; a longer list is clipped here, not re-asked
MAX_PATTERNS = 8
MAX_NOTES = 5


def analyst_user_message(ctx: OptimizerContext, rollouts: list[Rollout], tasks: dict[str, Task], kind: str, noun: str) -> str:
    title = "Failed" if kind == "failure" else "Successful"
    limit = ctx.config.gradient.max_trajectory_chars
    blocks = [r.render_trajectory(i + 1, ro, tasks.get(ro.task_id), limit) for i, ro in enumerate(rollouts)]
    return r.join_sections(
        r.skill_block(ctx),
        r.budget_section(ctx.budget, noun),
        r.history_section(ctx.step_history),
        r.meta_section(ctx.meta_skill),
        ctx.rejected_before,
        f"## {title} trajectories ({len(rollouts)} total)\n\n" + "\n\n".join(blocks),
    )


def analyst_system(ctx: OptimizerContext, name: str) -> str:
    text = ctx.prompt(name)
    if ctx.sar and name.startswith("analyst_failure"):
        text += ctx.prompt("sar_suffix")
    return text


def parse_edits(items: list[dict[str, Any]], source_type: str, merge_level: int = 0) -> list[Edit]:
    edits = []
    for item in items or []:
        if not isinstance(item, dict) or item.get("op") not in EDIT_OPS:
            continue
        edits.append(
            Edit(
                op=item["op"],
                target=str(item.get("target") or ""),
                content=str(item.get("content") or ""),
                rationale=str(item.get("rationale") or ""),
                support_count=1,  # support is counted by the merge, never self-reported
                source_type=str(item.get("source_type") or source_type),
                merge_level=merge_level,
                target_file=str(item.get("target_file") or "").strip(),
            )
        )
    return edits


def edit_line(i: int, e: Edit) -> str:
    target = f" target={e.target[:160]!r}" if e.target else ""
    target = f" file={e.target_file}{target}" if e.target_file else target
    return f"[{i}] op={e.op}{target} content={e.content[:400]!r} support={e.support_count} source={e.source_type}"


class PatchPolicy(EditPolicy):
    """Bounded edits applied by (whitespace-tolerant) anchor matching."""

    name = "patch"
    edits_skill = True
    summary = "bounded append / insert_after / replace / delete edits (paper default)"

    def reflect(self, ctx: OptimizerContext, rollouts: list[Rollout], tasks: dict[str, Task], kind: str) -> Patch:
        schema = schemas.analyst_patch_schema(kind, ctx.budget, ctx.sar, ctx.config.gradient.min_failure_edits,
                                              files=isinstance(skill_of(ctx.skill), SkillFolder))
        data = ctx.ask(
            stage="analyst",
            system=analyst_system(ctx, f"analyst_{kind}"),
            user=analyst_user_message(ctx, rollouts, tasks, kind, "edits"),
            schema=schema,
        )
        # every proposed edit goes on to the merge and the ranking, which clip to the budget
        edits = parse_edits(data.get("edits", []), kind)
        if kind == "failure":
            patterns = tuple(
                f"{p.get('failure_type', '')}: {p.get('description', '')}".strip(": ")
                for p in data.get("failure_summary", []) if isinstance(p, dict)
            )[:MAX_PATTERNS]
        else:
            patterns = tuple(str(p) for p in data.get("success_patterns", []))[:MAX_PATTERNS]
        notes = tuple(str(n) for n in data.get("appendix_notes", []) if str(n).strip())[:MAX_NOTES]
        if ctx.sar and kind == "success" and ctx.config.optimizer.skill_aware_appendix_source == "failure_only":
            notes = ()
        return Patch(
            edits=tuple(edits),
            reasoning=str(data.get("reasoning", "")),
            source_type=kind,
            patterns=patterns,
            appendix_notes=notes,
        )

    def merge(self, ctx: OptimizerContext, patches: list[Patch], kind: str) -> Patch:
        level = max((p.merge_level for p in patches), default=0) + 1
        inputs = [e for p in patches for e in p.edits]
        notes = tuple(dict.fromkeys(n for p in patches for n in p.appendix_notes))
        patterns = tuple(dict.fromkeys(x for p in patches for x in p.patterns))
        deduped = dedupe_edits(inputs)
        source = "failure" if kind in ("failure", "final") else "success"
        base = Patch(source_type=source, patterns=patterns, appendix_notes=notes, merge_level=level)
        if len([p for p in patches if p.edits]) <= 1 or len(deduped) <= 1:
            return attrs.evolve(base, edits=tuple(deduped), reasoning="no merge call needed")
        listing = "\n\n".join(
            f"### Proposal {i + 1} ({p.source_type})\n" + r.as_json([to_data(e) for e in p.edits])
            for i, p in enumerate(patches) if p.edits
        )
        user = r.join_sections(r.skill_block(ctx), r.meta_section(ctx.meta_skill), "## Proposals\n" + listing)
        try:
            data = ctx.ask(stage="merge", system=ctx.prompt(f"merge_{kind}"), user=user, schema=schemas.merged_patch_schema(files=isinstance(skill_of(ctx.skill), SkillFolder)))
        except SchemaError as exc:
            ctx.note(f"merge ({kind}, level {level}) fell back to deduplication: {exc}")
            return attrs.evolve(base, edits=tuple(deduped), reasoning="fallback: deterministic dedupe")
        merged = parse_edits(data.get("edits", []), source, level)
        merged = recount(merged, inputs, edit_text)
        return attrs.evolve(base, edits=tuple(merged), reasoning=str(data.get("reasoning", "")))

    def select(self, ctx: OptimizerContext, patch: Patch, budget: int | None) -> tuple[Patch, dict[str, Any]]:
        edits = list(patch.edits)
        if budget is None or len(edits) <= budget:
            return patch, {"ranking": "not needed", "selected_indices": list(range(len(edits)))}
        if budget == 0:
            return attrs.evolve(patch, edits=()), {"ranking": "budget is 0", "selected_indices": []}
        listing = "\n".join(edit_line(i, e) for i, e in enumerate(edits))
        user = r.join_sections(
            r.skill_block(ctx),
            f"## Selection budget\nKeep at most {budget} edits.",
            r.history_section(ctx.step_history),
            r.meta_section(ctx.meta_skill),
            "## Proposed edits\n" + listing,
        )
        try:
            data = ctx.ask(stage="ranking", system=ctx.prompt("ranking"), user=user, schema=schemas.ranking_schema(len(edits), budget))
            chosen = [i for i in dict.fromkeys(data.get("selected_indices", [])) if isinstance(i, int) and 0 <= i < len(edits)]
        except SchemaError as exc:
            ctx.note(f"ranking fell back to support order: {exc}")
            chosen = []
        method = "optimizer"
        if not chosen:
            method = "support order (fallback)"
            over = estimate_tokens(ctx.skill) > ctx.config.optimizer.max_skill_tokens > 0  # shortening edits first
            order = sorted(range(len(edits)), key=lambda i: (over and not shortens(edits[i]), edits[i].source_type != "failure",
                                                             -edits[i].support_count, -edits[i].merge_level, i))
            chosen = order
        chosen = chosen[:budget]
        return attrs.evolve(patch, edits=tuple(edits[i] for i in chosen)), {"ranking": method, "selected_indices": chosen}

    def apply(self, ctx: OptimizerContext, skill: str, patch: Patch) -> tuple[str, list[EditResult], dict[str, Any]]:
        new, results = apply_edits(skill, patch.edits)
        return new, results, {}


@hookimpl
def skillopt_register_edit_policies(register: Register[type[EditPolicy]]) -> None:
    register(PatchPolicy, aliases=("edits",))
