"""The epoch boundary: slow update and meta skill (scripted optimizer, toy env)."""

from __future__ import annotations

import json

from engine_helpers import make_trainer
from toy import toy_optimizer


def load(path):
    return json.loads(path.read_text())


def epoch_script(slow_text="- Keep every RULE line intact.", meta_text="Prefer one rule per puzzle kind."):
    base = toy_optimizer()

    def script(req):
        if req.stage == "slow_update":
            return {"reasoning": "protect the rules", "slow_update_content": slow_text}
        if req.stage == "meta_skill":
            return {"meta_skill_content": meta_text}
        return base(req)

    return script


def test_slow_update_is_force_accepted_and_its_score_re_measured(tmp_path):
    trainer = make_trainer(tmp_path, optimizer_script=epoch_script(), num_epochs=2,
                           optimizer={"use_slow_update": True, "slow_update_samples": 8})
    summary = trainer.train()
    folder = tmp_path / "slow_update" / "epoch_02"
    assert load(folder / "result.json")["result"]["status"] == "ok"
    pairs = load(folder / "comparison_pairs.json")
    assert len(pairs) == 8 and {p["label"] for p in pairs} <= {"improved", "regressed", "persistent_fail", "stable_success"}
    verdict = load(folder / "gate" / "result.json")["result"]["verdict"]
    assert verdict["forced"] and "re-measured" in verdict["reason"]
    assert (folder / "gate" / "results.jsonl").is_file()  # the new skill was really scored
    state = load(tmp_path / "runtime_state.json")
    assert state["current_origin"] == "slow_update_epoch_02"
    final = (tmp_path / state["current_skill_path"]).read_text()
    assert "<!-- SLOW_UPDATE_START -->" in final and "Keep every RULE line intact." in final
    assert summary.val.final_gate_score == state["current_score"]


def test_gated_slow_update_that_does_not_improve_is_rejected(tmp_path):
    make_trainer(tmp_path, optimizer_script=epoch_script(), num_epochs=2,
                 optimizer={"use_slow_update": True, "slow_update_samples": 8, "slow_update_gate_with_selection": True}).train()
    verdict = load(tmp_path / "slow_update" / "epoch_02" / "gate" / "result.json")["result"]["verdict"]
    assert not verdict["accepted"] and not verdict["forced"]  # val was already perfect: a tie rejects
    assert load(tmp_path / "runtime_state.json")["current_origin"] != "slow_update_epoch_02"


def test_meta_skill_reaches_analysts_from_the_next_epoch_and_never_the_skill(tmp_path):
    trainer = make_trainer(tmp_path, optimizer_script=epoch_script(), num_epochs=3, train={"num_epochs": 3, "batch_size": 8},
                           optimizer={"use_meta_skill": True, "slow_update_samples": 8})
    trainer.train()
    assert load(tmp_path / "meta_skill" / "epoch_02" / "result.json")["result"]["content"] == "Prefer one rule per puzzle kind."
    prompts = [r.messages[-1].content for r in trainer.optimizer.backend.requests if r.stage in ("analyst", "merge", "ranking")]
    assert any("Prefer one rule per puzzle kind." in p for p in prompts)
    for skill_file in (tmp_path / "skills").glob("*.md"):
        assert "Prefer one rule" not in skill_file.read_text()
    assert "Prefer one rule" not in (tmp_path / "best_skill.md").read_text()


def test_changed_pair_policy_tops_up_with_changed_items(tmp_path):
    make_trainer(tmp_path, optimizer_script=epoch_script(), num_epochs=2,
                 optimizer={"use_slow_update": True, "slow_update_samples": 4, "longitudinal_pair_policy": "changed"}).train()
    pairs = load(tmp_path / "slow_update" / "epoch_02" / "comparison_pairs.json")
    assert len(pairs) == 4
