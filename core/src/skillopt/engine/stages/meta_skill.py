"""``meta_skill``: the optimizer's own guidance, refreshed at each epoch boundary.

Learnt from the same previous-vs-current comparison as the slow update, it is shown
to analysts, mergers and the ranking call from the next epoch on, and never enters
the deployed skill.
"""

from __future__ import annotations

from skillopt.engine.context import Current, RunContext
from skillopt.engine.resumable import resumable
from skillopt.engine.seeds import derive_seed
from skillopt.engine.stages.records import MetaSkillResult, Pair
from skillopt.engine.stages.slow_update import comparison_text, pairs_key
from skillopt.errors import SchemaError
from skillopt.policies import render as r, schemas

STAGE = "meta_skill"


def meta_skill(run: RunContext, epoch: int, current: Current, prev_skill: str, pairs: list[Pair]) -> MetaSkillResult:
    def compute() -> MetaSkillResult:
        ctx = run.optimizer_context(current, stage=STAGE, budget=None, seed=derive_seed(run.seed, "optimizer", STAGE, epoch))
        user = r.join_sections(
            "## Skill at the end of the previous epoch\n<skill>\n" + prev_skill.strip() + "\n</skill>",
            r.skill_section(current.skill),
            "## Previous meta skill\n" + (current.meta_skill or "(none yet)"),
            comparison_text(pairs, run.data.index, run.cfg.gradient.max_trajectory_chars // 2),
        )
        try:
            data = ctx.ask(stage="meta_skill", system=ctx.prompt("meta_skill"), user=user, schema=schemas.text_block_schema("meta_skill_content"))
        except SchemaError as exc:
            return MetaSkillResult(status="failed", error=str(exc))
        return MetaSkillResult(status="ok", content=str(data.get("meta_skill_content", "")).strip())

    folder = run.rundir.epoch_dir(STAGE, epoch)
    return resumable(folder / "result.json", MetaSkillResult, pairs_key(prev_skill, current, pairs, "meta"), compute)
