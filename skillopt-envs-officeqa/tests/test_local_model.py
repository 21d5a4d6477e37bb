"""End to end on the embedded local model: `skillopt run --env officeqa` in a subprocess."""

import pytest

from skillopt.testing import finished_run, requires_local_model, run_skillopt

pytestmark = pytest.mark.local_model


@requires_local_model
def test_reduced_run_on_the_local_model(tmp_path):
    out = tmp_path / "run"
    # The small preset (oracle mode) cut to 2 train items in one step, 2 val and 2 test items,
    # one-page prompts and short replies, one bounded analyst call.
    run = run_skillopt(
        "run", "--env", "officeqa",
        "--set", "env.limit=2", "--set", "train.batch_size=2", "--set", "train.max_steps=1",
        "--set", "evaluation.sel_env_num=2", "--set", "evaluation.test_env_num=2",
        "--set", "env.max_completion_tokens=24", "--set", "env.oracle_total_chars=1200",
        "--set", "gradient.max_trajectory_chars=200", "--set", "model.optimizer.max_tokens=96",
        "--set", "model.schema_retries=0", "--out", str(out),
        home=tmp_path / "home",
    )  # fmt: skip
    summary = finished_run(out, run)
    assert summary["config"]["preset"] == "small"
    assert summary["config"]["env"]["mode"] == "oracle"
    assert summary["test"]["initial"]["n"] == 2
    print(f"local-model e2e run took {run.elapsed_s:.1f}s")
