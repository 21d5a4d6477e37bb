"""Search strategies: ``hill`` (the default, one current skill) and ``pareto`` (a pool on
the per-item Pareto front). The toy env and scripted models stand in for a benchmark and
real models (see toy.py); ``conflict_target`` makes two rules exclusive, so no single
skill is best on every item and the front holds more than one skill."""

from __future__ import annotations

import json
import re

from engine_helpers import make_trainer
from toy import solve

from skillopt.config.schema import SearchConfig
from skillopt.strategies import PoolMember
from skillopt.strategies.pareto import ParetoPool, dominates, front, wins


def m(name, items, score=None, step=0):
    return PoolMember(skill_hash=name, path=f"skills/{name}.md", origin=name, step=step,
                      score=score if score is not None else sum(items.values()) / len(items), items=items)


A = m("a", {"1": 1, "2": 1, "3": 0, "4": 0})
B = m("b", {"1": 0, "2": 0, "3": 1, "4": 1}, step=1)
C = m("c", {"1": 1, "2": 0, "3": 0, "4": 0}, step=2)  # dominated by A


def test_front_wins_and_domination():
    assert dominates(A, C) and not dominates(A, B) and not dominates(B, A)
    assert front((A, B, C)) == (A, B)
    assert wins((A, B, C)) == {"a": 2, "b": 2, "c": 1}


def test_admission_keeps_the_front_within_the_pool_size_and_never_drops_the_leader():
    pool = ParetoPool(SearchConfig(pool_size=2))
    assert pool.admit((A, B), C) == (A, B)  # dominated: not kept
    D = m("d", {"1": 0, "2": 1, "3": 1, "4": 0}, step=3)
    kept = pool.admit((A, B), D)
    assert len(kept) == 2 and A in kept or B in kept  # three on the front, two kept
    E = m("e", {"1": 1, "2": 1, "3": 1, "4": 1}, step=4)
    assert pool.admit((A, B), E) == (E,)  # dominates both


def test_parents_are_drawn_by_the_items_they_win_and_the_draw_is_seeded():
    pool = ParetoPool(SearchConfig())
    picks = [pool.parent((A, B, C), A, seed).skill_hash for seed in range(40)]
    assert set(picks) == {"a", "b"}  # C wins no item alone on the front: never a parent
    assert picks == [pool.parent((A, B, C), A, seed).skill_hash for seed in range(40)]
    assert pool.merge_pair((A, B)) == (A, B) and pool.merge_pair((A, C)) is None


def conflict_target(request):
    """Solves kind k when RULE-k is in the skill, but RULE-upper and RULE-vowels cancel each other."""
    system, user = request.messages[0].content, request.messages[-1].content
    kind = re.search(r"Puzzle kind: (\w+)", user).group(1)
    word = re.search(r"Word: (\w+)", user).group(1)
    both = "RULE-upper" in system and "RULE-vowels" in system
    if f"RULE-{kind}" not in system or (both and kind in ("upper", "vowels")):
        return "no idea"
    return solve(kind, word)


def pareto_run(out, **kw):
    return make_trainer(out, target_script=conflict_target, num_epochs=2, search={"strategy": "pareto", "pool_size": 3},
                        optimizer={"learning_rate": 1, "min_learning_rate": 1}, env={"n_val": 32, "workers": 4}, **kw)


def test_a_pareto_run_keeps_a_pool_and_its_best_is_the_leader(tmp_path):
    summary = pareto_run(tmp_path).train()
    state = json.loads((tmp_path / "runtime_state.json").read_text())
    pool = state["pool"]
    assert pool and all((tmp_path / p["path"]).is_file() for p in pool)
    lead = max(pool, key=lambda p: p["score"])
    assert summary.val.best_gate_score == lead["score"] and state["best_hash"] == lead["skill_hash"]
    assert (tmp_path / "best_skill.md").read_text() == (tmp_path / lead["path"]).read_text()
    assert summary.val.best_gate_score > summary.val.baseline_gate_score


def test_hill_is_the_default_and_keeps_no_pool(tmp_path):
    trainer = make_trainer(tmp_path, num_epochs=1)
    assert trainer.strategy.name == "hill"
    trainer.train()
    assert json.loads((tmp_path / "runtime_state.json").read_text())["pool"] == []


def test_an_unknown_strategy_is_named(run_cli, toy_registered):
    result = run_cli("config", "show", "--env", "toy", "--set", "search.strategy=parteo")
    assert result.exit_code != 0 and "parteo" in result.output and "pareto" in result.output
