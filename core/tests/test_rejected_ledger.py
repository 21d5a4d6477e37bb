"""The cross-run rejected-edit ledger (toy env and scripted models, see toy.py: the
``harmful`` optimizer proposes ``RULE-BAD``, which fails every item, so the gate rejects)."""

from __future__ import annotations

import json

from skillopt import paths
from skillopt.engine.rejected import read_ledger

from engine_helpers import make_trainer
from toy import toy_optimizer

HARMFUL = {"optimizer": {"learning_rate": 1, "min_learning_rate": 1}, "train": {"max_steps": 1}}


def harmful_run(out, **sections):
    trainer = make_trainer(out, optimizer_script=toy_optimizer(harmful=True), num_epochs=1, **{**HARMFUL, **sections})
    trainer.env.initial_skill = lambda: "- RULE-upper\n- RULE-reverse\n- RULE-double"
    return trainer


def ledgers():
    return sorted((paths.data_dir() / "rejected").glob("*.jsonl"))


def test_a_rejection_is_remembered_shown_to_later_runs_and_not_scored_again(tmp_path):
    first = harmful_run(tmp_path / "a")
    assert first.train().total_rejects == 1
    [ledger] = ledgers()
    [entry] = read_ledger(ledger)
    assert entry.run == "a" and entry.step == 1 and entry.effect < 0 and "RULE-BAD" in entry.edits[0].content

    second = harmful_run(tmp_path / "b")
    summary = second.train()
    prompts = ["\n".join(m.content for m in r.messages) for r in second.optimizer.backend.requests if r.stage == "analyst"]
    assert any("## Edits rejected in earlier runs" in p and "RULE-BAD" in p and "(run a, step 1)" in p for p in prompts)
    step = json.loads((tmp_path / "b" / "history.json").read_text())[0]
    assert summary.total_rejects == 1 and step["verdict"]["reason"].startswith("refused: rejected before (run a, step 1")
    assert not (tmp_path / "b" / "steps" / "step_0001" / "gate" / "results.jsonl").exists()  # not one val rollout paid again
    assert len(read_ledger(ledger)) == 1  # a refusal is not a new measurement


def test_a_run_keeps_the_snapshot_it_started_with(tmp_path):
    harmful_run(tmp_path / "a").train()
    b = harmful_run(tmp_path / "b", train={"max_steps": 1, "num_epochs": 1})
    b.train()
    snapshot = json.loads((tmp_path / "b" / "rejected_before.json").read_text())
    assert [r["run"] for r in snapshot] == ["a"]
    harmful_run(tmp_path / "c", env={"n_val": 12}).train()  # another gate (other items): measured, after b began
    again = harmful_run(tmp_path / "b")  # b resumed: the same snapshot, not the ledger as it is now
    again.context()
    assert [r["run"] for r in json.loads((tmp_path / "b" / "rejected_before.json").read_text())] == ["a"]
    assert {r.run for r in read_ledger(ledgers()[0])} == {"a", "c"}


def test_the_ledger_can_be_turned_off(tmp_path):
    harmful_run(tmp_path / "a", optimizer={**HARMFUL["optimizer"], "rejected_ledger": False}).train()
    assert ledgers() == [] and not (tmp_path / "a" / "rejected_before.json").exists()
