"""Edit attribution after an accepted step, and ``skillopt blame`` (toy env and scripted
models, see toy.py: each ``RULE-<kind>`` edit fixes exactly the items of its kind)."""

from __future__ import annotations

import json

from engine_helpers import make_trainer
from toy import ToyEnv


def kinds_of(items):
    tasks = {t.id: t.task_type for t in ToyEnv(ToyEnv.Config()).tasks("val")}
    return {tasks[i] for i in items}


def test_each_applied_edit_is_credited_with_the_items_it_fixed(tmp_path):
    trainer = make_trainer(tmp_path, num_epochs=1, train={"max_steps": 1})
    assert trainer.train().total_accepts == 1
    saved = json.loads((tmp_path / "steps" / "step_0001" / "attribution.json").read_text())["result"]
    assert saved["rollouts"] <= 24 and len(saved["fixed"]) == 8 and saved["broke"] == []
    for edit in saved["edits"]:
        kind = edit["content"].split("RULE-")[1].split(":")[0]
        assert edit["helped"] and kinds_of(edit["helped"]) == {kind}  # leaving RULE-x out loses the x items, only those
        assert edit["effect"] > 0 and edit["hurt"] == []


def test_attribution_costs_only_its_budget_and_can_be_turned_off(tmp_path):
    on = make_trainer(tmp_path / "on", num_epochs=1, train={"max_steps": 1}, evaluation={"attribution_rollouts": 8})
    on.train()
    off = make_trainer(tmp_path / "off", num_epochs=1, train={"max_steps": 1}, evaluation={"attribution_rollouts": 0})
    off.train()
    extra = len(on.target.backend.requests) - len(off.target.backend.requests)
    saved = json.loads((tmp_path / "on" / "steps" / "step_0001" / "attribution.json").read_text())["result"]
    assert extra == saved["rollouts"] == 8  # 4 edits x 2 flipped items
    assert not (tmp_path / "off" / "steps" / "step_0001" / "attribution.json").exists()


def test_blame_names_the_step_and_edit_of_every_line(run_cli, tmp_path):
    trainer = make_trainer(tmp_path, num_epochs=1, train={"max_steps": 1})
    trainer.env.initial_skill = lambda: "# Word puzzles\nAnswer with the word only."
    trainer.train()
    result = run_cli("blame", str(tmp_path), "--json")
    assert result.exit_code == 0, result.output
    lines = {b["text"]: b for b in json.loads(result.stdout)}
    assert lines["# Word puzzles"]["origin"] == "initial" and lines["Answer with the word only."]["step"] == 0
    rule = next(b for t, b in lines.items() if "RULE-upper" in t)
    assert rule["origin"] == "step 1" and rule["op"] == "append" and rule["edit"] is not None and rule["effect"] > 0
    assert kinds_of(rule["helped"]) == {"upper"}
    shown = run_cli("blame", str(tmp_path))
    assert "step 1" in shown.stdout and "│ - RULE-upper" in shown.stdout
    missing = run_cli("blame", str(tmp_path / "nope"))
    assert missing.exit_code != 0 and "no run named" in missing.output


def test_runs_show_lists_each_accepted_steps_attribution(run_cli, tmp_path):
    make_trainer(tmp_path, num_epochs=1, train={"max_steps": 1}).train()
    shown = run_cli("runs", "show", str(tmp_path))
    said = " ".join(shown.output.split())
    assert shown.exit_code == 0 and "step 1 attribution: fixed 8, broke 0 val items" in said and "RULE-vowels" in said
