"""End to end on the embedded local model: `skillopt run --env livemath` in a subprocess."""

import pytest

from skillopt.testing import finished_run, requires_local_model, run_skillopt

pytestmark = pytest.mark.local_model


@requires_local_model
def test_reduced_run_on_the_local_model(tmp_path):
    out = tmp_path / "run"
    # Tiny on purpose: 2 train items in one step, 2 val and 2 test items, short replies, one
    # bounded analyst call. About a minute on an idle 2-core machine.
    run = run_skillopt(
        "run", "--env", "livemath",
        "--set", "env.limit=2", "--set", "train.batch_size=2", "--set", "train.num_epochs=1",
        "--set", "evaluation.sel_env_num=2", "--set", "evaluation.test_env_num=2",
        "--set", "env.max_completion_tokens=32", "--set", "gradient.max_trajectory_chars=300",
        "--set", "model.optimizer.max_tokens=192", "--set", "model.schema_retries=0",
        "--out", str(out),
        home=tmp_path / "home",
    )  # fmt: skip
    summary = finished_run(out, run)
    assert summary["config"]["preset"] == "small"
    assert summary["test"]["initial"]["n"] == 2
    print(f"local-model e2e run took {run.elapsed_s:.1f}s")
