"""Gate calibration: false accepts under pure noise, and power under known effects.

Each decision runs the engine's real ``gate`` stage (pairing, looks with repeats,
early stops) with the real gate plugins, over a scripted *stochastic* target whose
accuracy is a known function of the skill: on item *i* the current skill answers right
with probability ``b_i`` (items differ, as real val items do: ``b_i`` is uniform in
0.5 ± spread, mean 0.5) and a candidate with ``b_i + effect``, each draw seeded by
(decision, skill, item, repeat) as a sampled LLM with a seed would be. So "+20 points"
is exactly 20 points of expected accuracy on every item; under effect 0 every accept is
a false accept.

Prints one JSON object: per gate and effect, the accept rate over N decisions and the
mean val rollouts one decision cost. Run: ``python benchmarks/gate_calibration.py``
(``--decisions 200 --items 40`` by default; about a minute on 2 cores).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import tempfile
import time
from pathlib import Path

import attrs

from skillopt.config.schema import EvaluationConfig, RunConfig
from skillopt.engine.context import Current, RunContext, RunData
from skillopt.engine.evaluation import to_evaluation
from skillopt.engine.progress import NullReporter
from skillopt.engine.rundir import RunDir
from skillopt.engine.stages.gate import gate
from skillopt.records import Rollout, Score, Task, skill_hash
from skillopt.registry import get

EFFECTS = (0.0, 0.05, 0.10, 0.20)


class StochasticTarget:
    """The gain of a skill from its text (``gain=0.20``), added to each item's base accuracy."""

    def __init__(self, items: list[Task], difficulty: dict[str, float], decision: int, deterministic: bool = False):
        self.items, self.difficulty, self.decision = items, difficulty, decision
        #: a temperature-0 target: every repeat of an item gives the same answer
        self.deterministic = deterministic
        self.rollouts = 0
        self._seen: set[tuple[str, str, int]] = set()

    def outcome(self, skill: str, item: str, repeat: int) -> float:
        q = min(1.0, self.difficulty[item] + float(skill.split("gain=")[1].split()[0]))
        draw = 0 if self.deterministic else repeat
        digest = hashlib.sha256(f"{self.decision}:{skill}:{item}:{draw}".encode()).digest()
        key = (skill_hash(skill), item, repeat)
        if key not in self._seen:
            self._seen.add(key)
            self.rollouts += 1
        return 1.0 if int.from_bytes(digest[:8], "big") / 2**64 < q else 0.0


class Evaluator:
    """The engine's evaluator contract, answered by the stochastic target (no files)."""

    def __init__(self, target: StochasticTarget):
        self.target = target

    def evaluate(self, skill, tasks, out_dir, *, split, repeats=1, label="", client=None):
        rollouts = []
        for t in tasks:
            for r in range(repeats):
                ok = self.target.outcome(skill, t.id, r)
                rollouts.append(Rollout(task_id=t.id, repeat=r, score=Score(hard=ok, soft=ok), skill_hash=skill_hash(skill)))
        return to_evaluation(skill, split, rollouts), rollouts


class NoClient:
    def for_stage(self, label: str):
        return self


def decide_once(folder: Path, gate_name: str, evaluation: EvaluationConfig, items: list[Task], decision: int, effect: float,
                spread: float, deterministic: bool) -> tuple[bool, int]:
    rng = random.Random(decision)
    difficulty = {t.id: 0.5 + rng.uniform(-spread, spread) for t in items}
    target = StochasticTarget(items, difficulty, decision, deterministic)
    cfg = attrs.evolve(RunConfig(), evaluation=evaluation)
    data = RunData(train=(), val=tuple(items), index={t.id: t for t in items}, steps_per_epoch=1, schedule_steps=1, total_steps=1)
    run = RunContext(cfg=cfg, env=None, target=NoClient(), optimizer=None, policy=None,
                     gate=get("gates", gate_name).obj(evaluation), rundir=RunDir(folder), data=data, runner=None,
                     evaluator=Evaluator(target), ledger=None, reporter=NullReporter())
    current = "# skill\ngain=0.00"
    candidate = f"# skill\ngain={effect:.2f}\n(candidate {decision})"
    result = gate(run, folder / f"d{decision}", Current(skill=current, skill_hash=skill_hash(current), score=0.0), candidate)
    return result.verdict.accepted, target.rollouts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=200)
    parser.add_argument("--items", type=int, default=40)
    parser.add_argument("--spread", type=float, default=0.25, help="items' base accuracy: uniform in 0.5 ± spread")
    parser.add_argument("--deterministic", action="store_true", help="a temperature-0 target (repeats agree)")
    args = parser.parse_args()
    items = [Task(id=f"val-{i:03d}") for i in range(args.items)]
    gates = {
        "strict (paper)": ("strict", EvaluationConfig(gate="strict")),
        "paired, one look": ("paired", EvaluationConfig(gate="paired", gate_max_repeats=1)),
        "paired, no race (gate_race_rounds=1)": ("paired", EvaluationConfig(gate="paired", gate_race_rounds=1)),
        "paired (default: raced first pass, looks up to 3 repeats)": ("paired", EvaluationConfig(gate="paired")),
    }
    started = time.monotonic()
    table: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, (name, evaluation) in gates.items():
            row = {}
            for effect in EFFECTS:
                accepted = cost = 0
                for d in range(args.decisions):
                    ok, rollouts = decide_once(Path(tmp) / f"{name}-{evaluation.gate_max_repeats}-{evaluation.gate_race_rounds}-{effect}", name, evaluation,
                                               items, d, effect, args.spread, args.deterministic)
                    accepted += ok
                    cost += rollouts
                row[f"+{round(effect * 100)} points"] = {"accept_rate": round(accepted / args.decisions, 3),
                                                         "val_rollouts_per_decision": round(cost / args.decisions, 1)}
            table[label] = row
    print(json.dumps({"decisions_per_cell": args.decisions, "val_items": args.items, "item_accuracy_spread": args.spread,
                      "deterministic_target": args.deterministic,
                      "gates": table, "seconds": round(time.monotonic() - started, 1)}, indent=2))


if __name__ == "__main__":
    main()
