"""End to end on the embedded local model: `skillopt run --env alfworld` in a subprocess."""

import json

import pytest

from skillopt.testing import finished_run, requires_local_model, run_skillopt

pytestmark = pytest.mark.local_model


@requires_local_model
def test_reduced_run_on_the_local_model(tmp_path):
    out = tmp_path / "run"
    # Tiny on purpose: one game per split, 2 steps per episode with no history, short
    # replies, one bounded analyst call. Well under a minute on an idle 2-core machine.
    run = run_skillopt(
        "run", "--env", "alfworld",
        "--set", "env.limit=1", "--set", "env.max_steps=2", "--set", "env.history=0",
        "--set", "train.batch_size=1", "--set", "train.num_epochs=1", "--set", "train.max_steps=1",
        "--set", "evaluation.sel_env_num=1", "--set", "evaluation.test_env_num=1",
        "--set", "env.max_completion_tokens=16", "--set", "gradient.max_trajectory_chars=600",
        "--set", "model.optimizer.max_tokens=160", "--set", "model.schema_retries=0",
        "--out", str(out),
        home=tmp_path / "home",
    )  # fmt: skip
    # replies are capped very short on purpose: a run whose every reply is cut may end saying so
    summary = finished_run(out, run, allow=("finished", "target_truncated"))
    assert summary["config"]["preset"] == "small"
    assert summary["test"]["initial"]["n"] == 1
    rollouts = [json.loads(p.read_text()) for p in out.rglob("conversation.json")]
    assert rollouts and all(sum(t.get("kind") == "observation" for t in r["turns"]) >= 1 for r in rollouts if r["status"] == "ok")
    print(f"local-model e2e run took {run.elapsed_s:.1f}s")
