"""``rewrite``: revision suggestions, merged and ranked, carried out by one full rewrite."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from skillopt.errors import SchemaError
from skillopt.hookspecs import hookimpl
from skillopt.policies import EditPolicy, render as r, schemas
from skillopt.policies.patch import analyst_system, analyst_user_message
from skillopt.policies.support import dedupe_suggestions, recount, suggestion_text
from skillopt.records import Edit, EditResult, Patch, Suggestion
from skillopt.skilldoc import restore_protected

if TYPE_CHECKING:
    from skillopt.hookspecs import Register
    from skillopt.policies import OptimizerContext
    from skillopt.records import Rollout, Task


_TYPES = set(schemas.SUGGESTION_TYPES)


def parse_suggestions(items: Any, source_type: str) -> list[Suggestion]:
    out = []
    for item in items or []:
        if not isinstance(item, dict) or item.get("type") not in _TYPES or not str(item.get("instruction", "")).strip():
            continue
        out.append(
            Suggestion(
                type=item["type"],
                title=str(item.get("title", ""))[:120],
                instruction=str(item.get("instruction", "")),
                motivation=str(item.get("motivation", "")),
                priority_hint=str(item.get("priority_hint") or "medium"),
                support_count=1,  # support is counted by the merge, never self-reported
                source_type=str(item.get("source_type") or source_type),
            )
        )
    return out


def suggestion_line(i: int, s: Suggestion) -> str:
    return f"[{i}] {s.type}: {s.title} — {s.instruction[:400]} (support={s.support_count}, {s.priority_hint}, {s.source_type})"


class RewritePolicy(EditPolicy):
    """Suggestions → merge → rank/clip to the budget → one rewrite of the whole skill."""

    name = "rewrite"
    summary = "rewrite the skill from ranked revision suggestions"

    def reflect(self, ctx: OptimizerContext, rollouts: list[Rollout], tasks: dict[str, Task], kind: str) -> Patch:
        data = ctx.ask(
            stage="analyst",
            system=analyst_system(ctx, f"analyst_{kind}_rewrite"),
            user=analyst_user_message(ctx, rollouts, tasks, kind, "suggestions"),
            schema=schemas.analyst_rewrite_schema(kind, ctx.budget, ctx.config.gradient.min_failure_edits),
        )
        items = parse_suggestions(data.get("suggestions", []), kind)  # the ranking clips to the budget
        return Patch(suggestions=tuple(items), reasoning=str(data.get("reasoning", "")), source_type=kind)

    def merge(self, ctx: OptimizerContext, patches: list[Patch], kind: str) -> Patch:
        level = max((p.merge_level for p in patches), default=0) + 1
        inputs = [s for p in patches for s in p.suggestions]
        deduped = dedupe_suggestions(inputs)
        source = "failure" if kind in ("failure", "final") else "success"
        if len([p for p in patches if p.suggestions]) <= 1 or len(deduped) <= 1:
            return Patch(suggestions=tuple(deduped), source_type=source, merge_level=level)
        listing = "\n".join(suggestion_line(i, s) for i, s in enumerate(inputs))
        user = r.join_sections(r.skill_block(ctx), r.meta_section(ctx.meta_skill), "## Suggestions\n" + listing)
        try:
            data = ctx.ask(stage="merge", system=ctx.prompt("merge_rewrite"), user=user, schema=schemas.merged_suggestions_schema())
        except SchemaError as exc:
            ctx.note(f"suggestion merge fell back to deduplication: {exc}")
            return Patch(suggestions=tuple(deduped), source_type=source, merge_level=level)
        merged = recount(parse_suggestions(data.get("suggestions", []), source), inputs, suggestion_text)
        return Patch(suggestions=tuple(merged), source_type=source, merge_level=level, reasoning=str(data.get("reasoning", "")))

    def select(self, ctx: OptimizerContext, patch: Patch, budget: int | None) -> tuple[Patch, dict[str, Any]]:
        items = list(patch.suggestions)
        if budget is None or len(items) <= budget:
            return patch, {"ranking": "not needed", "selected_indices": list(range(len(items)))}
        listing = "\n".join(suggestion_line(i, s) for i, s in enumerate(items))
        user = r.join_sections(
            r.skill_block(ctx), f"## Selection budget\nKeep at most {budget} suggestions.",
            r.history_section(ctx.step_history), "## Suggestions\n" + listing,
        )
        chosen: list[int] = []
        try:
            data = ctx.ask(stage="ranking", system=ctx.prompt("ranking_rewrite"), user=user, schema=schemas.ranking_schema(len(items), max(budget, 0)))
            chosen = [i for i in dict.fromkeys(data.get("selected_indices", [])) if isinstance(i, int) and 0 <= i < len(items)]
        except SchemaError as exc:
            ctx.note(f"suggestion ranking fell back to support order: {exc}")
        method = "optimizer"
        if not chosen:
            method = "support order (fallback)"
            chosen = sorted(range(len(items)), key=lambda i: (items[i].source_type != "failure", -items[i].support_count, i))
        chosen = chosen[:budget]
        return attrs.evolve(patch, suggestions=tuple(items[i] for i in chosen)), {"ranking": method, "selected_indices": chosen}

    def apply(self, ctx: OptimizerContext, skill: str, patch: Patch) -> tuple[str, list[EditResult], dict[str, Any]]:
        if not patch.suggestions:
            return skill, [], {"change_summary": []}
        listing = "\n".join(suggestion_line(i, s) for i, s in enumerate(patch.suggestions))
        user = r.join_sections(r.skill_block(ctx, skill), "## Selected suggestions\n" + listing, r.history_section(ctx.step_history))
        data = ctx.ask_whole_skill(stage="rewrite", system=ctx.prompt("rewrite_skill"), user=user, schema=schemas.new_skill_schema())
        new_skill = restore_protected(skill, str(data.get("new_skill", "")).strip() + "\n")
        results = [
            EditResult(edit=Edit(op="rewrite", content=s.instruction, source_type=s.source_type), status="applied", detail=s.title)
            for s in patch.suggestions
        ]
        return new_skill, results, {"change_summary": [str(x) for x in data.get("change_summary", [])]}


@hookimpl
def skillopt_register_edit_policies(register: Register[type[EditPolicy]]) -> None:
    register(RewritePolicy, aliases=("rewrite_from_suggestions", "suggestions"))
