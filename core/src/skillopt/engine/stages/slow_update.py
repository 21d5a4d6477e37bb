"""``slow_update``: longitudinal guidance at an epoch boundary.

The skill at the end of the previous epoch and the skill now are rolled out on the
same sampled train items; each item is labelled (improved, regressed, persistent
fail, stable success) and the optimizer writes guidance into a protected block at the
end of the skill. The candidate is gated like a step's (or force-accepted, the
default as upstream, with its val score re-measured so the current score never
describes a skill that no longer exists).
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

from skillopt.engine.context import Current, RunContext
from skillopt.engine.resumable import resumable
from skillopt.engine.seeds import derive_seed
from skillopt.engine.stages.records import Pair, SlowUpdateResult
from skillopt.errors import SchemaError
from skillopt.policies import render as r, schemas
from skillopt.records import Rollout, Task
from skillopt.serde import dumps
from skillopt.skilldoc import SLOW_END, SLOW_START, get_block, set_block

STAGE = "slow_update"
LABELS = {(0, 1): "improved", (1, 0): "regressed", (0, 0): "persistent_fail", (1, 1): "stable_success"}
ORDER = ("regressed", "persistent_fail", "improved", "stable_success")


def label_pairs(prev: list[Rollout], curr: list[Rollout]) -> list[Pair]:
    by_id = {ro.task_id: ro for ro in curr if not ro.missing}
    pairs = []
    for p in prev:
        c = by_id.get(p.task_id)
        if c is None or p.missing:
            continue
        key = (int(p.score.hard >= 0.5), int(c.score.hard >= 0.5))
        pairs.append(Pair(task_id=p.task_id, label=LABELS[key], prev=p, curr=c))
    return pairs


def comparison_pairs(run: RunContext, epoch: int, prev_skill: str, curr_skill: str) -> list[Pair]:
    """Both skills on sampled train items, labelled (topped up with changed items under
    ``longitudinal_pair_policy=changed``). Rollouts are item-logged, so this is free
    to recompute on resume."""
    o = run.cfg.optimizer
    n = o.slow_update_samples
    folder = run.rundir.epoch_dir(STAGE, epoch)
    order = list(run.data.train)
    random.Random(derive_seed(run.seed, "slow_update_sample", epoch)).shuffle(order)
    chosen, cursor, pairs, round_no = order[:n], n, [], 0
    seed = derive_seed(run.seed, STAGE, epoch)
    client = run.target.for_stage(STAGE)
    while True:
        suffix = str(round_no or "")
        prev = run.runner.run(chosen, prev_skill, folder / f"rollout_prev{suffix}", training=False, seed=seed,
                              label="slow update: previous skill", client=client)
        curr = run.runner.run(chosen, curr_skill, folder / f"rollout_curr{suffix}", training=False, seed=seed,
                              label="slow update: current skill", client=client)
        pairs += label_pairs(prev, curr)
        if o.longitudinal_pair_policy != "changed":
            break
        changed = [p for p in pairs if p.label in ("improved", "regressed")]
        if len(changed) >= n or cursor >= len(order):
            break
        chosen = order[cursor : cursor + n]
        cursor += n
        round_no += 1
    if o.longitudinal_pair_policy == "changed":
        changed = [p for p in pairs if p.label in ("improved", "regressed")]
        pairs = (changed + [p for p in pairs if p not in changed])[:n]
    elif o.longitudinal_pair_policy == "unchanged":
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


def pair_rows(pairs: list[Pair]) -> list[dict[str, Any]]:
    return [{"task_id": p.task_id, "label": p.label, "prev": [p.prev.score.hard, p.prev.score.soft],
             "curr": [p.curr.score.hard, p.curr.score.soft]} for p in pairs]


def pairs_key(prev_skill: str, current: Current, pairs: list[Pair], extra: str = "") -> str:
    text = "\x1f".join([hashlib.sha256(prev_skill.encode()).hexdigest(), current.skill_hash, current.meta_skill, extra,
                        dumps(pair_rows(pairs), indent=None)])
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def slow_update(run: RunContext, epoch: int, current: Current, prev_skill: str, pairs: list[Pair]) -> SlowUpdateResult:
    """The slow-update proposal (``status`` ok, failed or no_content) and its candidate."""
    folder: Path = run.rundir.epoch_dir(STAGE, epoch)

    def compute() -> SlowUpdateResult:
        ctx = run.optimizer_context(current, stage=STAGE, budget=None, seed=derive_seed(run.seed, "optimizer", STAGE, epoch))
        previous = get_block(current.skill, SLOW_START, SLOW_END) or "(none yet)"
        user = r.join_sections(
            "## Skill at the end of the previous epoch\n<skill>\n" + prev_skill.strip() + "\n</skill>",
            r.skill_block(ctx, current.skill),
            "## Previous slow-update guidance\n" + previous,
            comparison_text(pairs, run.data.index, run.cfg.gradient.max_trajectory_chars),
        )
        try:
            data = ctx.ask(stage="slow_update", system=ctx.prompt("slow_update"), user=user,
                           schema=schemas.text_block_schema("slow_update_content"))
        except SchemaError as exc:
            return SlowUpdateResult(status="failed", error=str(exc))
        content = str(data.get("slow_update_content", "")).strip()
        if not content:
            return SlowUpdateResult(status="no_content", reasoning=str(data.get("reasoning", "")))
        candidate = set_block(current.skill, SLOW_START, SLOW_END, content)
        return SlowUpdateResult(status="ok", content=content, reasoning=str(data.get("reasoning", "")), candidate=candidate)

    def views(res: SlowUpdateResult) -> dict[str, str]:
        import json

        shown = {"comparison_pairs.json": json.dumps(pair_rows(pairs), indent=2) + "\n"}
        if res.candidate:
            shown["candidate_skill.md"] = res.candidate
        return shown

    return resumable(folder / "result.json", SlowUpdateResult, pairs_key(prev_skill, current, pairs), compute, views=views)
