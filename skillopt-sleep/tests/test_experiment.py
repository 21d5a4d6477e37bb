"""Acceptance: the deterministic persona experiment (also ``python -m
skillopt_sleep.experiments`` and ``skillopt sleep experiment``) shows the gated cycle
improving the held-out test score and blocking the harmful edit, on several seeds."""

import json
import subprocess
import sys

from skillopt_sleep.experiments.run import run_experiment, verdict


def test_gated_cycle_improves_held_out_and_blocks_harmful_edit():
    results = run_experiment(persona="all", seeds=3)
    ok, summary = verdict(results)
    assert ok, summary
    assert len(results) == 6
    for r in results:
        assert r["test_final"] > r["test_baseline"], r
        assert r["harmful_proposed"] and r["harmful_blocked"], r
        assert r["test_ungated"] < r["test_final"], "without the gate the harmful rule would have been adopted"


def test_experiment_cli_entry_points(run_cli):
    res = run_cli("sleep", "experiment", "--persona", "webdev", "--seeds", "1", "--json", "--assert-improves")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["ok"] is True
    proc = subprocess.run(
        [sys.executable, "-m", "skillopt_sleep.experiments", "--persona", "pythonista", "--seeds", "1", "--assert-improves"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
