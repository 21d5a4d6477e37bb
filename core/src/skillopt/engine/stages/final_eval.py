"""``final_eval``: after training, the final skill against the best on val, and the
initial, best and final skills on test with a per-task-type breakdown.

The final skill (the current one when training ends) can differ from the best: if
its val score beats the best's it is promoted. Each distinct skill is evaluated on
test once, on the same items with the same per-item seeds.
"""

from __future__ import annotations

import hashlib

from skillopt.records import skill_hash
from skillopt.results import SplitScore
from skillopt.engine.context import Current, RunContext
from skillopt.engine.evaluation import breakdown, to_evaluation
from skillopt.engine.resumable import resumable
from skillopt.engine.stages.records import FinalEvalResult
from skillopt.engine.subsets import subset

STAGE = "final_eval"


def final_eval(run: RunContext, current: Current, *, initial: str, best: str, best_score: float) -> FinalEvalResult:
    cfg = run.cfg
    folder = run.rundir.root / STAGE
    key = hashlib.sha256(f"{current.skill_hash}\x1f{skill_hash(initial)}\x1f{skill_hash(best)}\x1f{best_score}".encode()).hexdigest()[:20]

    def compute() -> FinalEvalResult:
        promote = False
        initial_val = run.evaluate_val(initial, run.rundir.root / "gate_baseline", "val: initial skill", stage=STAGE)
        final_val = run.evaluate_val(current.skill, folder / "val_final", "val: final skill", stage=STAGE)
        final_score = run.gate.score(final_val)
        if current.skill_hash != skill_hash(best) and final_score > best_score:
            promote = True
        chosen_best = current.skill if promote else best
        tasks = subset(run.env.tasks("test"), cfg.evaluation.test_env_num, cfg.train.seed)
        client = run.target.for_stage(STAGE)
        test: dict[str, SplitScore] = {}
        seen: dict[str, SplitScore] = {}
        for name, skill in (("initial", initial), ("best", chosen_best), ("final", current.skill)):
            h = skill_hash(skill)
            if h not in seen:
                run.reporter.phase(f"test: {name} skill")
                _, rollouts = run.evaluator.evaluate(skill, tasks, folder / f"test_{name}", split="test",
                                                      label=f"test: {name} skill", client=client)
                evaluation = to_evaluation(skill, "test", rollouts)
                seen[h] = SplitScore(hard=evaluation.hard, soft=evaluation.soft, n=evaluation.n, skill_hash=h,
                                     excluded=len(evaluation.missing), by_task_type=breakdown(rollouts))
            test[name] = seen[h]
        return FinalEvalResult(initial_val_score=run.gate.score(initial_val), final_val_score=final_score, final_hard=final_val.hard, final_soft=final_val.soft,
                               promote_final=promote, test=test)

    return resumable(folder / "result.json", FinalEvalResult, key, compute)
