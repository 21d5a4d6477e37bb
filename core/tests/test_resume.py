"""Kill a real training process at several points; re-running resumes exactly.

The resumed run must end with the same skills, decisions and scores as an
uninterrupted run, and must not redo finished items (the models are scripted and
deterministic; see toy.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

WORKER = Path(__file__).with_name("resume_worker.py")


def run(out: Path, kill: str = "") -> int:
    env = {**os.environ, "SKILLOPT_TEST_KILL": kill}
    return subprocess.run([sys.executable, str(WORKER), str(out)], env=env, capture_output=True, text=True, timeout=120).returncode


def outcome(out: Path) -> dict:
    history = json.loads((out / "history.json").read_text())
    summary = json.loads((out / "summary.json").read_text())
    return {
        "best": (out / "best_skill.md").read_text(),
        "skills": {p.name: p.read_text() for p in sorted((out / "skills").glob("*.md"))},
        "history": [(h["step"], h["action"], h["edit_budget"], h["selection_hard"], h["candidate_hash"]) for h in history],
        "test": {k: v["hard"] for k, v in summary["test"].items()},
        "val": summary["val"],
        "best_origin": summary["best_origin"],
        "meta": (out / "meta_skill" / "epoch_02" / "meta_skill_result.json").read_text(),
    }


@pytest.mark.slow
def test_kill_at_four_points_and_resume_matches_an_uninterrupted_run(tmp_path):
    reference = tmp_path / "reference"
    assert run(reference) == 0
    resumed = tmp_path / "resumed"
    kills = ["rollout:12", "analyst:1", "rollout:4", "slow_update:1"]
    for kill in kills:
        assert run(resumed, kill) == 77, f"the worker should have died at {kill}"
        assert json.loads((resumed / "runtime_state.json").read_text())["status"] == "running"
    assert run(resumed) == 0
    assert outcome(resumed) == outcome(reference)
    # finished items are not redone: each train rollout item appears once per step
    lines = (resumed / "steps" / "step_0001" / "rollout" / "results.jsonl").read_text().splitlines()
    keys = [json.loads(line)["key"] for line in lines if line.strip()]
    assert len(keys) == len(set(keys)) == 8


def test_resume_after_completion_is_a_no_op(tmp_path):
    assert run(tmp_path) == 0
    before = outcome(tmp_path)
    assert run(tmp_path) == 0
    assert outcome(tmp_path) == before


def test_step_buffer_survives_a_resume(tmp_path):
    from engine_helpers import make_trainer
    from toy import toy_optimizer

    make_trainer(tmp_path, optimizer_script=toy_optimizer(harmful=True), num_epochs=1, train={"max_steps": 1},
                 optimizer={"learning_rate": 8, "min_learning_rate": 8}).train()
    resumed = make_trainer(tmp_path, optimizer_script=toy_optimizer(harmful=True), num_epochs=1,
                           optimizer={"learning_rate": 8, "min_learning_rate": 8})
    resumed.train()
    prompts = [r.messages[-1].content for r in resumed.optimizer.backend.requests if r.stage == "analyst"]
    assert prompts and all("### Step 1 — REJECT" in p and "RULE-BAD" in p for p in prompts)
