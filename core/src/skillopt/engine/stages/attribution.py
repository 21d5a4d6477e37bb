"""``attribution``: after an accepted step, which of its edits changed which val items.

An accepted candidate carries several edits and the gate only says the whole beat the
current skill. Attribution asks, for each applied edit, what the candidate does
without it (leave-one-out) on the val items the step flipped: an item the candidate
gets right and the candidate-minus-edit gets wrong was fixed by that edit. It runs
only on flipped items and within ``evaluation.attribution_rollouts`` rollouts per
step, so it costs a known, small number of calls; ``skillopt blame`` reads it. A
leave-one-out skill the gate has already scored (a step of one edit: without it, the
skill is the current one) is read from the gate's rollouts, not rolled out again.
"""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor

from skillopt.engine.context import Current, RunContext, StepPlan
from skillopt.engine.resumable import resumable
from skillopt.engine.stages.records import ApplyResult, Attribution, EditEffect
from skillopt.records import Patch, skill_hash
from skillopt.serde import dumps

STAGE = "attribution"
#: edits attributed at most (the budget is split over them)
MAX_EDITS = 8


def flipped_items(current: dict[str, float], candidate: dict[str, float]) -> tuple[list[str], list[str]]:
    """(items the candidate fixed, items it broke), by paired per-item score."""
    shared = sorted(current.keys() & candidate.keys())
    fixed = [i for i in shared if candidate[i] > current[i] + 1e-9]
    broke = [i for i in shared if candidate[i] < current[i] - 1e-9]
    return fixed, broke


def attribute(run: RunContext, plan: StepPlan, current: Current, candidate: str, applied: ApplyResult) -> Attribution | None:
    """The step's attribution (saved as ``steps/step_NNNN/attribution.json``), or None when
    it is off or the policy does not edit (rewrites have no edits to leave out)."""
    budget = run.cfg.evaluation.attribution_rollouts
    edits = [res.edit for res in applied.results if res.status == "applied"][:MAX_EDITS]
    if budget <= 0 or not edits or not run.policy.edits_skill:
        return None
    key = hashlib.sha256(f"{current.skill_hash}\x1f{hashlib.sha256(candidate.encode()).hexdigest()}\x1f{budget}\x1f"
                         f"{dumps(edits, indent=None)}".encode()).hexdigest()[:20]

    def compute() -> Attribution:
        metric, weight = run.cfg.evaluation.gate_metric, run.cfg.evaluation.gate_mixed_weight
        cur = run.evaluate_val(current.skill, run.step_dir(plan) / "gate" / "current", "val: current skill", repeats=1)
        cand = run.evaluate_val(candidate, run.step_dir(plan) / "gate", "val: candidate", repeats=1)
        cur_scores, cand_scores = cur.item_metric(metric, weight), cand.item_metric(metric, weight)
        fixed, broke = flipped_items(cur_scores, cand_scores)
        per_edit = max(1, budget // len(edits))
        items = (fixed + broke)[:per_edit]  # fixes first: what the step was accepted for
        tasks = [run.data.index[i] for i in items if i in run.data.index]
        ctx = run.optimizer_context(current, stage=STAGE, budget=None, seed=run.step_seed(plan, "optimizer"))

        #: skills already scored on these items by the gate (same items, same per-item seeds):
        #: a leave-one-out skill equal to one of them is read, not rolled out again
        known = {current.skill_hash: cur_scores, cand.skill_hash: cand_scores}
        paid: list[int] = []

        def leave_out(index: int) -> EditEffect:
            edit = edits[index]
            others = tuple(e for j, e in enumerate(edits) if j != index)
            without, _, _ = run.policy.apply(ctx, current.skill, Patch(edits=others, source_type="failure"))
            scores: dict[str, float] = {}
            if skill_hash(without) in known:  # one edit: without it is the current skill
                scores = {i: known[skill_hash(without)][i] for i in items if i in known[skill_hash(without)]}
            elif tasks:
                paid.append(len(tasks))
                evaluation, _ = run.evaluator.evaluate(without, tasks, run.step_dir(plan) / STAGE / f"without_{index}", split="val",
                                                       label=f"attribution: without edit {index + 1}",
                                                       client=run.target.for_stage(STAGE))
                scores = evaluation.item_metric(metric, weight)
            deltas = {i: cand_scores[i] - scores[i] for i in scores}
            return EditEffect(
                index=index, op=edit.op, target=edit.target, content=edit.content,
                helped=tuple(i for i, d in deltas.items() if d > 1e-9), hurt=tuple(i for i, d in deltas.items() if d < -1e-9),
                effect=round(sum(deltas.values()) / len(deltas), 4) if deltas else None, evaluated=len(deltas),
            )

        # the leave-one-out skills are independent: side by side, within the runner's workers
        with ThreadPoolExecutor(max_workers=len(edits)) as pool:
            effects = list(pool.map(leave_out, range(len(edits))))
        return Attribution(fixed=tuple(fixed), broke=tuple(broke), items=tuple(items), edits=tuple(effects),
                           rollouts=sum(paid), metric=metric)

    return resumable(run.step_dir(plan) / "attribution.json", Attribution, key, compute)


