"""Racing on the gate set: val calls saved on rejected candidates, and decisions kept.

Each decision is made twice by the engine's real ``gate`` stage with the ``paired``
gate over the same scripted stochastic target (``gate_calibration.py``: item *i* is
answered right with probability ``b_i`` under the current skill and ``b_i + effect``
under the candidate, each draw seeded by decision, skill, item and repeat): once with
the candidate's first pass raced in ``--rounds`` rounds of val items, once over every
item at once (``gate_race_rounds = 1``). Same draws, so any difference is the race's.

Reports per effect and for the whole mix (effects -20 … +20 points, as an optimizer's
candidates range from harmful to helpful): how often the two decisions agree, the
candidate's val rollouts per rejected candidate with and without the race, and the
share saved. Also a sweep of ``gate_race_futility``.
Run: ``python benchmarks/gate_racing.py`` (``--decisions 200 --items 40``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

import attrs

from skillopt.config.schema import EvaluationConfig, RunConfig
from skillopt.engine.context import Current, RunContext, RunData
from skillopt.engine.progress import NullReporter
from skillopt.engine.rundir import RunDir
from skillopt.engine.stages.gate import gate
from skillopt.records import Task, skill_hash
from skillopt.registry import get

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gate_calibration import Evaluator, NoClient, StochasticTarget

EFFECTS = (-0.20, -0.10, 0.0, 0.10, 0.20)


def decide(folder: Path, evaluation: EvaluationConfig, items: list[Task], decision: int, effect: float, spread: float
           ) -> tuple[bool, int]:
    """(accepted, the candidate's val rollouts) of one gate decision."""
    rng = random.Random(decision)
    difficulty = {t.id: 0.5 + rng.uniform(-spread, spread) for t in items}
    target = StochasticTarget(items, difficulty, decision)
    cfg = attrs.evolve(RunConfig(), evaluation=evaluation)
    data = RunData(train=(), val=tuple(items), index={t.id: t for t in items}, steps_per_epoch=1, schedule_steps=1, total_steps=1)
    run = RunContext(cfg=cfg, env=None, target=NoClient(), optimizer=None, policy=None, gate=get("gates", "paired").obj(evaluation),
                     rundir=RunDir(folder), data=data, runner=None, evaluator=Evaluator(target), ledger=None,
                     reporter=NullReporter())
    current = "# skill\ngain=0.00"
    candidate = f"# skill\ngain={effect:.2f}\n(candidate {decision})"
    result = gate(run, folder / f"d{decision}", Current(skill=current, skill_hash=skill_hash(current), score=0.0), candidate)
    mine = skill_hash(candidate)
    return result.verdict.accepted, sum(1 for key in target._seen if key[0] == mine)


def compare(tmp: Path, items, decisions: int, spread: float, rounds: int, futility: float) -> dict:
    raced_cfg = EvaluationConfig(gate="paired", gate_race_rounds=rounds, gate_race_futility=futility)
    full_cfg = EvaluationConfig(gate="paired", gate_race_rounds=1)
    per_effect, totals = {}, {"agree": 0, "n": 0, "rej_raced": 0, "rej_full": 0, "rejected": 0}
    for effect in EFFECTS:
        agree = rejected = cost_raced = cost_full = accepts_raced = accepts_full = 0
        for d in range(decisions):
            folder = tmp / f"{rounds}-{futility}-{effect}"
            ok_r, n_r = decide(folder / "raced", raced_cfg, items, d, effect, spread)
            ok_f, n_f = decide(folder / "full", full_cfg, items, d, effect, spread)
            agree += ok_r == ok_f
            accepts_raced += ok_r
            accepts_full += ok_f
            if not ok_r:
                rejected += 1
                cost_raced += n_r
                cost_full += n_f
        per_effect[f"{round(effect * 100):+d} points"] = {
            "agree": round(agree / decisions, 3), "accept_rate_raced": round(accepts_raced / decisions, 3),
            "accept_rate_full": round(accepts_full / decisions, 3),
            "candidate_rollouts_per_rejection_raced": round(cost_raced / max(rejected, 1), 1),
            "candidate_rollouts_per_rejection_full": round(cost_full / max(rejected, 1), 1),
        }
        totals["agree"] += agree
        totals["n"] += decisions
        totals["rej_raced"] += cost_raced
        totals["rej_full"] += cost_full
        totals["rejected"] += rejected
    return {"per_effect": per_effect, "mix": {
        "agree": round(totals["agree"] / totals["n"], 3),
        "saved_on_rejections": round(1 - totals["rej_raced"] / max(totals["rej_full"], 1), 3)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=200)
    parser.add_argument("--items", type=int, default=40)
    parser.add_argument("--spread", type=float, default=0.25)
    parser.add_argument("--rounds", type=int, default=EvaluationConfig().gate_race_rounds)
    parser.add_argument("--sweep", default="0.1,0.2,0.3", help="gate_race_futility values for the mix-only sweep")
    args = parser.parse_args()
    items = [Task(id=f"val-{i:03d}") for i in range(args.items)]
    started = time.monotonic()
    default = EvaluationConfig().gate_race_futility
    with tempfile.TemporaryDirectory() as tmp:
        main_table = compare(Path(tmp), items, args.decisions, args.spread, args.rounds, default)
        sweep = {}
        for value in (float(x) for x in args.sweep.split(",") if x):
            if value != default:
                sweep[str(value)] = compare(Path(tmp), items, max(40, args.decisions // 4), args.spread, args.rounds, value)["mix"]
    print(json.dumps({"decisions_per_effect": args.decisions, "val_items": args.items, "rounds": args.rounds,
                      "futility": default, **main_table, "futility_sweep_mix": sweep,
                      "seconds": round(time.monotonic() - started, 1)}, indent=2))


if __name__ == "__main__":
    main()
