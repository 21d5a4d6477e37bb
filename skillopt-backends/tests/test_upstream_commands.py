"""Upstream's command lines run unchanged: ``skillopt-train`` and ``skillopt-eval`` (the
console scripts, as a user types them) against an OpenAI-protocol server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

CONFIG = """\
model:
  backend: openai_compatible
  optimizer: local-model
  target: gpt-4o-mini
train: {num_epochs: 1, batch_size: 4, train_size: 0}
optimizer: {use_slow_update: false, use_meta_skill: false}
env: {name: searchqa, data: sample, limit: 4, workers: 2}
"""


def script(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"the {name} console script is not installed (pip install -e ./core)")
    return found


def run(argv: list[str], server, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "OPENAI_COMPATIBLE_BASE_URL": server.base_url, "OPENAI_COMPATIBLE_API_KEY": server.api_key,
           "SKILLOPT_NO_DOTENV": "1"}
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_skillopt_train_and_eval_take_upstreams_flags(openai_server, tmp_path):
    (tmp_path / "searchqa.yaml").write_text(CONFIG)
    out = tmp_path / "outputs" / "run1"
    done = run([script("skillopt-train"), "--config", "searchqa.yaml", "--cfg-options", "train.seed=7",
                "evaluation.use_gate=false", "gradient.minibatch_size=2", "--batch_size", "2", "--out_root", str(out)],
               openai_server, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    saved = json.loads((out / "config.json").read_text())
    assert saved["train"]["batch_size"] == 2 and saved["train"]["seed"] == 7  # the flag and the pairs after one --cfg-options
    assert saved["evaluation"]["use_gate"] is False and saved["gradient"]["minibatch_size"] == 2
    assert saved["model"]["backend"] == "openai-compatible" and saved["model"]["target"]["model"] == "gpt-4o-mini"
    models = {r.body["model"] for r in openai_server.requests if r.method == "POST"}
    assert models == {"local-model", "gpt-4o-mini"}  # each role its own model, on the server of the variable
    skill = out / "best_skill.md"
    assert skill.is_file()

    openai_server.reset()
    done = run([script("skillopt-eval"), "--config", "searchqa.yaml", "--skill", str(skill), "--split", "valid_unseen",
                "--cfg-options", "env.limit=2"], openai_server, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    said = " ".join((done.stdout + done.stderr).split())
    assert "test" in said
    assert {r.body["model"] for r in openai_server.requests if r.method == "POST"} == {"gpt-4o-mini"}  # the target only
    assert len([r for r in openai_server.requests if r.method == "POST"]) == 2  # env.limit=2 items of the test split


def test_a_flag_upstream_does_not_have_is_refused_and_a_retired_one_warns(openai_server, tmp_path):
    (tmp_path / "searchqa.yaml").write_text(CONFIG)
    done = run([script("skillopt-train"), "--config", "searchqa.yaml", "--no_such_flag", "1"], openai_server, tmp_path)
    assert done.returncode == 2 and "unrecognized arguments: --no_such_flag" in done.stderr
    done = run([script("skillopt-eval"), "--config", "searchqa.yaml", "--skill", "missing.md", "--split", "nope"],
               openai_server, tmp_path)
    assert done.returncode == 2 and "invalid choice: 'nope'" in done.stderr
    done = run([script("skillopt-eval"), "--config", "searchqa.yaml", "--skill", "missing.md", "--max_analyst_rounds", "3",
                "--split", "train"], openai_server, tmp_path)
    assert "max_analyst_rounds was retired upstream" in done.stderr and "missing.md" in done.stderr
    assert done.returncode == 2 and "Traceback" not in done.stderr
