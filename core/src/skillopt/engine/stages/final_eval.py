"""``final_eval``: after training, the final skill against the best on val, and the
initial, best and final skills on test with a per-task-type breakdown.

The final skill (the current one when training ends) can differ from the best: if
its val score beats the best's it is promoted. The initial, best and final skills are
measured on val the same way (every item, items missing earlier asked again), so the
figures the run ends with compare like with like: a baseline that lost items to provider
errors is never compared with a full re-measurement of the same skill. Each distinct skill is evaluated on
test once, on the same items with the same per-item seeds; evaluations that do not
depend on each other run side by side within the runner's workers.
"""

from __future__ import annotations

import hashlib
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from skillopt.engine.context import Current, RunContext
from skillopt.engine.evaluation import breakdown, to_evaluation
from skillopt.engine.lift import item_differences
from skillopt.engine.resumable import resumable
from skillopt.engine.rundir import RunFileError, read_json
from skillopt.engine.stages.records import FinalEvalResult
from skillopt.engine.subsets import subset
from skillopt.records import Rollout, Task, skill_hash
from skillopt.results import SplitScore

STAGE = "final_eval"


def final_eval(run: RunContext, current: Current, *, initial: str, best: str, best_score: float,
               promotion: bool = True) -> FinalEvalResult:
    """``promotion=False``: the best skill was picked on a selection split (see
    :mod:`skillopt.engine.selection`), so a final skill with a higher val score does not
    replace it."""
    folder = run.rundir.root / STAGE
    ident = f"{current.skill_hash}\x1f{skill_hash(initial)}\x1f{skill_hash(best)}\x1f{best_score}" + ("" if promotion else "\x1fpicked")
    key = hashlib.sha256(ident.encode()).hexdigest()[:20]

    def compute() -> FinalEvalResult:
        tasks = test_tasks(run)
        client = run.target.for_stage(STAGE)
        seen: dict[str, Future[Any]] = {}

        def on_test(pool: ThreadPoolExecutor, name: str, skill: str) -> Future[Any]:
            h = skill_hash(skill)
            if h not in seen:
                seen[h] = pool.submit(test_score, run, skill, tasks, folder / f"test_{name}", f"test: {name} skill", client)
            return seen[h]

        # what does not depend on the promotion runs side by side (the runner's workers are
        # shared, so together they use no more): the initial skill on val and test, the
        # final skill on val; then the best and final skills on test
        with ThreadPoolExecutor(max_workers=3) as pool:
            run.reporter.phase("final evaluation: val and test")
            initial_test = on_test(pool, "initial", initial)
            initial_val = pool.submit(run.evaluate_val, initial, run.rundir.root / "gate_baseline", "val: initial skill", stage=STAGE)
            best_hash = skill_hash(best)
            best_val = None if best_hash in (skill_hash(initial), current.skill_hash) else pool.submit(
                run.evaluate_val, best, folder / "val_best", "val: best skill", stage=STAGE)  # memoised: its gate's rollouts
            final_val = run.evaluate_val(current.skill, folder / "val_final", "val: final skill", stage=STAGE)
            final_score = run.gate.score(final_val)
            if best_hash == current.skill_hash:
                best_now = final_score
            else:
                best_now = run.gate.score((best_val or initial_val).result())
            promote = promotion and current.skill_hash != best_hash and final_score > best_now
            chosen_best = current.skill if promote else best
            jobs = {"initial": initial_test, "best": on_test(pool, "best", chosen_best), "final": on_test(pool, "final", current.skill)}
            done = {name: job.result() for name, job in jobs.items()}
            initial_score = run.gate.score(initial_val.result())
        return FinalEvalResult(initial_val_score=initial_score, final_val_score=final_score, final_hard=final_val.hard,
                               final_soft=final_val.soft, promote_final=promote, test={k: v[0] for k, v in done.items()},
                               test_item_lift=item_differences(done["initial"][1], done["best"][1]),
                               best_val_score=final_score if promote else best_now)

    return resumable(folder / "result.json", FinalEvalResult, key, compute)


def test_tasks(run: RunContext) -> list[Task]:
    return subset(run.env.tasks("test"), run.cfg.evaluation.test_env_num, run.cfg.train.seed)


def initial_test(run: RunContext, initial: str) -> None:
    """The initial skill on test exactly as :func:`final_eval` runs it (same folder, items,
    seeds and label), for a run that starts it early: the final evaluation then finds it."""
    test_score(run, initial, test_tasks(run), run.rundir.root / STAGE / "test_initial", "test: initial skill",
               run.target.for_stage(STAGE))


def test_score(run: RunContext, skill: str, tasks: list[Task], folder: Path, label: str,
               client: Any) -> tuple[SplitScore, list[Rollout]]:
    _, rollouts = run.evaluator.evaluate(skill, tasks, folder, split="test", label=label, client=client)
    evaluation = to_evaluation(skill, "test", rollouts)
    return SplitScore(hard=evaluation.hard, soft=evaluation.soft, n=evaluation.n, skill_hash=evaluation.skill_hash,
                      excluded=len(evaluation.missing), by_task_type=breakdown(rollouts)), rollouts


def saved_item_lift(run_dir: Path) -> dict[str, float]:
    """A finished run's per-item test lift (best minus initial), for pooling over seeds."""
    try:
        saved = read_json(Path(run_dir) / STAGE / "result.json", {}, expect=dict) or {}
    except RunFileError:
        return {}
    result = saved.get("result") if saved.get("complete") is True else None
    return dict((result or {}).get("test_item_lift") or {})
