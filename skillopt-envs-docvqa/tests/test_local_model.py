"""End to end on the embedded local model: `skillopt run --env docvqa` (ocr input) in a subprocess."""

from __future__ import annotations

import json

import pytest

from skillopt.testing import finished_run, requires_local_model, run_skillopt

pytestmark = pytest.mark.local_model


@requires_local_model
def test_reduced_run_on_the_local_model(tmp_path):
    out = tmp_path / "run"
    # Tiny on purpose: one step of 2 questions, 1 val and 1 test question, the page text cut at
    # 1200 characters, short replies, one bounded analyst call. About 15 s on an idle 2-core machine.
    run = run_skillopt(
        "run", "--env", "docvqa",
        "--set", "env.limit=2", "--set", "train.batch_size=2", "--set", "train.max_steps=1",
        "--set", "evaluation.sel_env_num=1", "--set", "evaluation.test_env_num=1", "--set", "env.max_ocr_chars=1200",
        "--set", "env.max_completion_tokens=24", "--set", "gradient.max_trajectory_chars=600",
        "--set", "model.optimizer.max_tokens=192", "--set", "model.schema_retries=0",
        "--out", str(out),
        home=tmp_path / "home",
    )  # fmt: skip
    summary = finished_run(out, run)
    assert summary["config"]["preset"] == "small"
    assert summary["config"]["env"]["input"] == "ocr"
    assert summary["test"]["initial"]["n"] == 1
    conversation = json.loads(next((out / "final_eval" / "test_initial" / "predictions").glob("*/conversation.json")).read_text())
    user = next(t["content"] for t in conversation["turns"] if t["role"] == "user")
    assert "Page text (OCR" in user and " | " in user  # the text-only model got the page as text lines
    print(f"local-model e2e run took {run.elapsed_s:.1f}s")
