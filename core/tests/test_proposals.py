"""Several proposals per step (``search.proposals`` > 1), raced on val before the gate.

The toy env and scripted models stand in for a benchmark and real models (see toy.py):
the ``harmful`` optimizer puts ``RULE-BAD`` (which fails every item) first among the
rules it proposes, so the ranked choice of a step holds it, and only a proposal without
it can pass the gate.
"""

from __future__ import annotations

import json

import pytest
from engine_helpers import make_trainer
from toy import toy_optimizer

from skillopt import paths
from skillopt.config.schema import SearchConfig
from skillopt.engine.rejected import Rejection, read_ledger, rejected_before
from skillopt.records import Edit, Patch
from skillopt.strategies.edit_subsets import EditSubsets, subsets
from skillopt.strategies.minibatches import Minibatches

RULES = tuple(Edit(op="append", content=f"- RULE-{k}") for k in ("BAD", "upper", "reverse", "double"))


def test_minibatches_deal_the_analysts_patches_round_robin():
    patches = tuple(Patch(edits=(e,)) for e in RULES)
    sampler = Minibatches(SearchConfig())
    assert sampler.groups(patches, 2, seed=1) == ((0, 2), (1, 3))
    assert sampler.groups(patches, 9, seed=1) == ((0,), (1,), (2,), (3,))  # no more proposals than patches
    assert sampler.groups((), 3, seed=1) == ()


def test_edit_subsets_keep_the_ranked_choice_first_then_other_subsets():
    sampler = EditSubsets(SearchConfig())
    merged, chosen = Patch(edits=RULES), Patch(edits=RULES[:2])
    made = sampler.variants(merged, chosen, 2, 3, seed=5)
    assert made[0] == chosen and len(made) == 3
    sets = [frozenset(p.edits) for p in made]
    assert len(set(sets)) == 3 and all(len(s) == 2 and s <= set(RULES) for s in sets)  # distinct, budget-sized
    assert made == sampler.variants(merged, chosen, 2, 3, seed=5)  # seeded
    # everything fits the budget: the choice minus one edit each
    loo = sampler.variants(Patch(edits=RULES[:3]), Patch(edits=RULES[:3]), 4, 4, seed=5)
    assert [p.edits for p in loo[1:]] == [RULES[1:3], (RULES[0], RULES[2]), RULES[:2]]
    assert sampler.variants(merged, chosen, 2, 1, seed=5) == (chosen,)
    assert len(subsets(30, 3, 5, seed=2, exclude=(0, 1, 2))) == 5  # too many to list: seeded draws


def harmful(out, *, ledger=True, **search):
    return make_trainer(out, optimizer_script=toy_optimizer(harmful=True), num_epochs=1, env={"n_val": 16},
                        optimizer={"learning_rate": 2, "min_learning_rate": 2, "rejected_ledger": ledger},
                        train={"max_steps": 1}, search=search)


def test_one_proposal_with_a_harmful_edit_is_rejected_where_a_raced_subset_without_it_passes(tmp_path):
    single = harmful(tmp_path / "single", ledger=False).train()
    assert single.total_rejects == 1
    raced = harmful(tmp_path / "raced", proposals=3, sampler="edit-subsets")
    summary = raced.train()
    assert summary.total_accepts == 1 and summary.val.best_gate_score > summary.val.baseline_gate_score
    best = (tmp_path / "raced" / "best_skill.md").read_text()
    assert "RULE-BAD" not in best and "RULE-" in best
    [step] = json.loads((tmp_path / "raced" / "history.json").read_text())
    race = json.loads((tmp_path / "raced" / "steps" / "step_0001" / "race" / "result.json").read_text())["result"]
    assert step["proposals"] == 3 and step["raced"] == len(race["entrants"]) == 3
    won = race["entrants"][race["winner"]]
    assert step["race_winner"] == won["proposal"] != 0  # the ranked choice (p0) held RULE-BAD
    assert not any("RULE-BAD" in e["content"] for e in won["edits"])
    losers = [e for i, e in enumerate(race["entrants"]) if i != race["winner"]]
    assert all(e["out"] and e["round"] >= 1 and e["effect"] <= 0 for e in losers)
    # each proposal has its own folders; the gate scored the winner where the race left it
    folder = tmp_path / "raced" / "steps" / "step_0001"
    assert {p.name for p in (folder / "proposals").iterdir()} == {"g0", "p0", "p1", "p2"}
    book = json.loads((tmp_path / "raced" / "score_book.json").read_text())
    assert any(v["dir"].endswith(f"race/p{won['proposal']}") for k, v in book.items() if k.startswith(f"val:{won['skill_hash']}"))


def test_the_race_pays_no_rollout_twice(tmp_path):
    harmful(tmp_path, proposals=3, sampler="edit-subsets").train()
    keys = []
    for log in (tmp_path / "steps" / "step_0001").rglob("results.jsonl"):
        keys += [(json.loads(line)["key"], json.loads(line).get("skill_hash", str(log.parent)))
                 for line in log.read_text().splitlines() if line.strip()]
    assert keys and len(keys) == len(set(keys))


def test_losers_go_to_the_ledger_with_their_effect_once_and_never_refuse_a_later_candidate(tmp_path):
    harmful(tmp_path / "a", proposals=3, sampler="edit-subsets").train()
    [ledger] = sorted((paths.data_dir() / "rejected").glob("*.jsonl"))
    entries = read_ledger(ledger)
    race = json.loads((tmp_path / "a" / "steps" / "step_0001" / "race" / "result.json").read_text())["result"]
    won = race["entrants"][race["winner"]]
    assert len(entries) == 2 and all(e.lost_to == won["skill_hash"] and e.step == 1 for e in entries)
    assert {e.effect for e in entries} == {e["effect"] for i, e in enumerate(race["entrants"]) if i != race["winner"]}
    assert all("lost a race of 3 proposals" in e.reason and e.edits for e in entries)
    again = harmful(tmp_path / "a", proposals=3, sampler="edit-subsets")  # a resumed, finished run records nothing again
    again.train()
    assert len(read_ledger(ledger)) == 2
    loser = entries[0]
    assert rejected_before((loser,), loser.parent_hash, loser.candidate_hash, loser.gate_context) is None
    gate_rejection = Rejection(parent_hash="p", candidate_hash="c", gate_context="g", effect=-0.1)
    assert rejected_before((gate_rejection,), "p", "c", "g") is gate_rejection


def test_a_refused_proposal_is_not_scored(tmp_path):
    """A candidate over ``optimizer.max_skill_tokens`` is out before a single val rollout."""
    budget = {"learning_rate": 2, "min_learning_rate": 2, "max_skill_tokens": 1}
    trainer = make_trainer(tmp_path, optimizer_script=toy_optimizer(harmful=True), num_epochs=1, optimizer=budget,
                           env={"n_val": 16}, train={"max_steps": 1}, search={"proposals": 3, "sampler": "edit-subsets"})
    trainer.train()
    race = json.loads((tmp_path / "steps" / "step_0001" / "race" / "result.json").read_text())["result"]
    assert all(e["round"] == 0 and e["out"].startswith("refused: the candidate is ~") for e in race["entrants"])
    assert not list((tmp_path / "steps" / "step_0001" / "race").glob("p*/results.jsonl"))


@pytest.mark.parametrize("key, value, expected", [
    ("search.sampler", "minibatch", "Did you mean 'minibatches'?"),
    ("search.sampler", "hill", "is not one of the installed proposal samplers"),
    ("search.strategy", "edit-subsets", "is not one of the installed search strategies"),
])
def test_a_wrong_sampler_or_strategy_is_named(run_cli, toy_registered, key, value, expected):
    result = run_cli("config", "show", "--env", "toy", "--set", f"{key}={value}")
    assert result.exit_code == 2 and key in result.output and expected in result.output
