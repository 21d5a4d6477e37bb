"""`skillopt run --env spreadsheetbench` on the embedded local model (SmolLM2-135M).

A tiny setting of the small preset: one item per split, one step (four target calls and
one optimizer call). The 135M model is weak
at code, so scores near 0 are expected; the test checks that the run completes and
writes its files, not a score.
"""

from __future__ import annotations

import json

import pytest

from skillopt.testing import finished_run, requires_local_model, run_skillopt

pytestmark = pytest.mark.local_model


@requires_local_model
def test_skillopt_run_completes_on_the_local_model(tmp_path):
    out = tmp_path / "run"
    skill = tmp_path / "skill.md"  # short, so each prompt prefill stays small on 2 CPU cores
    skill.write_text("# Skill\n- Load INPUT_PATH with openpyxl, write computed values, save to OUTPUT_PATH.\n")
    # Optimizer calls are the slow part on 2 cores (JSON-constrained decoding): short replies
    # and no schema re-ask keep the one analyst call bounded; a cut-off reply just skips the step.
    settings = ["env.limit=1", "train.batch_size=1", "evaluation.sel_env_num=1", "evaluation.test_env_num=1",
                "env.max_completion_tokens=64", "env.preview_rows=2", f"env.skill_init={skill}",
                "gradient.max_trajectory_chars=600", "model.optimizer.max_tokens=128", "model.schema_retries=0",
                "model.timeout_s=300"]
    args = ["run", "--env", "spreadsheetbench", "--out", str(out)]
    for item in settings:
        args += ["--set", item]
    run = run_skillopt(*args, home=tmp_path / "home", threads=0)
    # replies are capped very short on purpose: a run whose every reply (or analyst reply) is cut may end saying so
    summary = finished_run(out, run, allow=("finished", "target_truncated", "optimizer_failed"))
    assert summary["config"]["preset"] == "small"
    assert summary["test"]["initial"]["n"] == 1
    history = json.loads((out / "history.json").read_text())
    print(f"\nrun took {run.elapsed_s:.0f}s; step timing {history[0]['timing']}; test hard "
          f"{summary['test']['initial']['hard']} soft {summary['test']['initial']['soft']}")
