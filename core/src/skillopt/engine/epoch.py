"""The epoch boundary: slow update (longitudinal guidance) and the optimizer meta skill.

Both compare the skill at the end of the previous epoch with the skill now on the same
sampled train items. A slow update that is force-accepted (the default, as upstream)
has its validation score *re-measured*, so the current score never describes a skill
that no longer exists.
"""

from __future__ import annotations

import attrs

from skillopt.errors import BackendError, SchemaError
from skillopt.policies import OptimizerContext
from skillopt.policies import render as r
from skillopt.policies import schemas
from skillopt.records import Rollout, Task
from skillopt.skilldoc import SLOW_END, SLOW_START, get_block, set_block
from skillopt.engine.plan import sample_train
from skillopt.engine.rollouts import FATAL
from skillopt.engine.rundir import read_json, write_json, write_text

LABELS = {(0, 1): "improved", (1, 0): "regressed", (0, 0): "persistent_fail", (1, 1): "stable_success"}
ORDER = ("regressed", "persistent_fail", "improved", "stable_success")


@attrs.frozen(kw_only=True)
class Pair:
    task_id: str
    label: str
    prev: Rollout
    curr: Rollout


def label_pairs(prev: list[Rollout], curr: list[Rollout]) -> list[Pair]:
    by_id = {ro.task_id: ro for ro in curr}
    pairs = []
    for p in prev:
        c = by_id.get(p.task_id)
        if c is None:
            continue
        key = (int(p.score.hard >= 0.5), int(c.score.hard >= 0.5))
        pairs.append(Pair(task_id=p.task_id, label=LABELS[key], prev=p, curr=c))
    return pairs


def comparison_pairs(trainer, epoch: int, prev_skill: str, curr_skill: str) -> list[Pair]:
    """Roll out both skills on sampled train items and label each pair (with policy top-up)."""
    cfg = trainer.cfg.optimizer
    n = cfg.slow_update_samples
    folder = trainer.rundir.epoch_dir("slow_update", epoch)
    order = sample_train(trainer.train_tasks, len(trainer.train_tasks), trainer.cfg.train.seed, epoch)
    chosen, cursor, pairs = order[:n], n, []
    round_no = 0
    while True:
        prev = trainer.runner.run(chosen, prev_skill, folder / f"rollout_prev{round_no or ''}", training=False, seed=trainer.cfg.train.seed + 3000 * epoch, label="slow update: previous skill")
        curr = trainer.runner.run(chosen, curr_skill, folder / f"rollout_curr{round_no or ''}", training=False, seed=trainer.cfg.train.seed + 3000 * epoch, label="slow update: current skill")
        pairs += label_pairs(prev, curr)
        if cfg.longitudinal_pair_policy != "changed":
            break
        changed = [p for p in pairs if p.label in ("improved", "regressed")]
        if len(changed) >= n or cursor >= len(order):
            break
        chosen = order[cursor : cursor + n]
        cursor += n
        round_no += 1
    if cfg.longitudinal_pair_policy == "changed":
        changed = [p for p in pairs if p.label in ("improved", "regressed")]
        rest = [p for p in pairs if p.label not in ("improved", "regressed")]
        pairs = (changed + rest)[:n]
    elif cfg.longitudinal_pair_policy == "unchanged":
        pairs = [p for p in pairs if p.label in ("persistent_fail", "stable_success")]
    return pairs


def comparison_text(pairs: list[Pair], tasks: dict[str, Task], max_chars: int, with_trajectories: bool = True) -> str:
    counts = {label: sum(1 for p in pairs if p.label == label) for label in ORDER}
    lines = ["## Same items under both skills", ", ".join(f"{k}: {v}" for k, v in counts.items())]
    budget = max_chars * 4
    for label in ORDER:
        group = [p for p in pairs if p.label == label]
        if not group:
            continue
        lines.append(f"### {label.replace('_', ' ')} ({len(group)})")
        for i, p in enumerate(group):
            if not with_trajectories or label == "stable_success" or budget <= 0:
                lines.append(f"- item {i + 1} ({p.curr.task_type}): previous {p.prev.score.hard:.0f} -> current {p.curr.score.hard:.0f}")
                continue
            prev_text = r.render_trajectory(1, p.prev, tasks.get(p.task_id), max_chars // 2)
            curr_text = r.render_trajectory(2, p.curr, None, max_chars // 2)
            block = f"#### Item {i + 1}\nPrevious skill:\n{prev_text}\nCurrent skill:\n{curr_text}"
            budget -= len(block)
            lines.append(block)
    return "\n".join(lines)


def pair_data(pairs: list[Pair]) -> list[dict]:
    return [{"task_id": p.task_id, "label": p.label, "prev": [p.prev.score.hard, p.prev.score.soft], "curr": [p.curr.score.hard, p.curr.score.soft]} for p in pairs]


def slow_update(trainer, epoch: int, ctx: OptimizerContext, prev_skill: str, pairs: list[Pair]) -> str | None:
    """The candidate skill with a new slow-update block, or None when the call failed."""
    folder = trainer.rundir.epoch_dir("slow_update", epoch)
    saved = read_json(folder / "slow_result.json")
    if saved is None:
        previous = get_block(ctx.skill, SLOW_START, SLOW_END) or "(none yet)"
        user = r.join_sections(
            "## Skill at the end of the previous epoch\n<skill>\n" + prev_skill.strip() + "\n</skill>",
            r.skill_section(ctx.skill),
            "## Previous slow-update guidance\n" + previous,
            comparison_text(pairs, trainer.task_index, trainer.cfg.gradient.max_trajectory_chars),
        )
        try:
            data = ctx.ask(stage="slow_update", system=ctx.prompt("slow_update"), user=user, schema=schemas.text_block_schema("slow_update_content"))
            saved = {"status": "ok", "content": str(data.get("slow_update_content", "")).strip(), "reasoning": data.get("reasoning", "")}
        except (SchemaError, BackendError) as exc:
            if isinstance(exc, FATAL):
                raise
            saved = {"status": "failed", "error": str(exc)}
        if saved.get("status") == "ok" and not saved.get("content"):
            saved["status"] = "no_content"
        write_json(folder / "comparison_pairs.json", pair_data(pairs))
        write_json(folder / "slow_result.json", saved)
    if saved.get("status") != "ok":
        return None
    candidate = set_block(ctx.skill, SLOW_START, SLOW_END, saved["content"])
    write_text(folder / "candidate_skill.md", candidate)
    return candidate


def meta_skill(trainer, epoch: int, ctx: OptimizerContext, prev_skill: str, pairs: list[Pair], previous_meta: str) -> str:
    folder = trainer.rundir.epoch_dir("meta_skill", epoch)
    saved = read_json(folder / "meta_skill_result.json")
    if saved is None:
        user = r.join_sections(
            "## Skill at the end of the previous epoch\n<skill>\n" + prev_skill.strip() + "\n</skill>",
            r.skill_section(ctx.skill),
            "## Previous meta skill\n" + (previous_meta or "(none yet)"),
            comparison_text(pairs, trainer.task_index, trainer.cfg.gradient.max_trajectory_chars // 2),
        )
        try:
            data = ctx.ask(stage="meta_skill", system=ctx.prompt("meta_skill"), user=user, schema=schemas.text_block_schema("meta_skill_content"))
            saved = {"status": "ok", "content": str(data.get("meta_skill_content", "")).strip()}
        except (SchemaError, BackendError) as exc:
            if isinstance(exc, FATAL):
                raise
            saved = {"status": "failed", "error": str(exc)}
        write_json(folder / "meta_skill_result.json", saved)
    return saved.get("content") or previous_meta if saved.get("status") == "ok" else previous_meta
