"""The main job end to end on the embedded local model, at a reduced size:
`skillopt run --env searchqa` in a subprocess, nothing configured but the sizes."""

from __future__ import annotations

import json

import pytest

from skillopt.testing import finished_run, requires_local_model, run_skillopt

pytestmark = pytest.mark.local_model


@requires_local_model
def test_reduced_main_job_on_the_local_model(tmp_path):
    out = tmp_path / "run"
    # ~1-2 min on an idle 2-core machine; the helper's timeout leaves slack for a shared one
    run = run_skillopt(
        "run", "--env", "searchqa", "--out", str(out),
        "--set", "train.max_steps=1", "--set", "train.batch_size=4",
        "--set", "evaluation.sel_env_num=4", "--set", "evaluation.test_env_num=4",
        "--set", "env.max_completion_tokens=32", "--set", "model.optimizer.max_tokens=256",
        home=tmp_path / "home", threads=0,
    )  # fmt: skip
    summary = finished_run(out, run)
    output = run.stdout + run.stderr
    assert "bundled synthetic sample" in output  # the data in use is stated
    said = [line for line in run.stderr.splitlines() if line.strip() and "::=" not in line]
    for line in (said[0], said[-1]):  # a lift of +0.000 is expected here, and the run says so first and last
        assert "only checks that the pipeline runs end to end" in line, run.tail
        assert "skillopt run --env searchqa --backend openai" in line, run.tail
    assert "best_skill.md" in " ".join(output.split())
    assert (out / "config.json").is_file()
    assert summary["config"]["preset"] == "small"
    assert summary["val"]["n"] == 4 and summary["test"]["initial"]["n"] == 4
    assert 0.0 <= summary["test"]["best"]["hard"] <= 1.0
    history = json.loads((out / "history.json").read_text())
    assert len(history) == 1 and history[0]["rollout_n"] == 4 and history[0]["rollout_errors"] == 0
    step = out / "steps" / "step_0001"
    for rel in ("runtime_state.json", "score_book.json", "skills/skill_v0000.md", "skills/skill_v0001.md",
                "steps/step_0001/rollout/results.jsonl", "steps/step_0001/step_record.json",
                "gate_baseline/results.jsonl", "final_eval/result.json", "final_eval/test_initial/results.jsonl"):
        assert (out / rel).is_file(), rel
    assert len(list((step / "rollout" / "predictions").glob("*/conversation.json"))) == 4
    action = history[0]["action"]
    if not action.startswith("skip"):  # the optimizer proposed something: every stage left its file
        for rel in ("merge/result.json", "select/result.json", "apply/result.json", "apply/candidate_skill.md"):
            assert (step / rel).is_file(), rel
    if action in ("accept", "accept_new_best", "reject", "no_decision"):
        assert (step / "gate" / "result.json").is_file() and (step / "gate" / "results.jsonl").is_file()
    calls = summary["usage"]["by_stage"]
    assert any(stage.startswith("target/") for stage in calls)
    if history[0]["rollout_hard"] < 1.0:  # failures were reflected on by the local optimizer
        assert any(stage.startswith("optimizer/") for stage in calls), calls
    print(f"local-model main job (reduced) took {run.elapsed_s:.1f}s")
