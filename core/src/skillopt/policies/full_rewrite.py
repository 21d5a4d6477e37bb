"""``full-rewrite``: every analyst writes a whole new skill; merges pick and combine."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillopt.errors import SchemaError
from skillopt.hookspecs import hookimpl
from skillopt.policies import EditPolicy, render as r, schemas
from skillopt.policies.patch import analyst_system, analyst_user_message
from skillopt.records import Edit, EditResult, Patch
from skillopt.skilldoc import restore_protected

if TYPE_CHECKING:
    from skillopt.hookspecs import Register
    from skillopt.policies import OptimizerContext
    from skillopt.records import Rollout, Task


class FullRewritePolicy(EditPolicy):
    """Whole-skill candidates, merged hierarchically; no learning-rate clipping."""

    name = "full-rewrite"
    summary = "analysts write complete skills; merges combine them (no edit budget)"
    uses_budget = False

    def reflect(self, ctx: OptimizerContext, rollouts: list[Rollout], tasks: dict[str, Task], kind: str) -> Patch:
        data = ctx.ask_whole_skill(
            stage="analyst",
            system=analyst_system(ctx, f"analyst_{kind}_full_rewrite"),
            user=analyst_user_message(ctx, rollouts, tasks, kind, "changes"),
            schema=schemas.new_skill_schema(),
        )
        new_skill = str(data.get("new_skill", "")).strip()
        return Patch(new_skill=new_skill, reasoning="; ".join(str(x) for x in data.get("change_summary", [])), source_type=kind)

    def merge(self, ctx: OptimizerContext, patches: list[Patch], kind: str) -> Patch:
        level = max((p.merge_level for p in patches), default=0) + 1
        candidates = [p for p in patches if p.new_skill]
        source = "failure" if kind in ("failure", "final") else "success"
        if len(candidates) <= 1:
            first = candidates[0] if candidates else Patch(source_type=source)
            return Patch(new_skill=first.new_skill, reasoning=first.reasoning, source_type=source, merge_level=level)
        listing = "\n\n".join(f"### Candidate {i + 1} ({p.source_type})\n<skill>\n{p.new_skill}\n</skill>" for i, p in enumerate(candidates))
        user = r.join_sections(r.skill_block(ctx), r.meta_section(ctx.meta_skill), "## Candidates\n" + listing)
        try:
            data = ctx.ask_whole_skill(stage="merge", system=ctx.prompt("merge_full_rewrite"), user=user, schema=schemas.new_skill_schema())
            merged = str(data.get("new_skill", "")).strip()
        except SchemaError as exc:
            ctx.note(f"full-rewrite merge kept the first candidate: {exc}")
            merged = candidates[0].new_skill
        return Patch(new_skill=merged or candidates[0].new_skill, source_type=source, merge_level=level)

    def select(self, ctx: OptimizerContext, patch: Patch, budget: int | None) -> tuple[Patch, dict[str, Any]]:
        return patch, {"ranking": "not used in full-rewrite mode"}

    def apply(self, ctx: OptimizerContext, skill: str, patch: Patch) -> tuple[str, list[EditResult], dict[str, Any]]:
        if not patch.new_skill.strip():
            return skill, [], {}
        new_skill = restore_protected(skill, patch.new_skill.strip() + "\n")
        result = EditResult(edit=Edit(op="rewrite", content="full rewrite", source_type=patch.source_type), status="applied")
        return new_skill, [result], {"change_summary": [patch.reasoning] if patch.reasoning else []}


@hookimpl
def skillopt_register_edit_policies(register: Register[type[EditPolicy]]) -> None:
    register(FullRewritePolicy, aliases=("full_rewrite", "full_rewrite_minibatch"))
