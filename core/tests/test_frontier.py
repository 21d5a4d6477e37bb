"""Multi-objective pool members, the ``frontier`` strategy, the named final pick
(``search.select``) and the selection split (``evaluation.selection_split``).

The toy env and scripted models stand in for a benchmark and real models (see toy.py):
the target solves a kind only when the skill holds its rule, so a skill's accuracy and
length are known from its rules.
"""

from __future__ import annotations

import json
import math

import pytest
from engine_helpers import make_trainer
from toy import ToyEnv

from skillopt.config.schema import SearchConfig
from skillopt.engine.selection import Finalist, carve, choose
from skillopt.errors import ConfigError
from skillopt.records import Task
from skillopt.strategies import PoolMember
from skillopt.strategies.frontier import ObjectiveFrontier, dominates, front


def m(name, accuracy, skill_tokens, rollout_tokens=100.0, step=0, items=None):
    return PoolMember(skill_hash=name, path=f"skills/{name}.md", origin=name, score=accuracy, step=step, items=items or {},
                      objectives={"accuracy": accuracy, "skill_tokens": skill_tokens, "rollout_tokens": rollout_tokens})


BIG = m("big", 0.8, 400, step=1)
SMALL = m("small", 0.7, 100, step=2)
WORSE = m("worse", 0.6, 200, step=3)  # less accurate and longer than SMALL
ALL = ("accuracy", "skill_tokens", "rollout_tokens")


def test_the_front_keeps_a_short_skill_beside_the_most_accurate_one():
    assert dominates(SMALL, WORSE, ALL) and not dominates(BIG, SMALL, ALL) and not dominates(SMALL, BIG, ALL)
    assert front((BIG, SMALL, WORSE), ALL) == (BIG, SMALL)
    assert front((BIG, SMALL, WORSE), ("accuracy",)) == (BIG,)  # on accuracy alone only the best stays


def test_admission_keeps_the_leader_and_each_objectives_best_within_the_pool_size():
    pool = ObjectiveFrontier(SearchConfig(strategy="frontier", pool_size=2))
    mid = m("mid", 0.75, 250, rollout_tokens=90.0, step=4)  # on the front: best rollout tokens
    kept = pool.admit((BIG, SMALL), mid)
    assert len(kept) == 2 and BIG in kept  # the leader never goes
    assert pool.admit((BIG, SMALL), WORSE) == (BIG, SMALL)  # dominated: not kept
    assert pool.lead((BIG, SMALL)) is BIG
    picks = {pool.parent((BIG, SMALL, WORSE), BIG, seed).origin for seed in range(30)}
    assert picks == {"big", "small"}  # drawn from the front only


def finalists(*members):
    return [Finalist(origin=x.origin, skill_hash=x.skill_hash, path=x.path, step=x.step, objectives=x.objectives,
                     val_score=x.score) for x in members]


def test_the_final_pick_rules():
    rows = finalists(BIG, SMALL, WORSE)
    assert choose(rows, "best", epsilon=0.02, weights={})[0] == 0
    assert choose(rows, "smallest", epsilon=0.02, weights={})[0] == 0  # SMALL is 0.1 behind
    index, why = choose(rows, "smallest", epsilon=0.15, weights={})
    assert index == 1 and "within 0.15" in why
    assert choose(rows, "weighted", epsilon=0, weights={"accuracy": 1.0, "skill_tokens": -0.001})[0] == 1  # 0.6 vs 0.4
    assert choose(rows, "weighted", epsilon=0, weights={"accuracy": 1.0})[0] == 0


def tasks(n):
    return [Task(id=f"val-{i:03d}", inputs={}, gold="") for i in range(n)]


def test_a_carved_selection_split_is_seeded_and_disjoint_from_the_gates_items(tmp_path):
    from skillopt.config.schema import EvaluationConfig

    val = tasks(12)
    gate, held = carve(None, val, EvaluationConfig(selection_split="carved"), seed=3)
    assert len(held) == 4 and len(gate) == 8 and not {t.id for t in gate} & {t.id for t in held}
    assert carve(None, val, EvaluationConfig(selection_split="carved"), seed=3) == (gate, held)
    assert carve(None, val, EvaluationConfig(selection_split="carved"), seed=4)[1] != held
    assert carve(None, val, EvaluationConfig(), seed=3) == (val, [])
    with pytest.raises(ConfigError, match="selection_items=12 leaves no val item"):
        carve(None, val, EvaluationConfig(selection_split="carved", selection_items=12), seed=3)
    given = tmp_path / "held.jsonl"
    given.write_text("\n".join(json.dumps({"id": f"sel-{i}", "inputs": {"kind": "upper", "word": "apple"}, "gold": "APPLE"})
                               for i in range(5)))
    with pytest.raises(ConfigError, match="the toy env reads no items files"):
        carve(ToyEnv(ToyEnv.Config()), val, EvaluationConfig(selection_split=str(given)), seed=3)

    class FileToy(ToyEnv):
        def to_task(self, row, split):
            return Task(id=row["id"], inputs=row["inputs"], gold=row["gold"], split=split)

    env = FileToy(ToyEnv.Config())
    gate, held = carve(env, val, EvaluationConfig(selection_split=str(given)), seed=3)
    assert gate == val and [t.id for t in held] == [f"sel-{i}" for i in range(5)]
    given.write_text(json.dumps({"id": "val-001", "inputs": {}, "gold": ""}))
    with pytest.raises(ConfigError, match="val items the gate uses"):
        carve(env, val, EvaluationConfig(selection_split=str(given)), seed=3)
    with pytest.raises(ConfigError, match="no such file"):
        carve(env, val, EvaluationConfig(selection_split=str(tmp_path / "missing.jsonl")), seed=3)


def test_pool_members_carry_their_objectives(tmp_path):
    trainer = make_trainer(tmp_path, num_epochs=2, search={"strategy": "frontier", "pool_size": 3},
                           optimizer={"learning_rate": 1, "min_learning_rate": 1}, env={"n_val": 24})
    trainer.train()
    pool = json.loads((tmp_path / "runtime_state.json").read_text())["pool"]
    assert len(pool) >= 2
    for member in pool:
        skill = (tmp_path / member["path"]).read_text()
        o = member["objectives"]
        assert o["accuracy"] == pytest.approx(member["score"]) and o["skill_tokens"] == math.ceil(len(skill) / 4)
        assert o["rollout_tokens"] > 0
    longest = max(pool, key=lambda x: x["objectives"]["skill_tokens"])
    shortest = min(pool, key=lambda x: x["objectives"]["skill_tokens"])
    assert longest["objectives"]["rollout_tokens"] > shortest["objectives"]["rollout_tokens"]  # the skill is in every prompt


def run_with_selection(out, **search):
    return make_trainer(out, num_epochs=2, optimizer={"learning_rate": 1, "min_learning_rate": 1}, env={"n_val": 24},
                        evaluation={"selection_split": "carved"}, search=search)


def test_hill_picks_its_final_skill_on_a_split_no_gate_decision_used(tmp_path):
    trainer = run_with_selection(tmp_path)
    lines = []
    trainer.reporter.line = lines.append
    summary = trainer.train()
    picked = json.loads((tmp_path / "selection" / "result.json").read_text())["result"]
    held = {t.id for t in trainer.context().data.selection}
    assert len(held) == 8 and summary.val.n == 16
    # no gate decision saw a selection item: every val rollout of every step is of the gate's items
    gate_items = {json.loads(line)["key"].split("#")[0] for log in (tmp_path / "steps").rglob("results.jsonl")
                  if "rollout" not in log.parts for line in log.read_text().splitlines() if line.strip()}
    assert gate_items and not gate_items & held
    # the hill climber's lineage: the initial skill and each accepted one, scored on the held-out items
    accepted = [h for h in json.loads((tmp_path / "history.json").read_text()) if h["action"].startswith("accept")]
    assert [f["origin"] for f in picked["finalists"]] == ["initial_skill", *(f"step_{h['step']:04d}" for h in accepted)]
    assert picked["split"] == "selection" and picked["n_items"] == 8
    chosen = picked["finalists"][picked["chosen"]]
    assert chosen["objectives"]["accuracy"] == max(f["objectives"]["accuracy"] for f in picked["finalists"])
    assert summary.selection.split == "selection" and summary.selection.origin == chosen["origin"] == summary.best_origin
    assert "on the selection split (8 items no gate decision used)" in lines[-1]
    assert summary.test_lift is not None  # the lift is still measured on test, for the picked skill


def test_the_smallest_rule_can_pick_a_shorter_skill_than_the_best_and_test_follows_it(tmp_path):
    trainer = run_with_selection(tmp_path, select="smallest", select_epsilon=1.0)  # any accuracy will do: the shortest
    summary = trainer.train()
    assert summary.best_origin == "initial_skill" and summary.selection.rule == "smallest"
    assert (tmp_path / "best_skill.md").read_text() == (tmp_path / "skills" / "skill_v0000.md").read_text()
    assert summary.test["best"].skill_hash == summary.test["initial"].skill_hash and summary.test_delta_hard == 0


def test_the_default_makes_no_pick(tmp_path):
    summary = make_trainer(tmp_path, num_epochs=1).train()
    assert summary.selection is None and not (tmp_path / "selection").exists()
    assert json.loads((tmp_path / "runtime_state.json").read_text())["lineage"] == []
