"""Hill climbing against a Pareto pool, on a skill-sensitive toy with a stochastic target.

The toy env (core/tests/toy.py) asks for one of four word transformations; a scripted
*stochastic* target answers right with probability 0.25, or 0.85 when the skill holds
the rule of the item's kind, each draw seeded by the item's seed and the prompt (a
sampled model with a seed). Two rules interfere (``RULE-upper`` with ``RULE-vowels``:
both kinds fall back to 0.25), so no skill is best on every item. The scripted
optimizer proposes the rules of the kinds it sees failing, one per step.

For each seed both strategies run the same config; the script reports each run's best
val score, the target calls the run had made when it first reached that score, and for
the pool the target calls it needed to reach the hill climber's best (the acceptance
goal: at most 0.7 of the hill climber's). Run: ``python benchmarks/search_pool.py``
(``--seeds 5 --epochs 2``; about a minute on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "core" / "tests"))

from engine_helpers import make_trainer  # noqa: E402
from toy import solve, toy_optimizer  # noqa: E402


def stochastic_target(request):
    system, user = request.messages[0].content, request.messages[-1].content
    kind = re.search(r"Puzzle kind: (\w+)", user).group(1)
    word = re.search(r"Word: (\w+)", user).group(1)
    clash = "RULE-upper" in system and "RULE-vowels" in system and kind in ("upper", "vowels")
    p = 0.85 if f"RULE-{kind}" in system and not clash else 0.25
    draw = random.Random(f"{request.seed}:{system}:{user}").random()
    return solve(kind, word) if draw < p else "no idea"


def one_run(out: Path, strategy: str, seed: int, epochs: int) -> dict:
    trainer = make_trainer(out, target_script=stochastic_target, optimizer_script=toy_optimizer(), num_epochs=epochs,
                           train={"seed": seed, "batch_size": 8}, env={"n_train": 32, "n_val": 32, "n_test": 32, "workers": 8},
                           optimizer={"learning_rate": 1, "min_learning_rate": 1, "rejected_ledger": False},
                           evaluation={"eval_test": False}, search={"strategy": strategy, "pool_size": 4})
    summary = trainer.train()
    history = json.loads((out / "history.json").read_text())
    target_calls_at: dict[int, int] = {}  # target requests made by the end of each step
    running = 0
    for line in (out / "usage.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row[0] == "b" and str(row[1]).startswith("target/"):
            running += 1
            scope = str(row[2])
            if scope.startswith("step "):
                target_calls_at[int(scope.split()[1])] = running
    scores = [(h["step"], h.get("current_score", 0.0)) for h in history]
    return {"best_val": summary.val.best_gate_score, "target_calls": summary.usage.role("target").requests, "scores": scores,
            "calls_at_step": target_calls_at, "pool": [m.origin for m in trainer.state.pool]}


def calls_to_reach(run: dict, target: float) -> int | None:
    for step, score in run["scores"]:
        if score >= target - 1e-9:
            return run["calls_at_step"].get(step)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    started = time.monotonic()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seeds):
            hill = one_run(Path(tmp) / f"hill-{seed}", "hill", seed, args.epochs)
            pool = one_run(Path(tmp) / f"pareto-{seed}", "pareto", seed, args.epochs)
            hill_calls = calls_to_reach(hill, hill["best_val"])
            pool_calls = calls_to_reach(pool, hill["best_val"])
            rows.append({"seed": seed, "hill_best": hill["best_val"], "pareto_best": pool["best_val"],
                         "hill_calls_to_its_best": hill_calls, "pareto_calls_to_hill_best": pool_calls,
                         "ratio": round(pool_calls / hill_calls, 3) if pool_calls and hill_calls else None,
                         "hill_total_calls": hill["target_calls"], "pareto_total_calls": pool["target_calls"],
                         "pareto_final_pool": pool["pool"]})
    ratios = [r["ratio"] for r in rows if r["ratio"] is not None]
    print(json.dumps({
        "runs": rows,
        "reached_hill_best": f"{sum(1 for r in rows if r['pareto_calls_to_hill_best'] is not None)} of {len(rows)}",
        "median_ratio_of_target_calls": statistics.median(ratios) if ratios else None,
        "mean_best_val": {"hill": round(statistics.mean(r["hill_best"] for r in rows), 3),
                          "pareto": round(statistics.mean(r["pareto_best"] for r in rows), 3)},
        "seconds": round(time.monotonic() - started, 1)}, indent=2))


if __name__ == "__main__":
    main()
