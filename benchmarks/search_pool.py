"""Search per dollar: hill, the Pareto pool and the proposal samplers on SearchQA.

The workload is the bundled SearchQA sample (60 train / 40 val / 100 test items, three
task types: ``verbatim``, ``distractor``, ``noncanonical``) through the real engine (its
rollout, reflect, merge, select, apply and paired gate with racing, attribution), with a
scripted *stochastic* target whose accuracy is a known function of the skill, in the
style of ``gate_calibration.py``: item *i* is answered right with probability
``base_i + the gains of the rules in the skill that apply to it`` (``base_i`` uniform in
0.20..0.50, seeded by the item), each draw seeded by the request's seed and the skill's
rules, as a sampled model with a seed would be. Useful rules raise their task type's
accuracy (distractor +0.40, noncanonical +0.40, verbatim +0.30, an answer-format rule
+0.05 on every item); harmful rules lower it (``surname only`` −0.30 on person answers,
``first snippet`` −0.25 on distractors); neutral rules do nothing.

The scripted analyst reads the failed trajectories of its minibatch and proposes the
rule of each task type it sees failing (unless the skill has it), and, with probability
``--harmful`` per analyst call (seeded by its prompt), a harmful rule *first* (the
optimizer is sure of it), and with probability 0.3 a neutral rule. The merge is the
union in order and the ranking keeps the first edits up to the budget, so a harmful
rule often reaches the candidate, as with a real optimizer that misreads its evidence.

Per seed, every method runs the same config (batch 12, minibatch 4, learning rate 2 →
1, 3 epochs = 15 steps, default paired gate; the cross-run rejected-edit ledger off so
seeds stay independent) and the curves are cut at the same budget of **target calls**:
the hill climber's total for the seed. For each run the script records, after each step,
the target calls spent so far and the run's best skill; a skill's *true* accuracy on val
and test is computed from the target's probabilities (no sampling noise, and no winner's
curse: a raced winner's val score is optimistic, its true accuracy is not). Printed:
per method, the mean curve (true test accuracy of the best skill against target calls),
the calls to reach the hill climber's final true val accuracy, and the final true test
accuracy at the common budget, with the number of seeds where the goal was met.

    python benchmarks/search_pool.py --seeds 10 [--harmful 0.35] [--out DIR] [--methods hill,pareto,...]
    python benchmarks/search_pool.py --report DIR       # aggregate saved runs (chunks may run separately)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: rule token -> (what the analyst writes, {task type or answer type or '*': gain})
RULES = {
    "RULE-DISTRACTOR": ("check every detail of the clue (year, place, object) against the snippet before answering",
                        {"distractor": 0.40}),
    "RULE-NONCANON": ("rewrite the name in its usual full form, without titles", {"noncanonical": 0.40}),
    "RULE-VERBATIM": ("copy the name exactly as the matching snippet writes it", {"verbatim": 0.30}),
    "RULE-FORMAT": ("end with one line 'Answer: <name>'", {"*": 0.05}),
}
HARMFUL = {
    "RULE-SURNAME": ("answer with the surname only, it is shorter", {"person": -0.30}),
    "RULE-FIRST": ("when unsure, take the first snippet's name", {"distractor": -0.25}),
}
NEUTRAL = {"RULE-CONCISE": ("keep the reasoning short", {}), "RULE-CALM": ("read the clue calmly", {})}
BY_TYPE = {"distractor": "RULE-DISTRACTOR", "noncanonical": "RULE-NONCANON", "verbatim": "RULE-VERBATIM"}
EFFECTS = {**{k: v[1] for k, v in RULES.items()}, **{k: v[1] for k, v in HARMFUL.items()}, **{k: v[1] for k, v in NEUTRAL.items()}}
TEXT = {**{k: v[0] for k, v in RULES.items()}, **{k: v[0] for k, v in HARMFUL.items()}, **{k: v[0] for k, v in NEUTRAL.items()}}

METHODS = {
    "hill": {"strategy": "hill"},
    "pareto": {"strategy": "pareto", "pool_size": 4},
    "minibatches-3": {"strategy": "hill", "proposals": 3, "sampler": "minibatches"},
    "edit-subsets-3": {"strategy": "hill", "proposals": 3, "sampler": "edit-subsets"},
    "edit-subsets-2": {"strategy": "hill", "proposals": 2, "sampler": "edit-subsets"},
}


# --------------------------------------------------------------------------- the workload


def load_items() -> dict[str, list[dict]]:
    folder = ROOT / "skillopt-envs-searchqa" / "src" / "skillopt_envs_searchqa" / "data" / "sample"
    return {split: json.loads((folder / f"{split}.json").read_text()) for split in ("train", "val", "test")}


def base_rate(item_id: str) -> float:
    return 0.20 + 0.30 * int(hashlib.sha256(item_id.encode()).hexdigest()[:8], 16) / 16**8


def probability(item: dict, skill: str) -> float:
    """The target's chance of answering ``item`` right under ``skill`` (rules by token)."""
    p = base_rate(item["id"])
    for token, gains in EFFECTS.items():
        if token in skill:
            p += gains.get("*", 0.0) + gains.get(item.get("task_type", ""), 0.0) + gains.get(item.get("answer_type", ""), 0.0)
    return min(0.98, max(0.02, p))


def true_accuracy(items: list[dict], skill: str) -> float:
    return sum(probability(i, skill) for i in items) / len(items)


def rules_in(skill: str) -> str:
    return ",".join(t for t in EFFECTS if t in skill)


def make_target(by_question: dict[str, dict]):
    def target(request):
        system, user = request.messages[0].content, request.messages[-1].content
        question = re.search(r"^Clue: (.*)$", user, re.MULTILINE)
        item = by_question.get(question.group(1).strip()) if question else None
        if item is None:
            return "Answer: unknown"
        draw = random.Random(f"{request.seed}:{rules_in(system)}:{item['id']}").random()
        return f"Answer: {item['answers'][0]}" if draw < probability(item, system) else "Answer: unknown"

    return target


def make_optimizer(harmful: float):
    from skillopt.scripted import minimal_instance

    def script(request):
        text = "\n".join(m.content for m in request.messages)
        if request.stage == "analyst":
            failed = text.split("## Failed trajectories", 1)
            if len(failed) < 2:
                return {"reasoning": "nothing new", "edits": [], "success_patterns": []}
            skill = text.split("## Failed trajectories", 1)[0]
            kinds = sorted(set(re.findall(r"### Trajectory \d+ \(task type: (\w+);", failed[1])) & set(BY_TYPE))
            tokens = [BY_TYPE[k] for k in kinds if BY_TYPE[k] not in skill]
            rng = random.Random(hashlib.sha256(text.encode()).hexdigest())
            if "RULE-FORMAT" not in skill and rng.random() < 0.3:
                tokens.append("RULE-FORMAT")
            if rng.random() < harmful:
                tokens.insert(0, rng.choice(sorted(HARMFUL)))
            if rng.random() < 0.3:
                tokens.append(rng.choice(sorted(NEUTRAL)))
            budget = re.search(r"Propose at most (\d+) edits", text)
            tokens = tokens[: int(budget.group(1))] if budget else tokens
            edits = [{"op": "append", "content": f"- {t}: {TEXT[t]}."} for t in tokens]
            return {"reasoning": "rules for what failed", "edits": edits,
                    "failure_summary": [{"failure_type": "missing rule", "description": ", ".join(kinds)}]}
        if request.stage == "merge":
            seen, edits, decoder = set(), [], json.JSONDecoder()
            for chunk in text.split("### Proposal")[1:]:
                for e in decoder.raw_decode(chunk[chunk.index("["):])[0]:
                    if e["content"] not in seen:
                        seen.add(e["content"])
                        edits.append({"op": e["op"], "content": e["content"], "target": e.get("target") or ""})
            return {"reasoning": "union", "edits": edits}
        if request.stage == "ranking":
            n = len(re.findall(r"^\[\d+\]", text, re.MULTILINE))
            budget = int(re.search(r"Keep at most (\d+)", text).group(1))
            return {"reasoning": "in order", "selected_indices": list(range(n))[:budget]}
        return minimal_instance(request.json_schema) if request.json_schema is not None else "ok"

    return script


# --------------------------------------------------------------------------- one run


def one_run(out: Path, method: str, seed: int, harmful: float, epochs: int) -> dict:
    import attrs

    from skillopt.calls import Ledger, ModelClient
    from skillopt.config.schema import RunConfig
    from skillopt.engine.session import build_executor
    from skillopt.engine.trainer import Trainer
    from skillopt.registry import get
    from skillopt.scripted import ScriptedBackend
    from skillopt_envs_searchqa.env import SearchQAEnv

    items = load_items()
    by_question = {i["question"]: i for split in items.values() for i in split}
    cfg = RunConfig()
    cfg = attrs.evolve(
        cfg,
        train=attrs.evolve(cfg.train, num_epochs=epochs, batch_size=12, seed=seed),
        gradient=attrs.evolve(cfg.gradient, minibatch_size=4, analyst_workers=4),
        optimizer=attrs.evolve(cfg.optimizer, learning_rate=2, min_learning_rate=1, use_slow_update=False,
                               use_meta_skill=False, rejected_ledger=False),
        evaluation=attrs.evolve(cfg.evaluation, eval_test=False),
        search=attrs.evolve(cfg.search, **METHODS[method]),
        env=SearchQAEnv.Config(name="searchqa", data="sample", workers=8, demo=False),
    )
    ledger = Ledger()
    target = ModelClient(ScriptedBackend(script=make_target(by_question)), role="target", ledger=ledger, cache=None, cache_mode="off")
    optimizer = ModelClient(ScriptedBackend(script=make_optimizer(harmful)), role="optimizer", ledger=ledger, cache=None,
                            cache_mode="off")
    trainer = Trainer(cfg=cfg, env=SearchQAEnv(cfg.env), target=target, optimizer=optimizer,
                      policy=get("edit_policies", "patch").obj(), gate=get("gates", cfg.evaluation.gate).obj(cfg.evaluation),
                      out_dir=out, ledger=ledger, executor=build_executor(cfg))
    summary = trainer.train()
    calls_at: dict[str, int] = {}  # target requests made by the end of each scope
    by_scope: dict[str, dict[str, int]] = {}  # scope -> target stage -> requests
    running = 0
    for line in (out / "usage.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row[0] == "b" and str(row[1]).startswith("target/"):
            running += 1
            calls_at[str(row[2])] = running
            stage = by_scope.setdefault(str(row[2]), {})
            stage[str(row[1])[7:]] = stage.get(str(row[1])[7:], 0) + 1
    history = [h for h in json.loads((out / "history.json").read_text()) if h.get("kind", "step") == "step"]
    best = (out / "skills" / "skill_v0000.md").read_text()
    curve = [(calls_at.get("baseline", 0), true_accuracy(items["val"], best), true_accuracy(items["test"], best), 0.0)]
    for h in history:
        if h["best_step"] == h["step"]:
            best = (out / "skills" / f"skill_v{h['step']:04d}.md").read_text()
        curve.append((calls_at.get(f"step {h['step']}", curve[-1][0]), true_accuracy(items["val"], best),
                      true_accuracy(items["test"], best), h["best_score"]))
    return {"method": method, "seed": seed, "harmful": harmful, "curve": curve, "target_calls": running,
            "actions": [h["action"] for h in history],
            "step_calls": [by_scope.get(f"step {h['step']}", {}) for h in history], "baseline_calls": calls_at.get("baseline", 0),
            "optimizer_calls": summary.usage.role("optimizer").requests,
            "accepts": summary.total_accepts, "rejects": summary.total_rejects, "best_rules": rules_in(best)}


# --------------------------------------------------------------------------- aggregation


def at_budget(curve: list, budget: int) -> tuple[float, float]:
    """(true val, true test) of the best skill after the last step within ``budget`` calls."""
    val, test = curve[0][1], curve[0][2]
    for calls, v, t, _ in curve:
        if calls > budget:
            break
        val, test = v, t
    return val, test


def calls_to(curve: list, val: float) -> int | None:
    for calls, v, _, _ in curve:
        if v >= val - 1e-9:
            return calls
    return None


def cost_breakdown(runs: list[dict]) -> dict:
    """Mean target calls per accepted step (gate, race, attribution) and per step that kept
    nothing, over every step of ``runs``: where the calls go."""
    kept = [c for r in runs for a, c in zip(r["actions"], r["step_calls"], strict=True) if a.startswith("accept")]
    other = [c for r in runs for a, c in zip(r["actions"], r["step_calls"], strict=True) if not a.startswith("accept")]

    def mean(rows, *keys):
        return round(statistics.mean(sum(c.get(k, 0) for k in keys) for c in rows), 1) if rows else None

    return {"calls_per_accepted_step": mean(kept, "rollout", "race", "gate", "attribution"),
            "of_which_gate_and_attribution": mean(kept, "gate", "attribution"), "of_which_race": mean(kept, "race"),
            "calls_per_step_not_accepted": mean(other, "rollout", "race", "gate"), "of_which_race_": mean(other, "race")}


def waste(run: dict) -> float:
    """Of the calls a run spent until it first reached its final true val, the share spent
    in steps that kept nothing (what a better search could save at most, paying the same
    per accepted step)."""
    final, _ = at_budget(run["curve"], run["target_calls"])
    reach = calls_to(run["curve"], final) or run["target_calls"]
    spent, wasted = run["baseline_calls"], 0
    for action, calls in zip(run["actions"], run["step_calls"], strict=True):
        if spent >= reach:
            break
        n = sum(calls.values())
        spent += n
        wasted += 0 if action.startswith("accept") else n
    return wasted / reach if reach else 0.0


def report(rows: list[dict]) -> dict:
    by = {(r["method"], r["seed"], r["harmful"]): r for r in rows}
    out = {}
    for harmful in sorted({r["harmful"] for r in rows}):
        seeds = sorted({r["seed"] for r in rows if r["harmful"] == harmful and (r["method"] == "hill")})
        table, curves = {}, {}
        grid = [int(g) for g in range(0, 1601, 100)]
        for method in METHODS:
            runs = [(by[("hill", s, harmful)], by[(method, s, harmful)]) for s in seeds if (method, s, harmful) in by]
            if not runs:
                continue
            ratios, finals_test, finals_val, met_speed, met_test = [], [], [], 0, 0
            for hill, run in runs:
                budget = hill["target_calls"]
                hill_val, hill_test = at_budget(hill["curve"], budget)
                hill_calls = calls_to(hill["curve"], hill_val)
                mine = calls_to(run["curve"], hill_val)
                val, test = at_budget(run["curve"], budget)
                ratio = (mine / hill_calls) if mine is not None and hill_calls else None
                ratios.append(ratio)
                finals_test.append(test)
                finals_val.append(val)
                met_speed += ratio is not None and ratio <= 0.6
                met_test += test > hill_test + 1e-9
            found = [r for r in ratios if r is not None]
            table[method] = {
                "seeds": len(runs),
                "final_true_test_at_budget": round(statistics.mean(finals_test), 4),
                "final_true_val_at_budget": round(statistics.mean(finals_val), 4),
                "calls_to_hill_final_val_over_hill_calls_median": round(statistics.median(found), 3) if found else None,
                "reached_hill_final_val": f"{len(found)} of {len(runs)}",
                "seeds_within_0.6x": met_speed, "seeds_test_above_hill": met_test,
                "target_calls_mean": round(statistics.mean(r["target_calls"] for _, r in runs)),
                "optimizer_calls_mean": round(statistics.mean(r["optimizer_calls"] for _, r in runs)),
                "accepts_mean": round(statistics.mean(r["accepts"] for _, r in runs), 2),
                # the best skill's val score as the run measured it, minus its true val accuracy
                "val_optimism_at_end": round(statistics.mean(r["curve"][-1][3] - r["curve"][-1][1] for _, r in runs), 4),
            }
            table[method].update(cost_breakdown([r for _, r in runs]))
            curves[method] = [round(statistics.mean(at_budget(r["curve"], g)[1] for _, r in runs), 4) for g in grid]
        hills = [by[("hill", s, harmful)] for s in seeds]
        table["hill"]["share_of_calls_to_final_on_steps_not_accepted"] = round(statistics.mean(waste(h) for h in hills), 3)
        out[f"harmful={harmful}"] = {"seeds": seeds, "table": table, "curve_calls": grid, "curves_true_test": curves}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--seed-start", type=int, default=0)
    parser.add_argument("--harmful", type=float, default=0.35, help="chance an analyst call proposes a harmful rule first")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--out", type=Path, default=None, help="keep each run's result (runs.jsonl) here")
    parser.add_argument("--report", type=Path, default=None, help="only aggregate the runs saved in this folder")
    args = parser.parse_args()
    if args.report is not None:
        rows = [json.loads(line) for line in (args.report / "runs.jsonl").read_text().splitlines() if line.strip()]
        print(json.dumps(report(rows), indent=2))
        return
    started = time.monotonic()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seed_start, args.seed_start + args.seeds):
            for method in args.methods.split(","):
                row = one_run(Path(tmp) / f"{method}-{seed}", method, seed, args.harmful, args.epochs)
                rows.append(row)
                if args.out is not None:
                    args.out.mkdir(parents=True, exist_ok=True)
                    with open(args.out / "runs.jsonl", "a", encoding="utf-8") as fh:
                        fh.write(json.dumps(row) + "\n")
                print(f"seed {seed} {method}: {row['target_calls']} target calls, {row['accepts']} accepts, "
                      f"best rules {row['best_rules'] or '-'}", file=sys.stderr)
    print(json.dumps({**report(rows), "seconds": round(time.monotonic() - started, 1)}, indent=2))


if __name__ == "__main__":
    main()
