"""The run store: one rule for which folders are runs, used by the CLI, the API and the dashboard."""

from __future__ import annotations

import json

import pytest


def test_one_is_run_dir_for_the_cli_the_api_and_the_dashboard():
    from skillopt import api, runstore
    from skillopt.ui import runs

    assert api.is_run_dir is runstore.is_run_dir and runs.is_run_dir is runstore.is_run_dir


def test_a_run_still_computing_its_baseline_is_found_by_name(tmp_path):
    """It has only its lock and config yet: the dashboard lists it, and ``find_run`` (the
    CLI's and the API's) finds it too, where it used to say there was no such run."""
    from skillopt.errors import ConfigError
    from skillopt.runstore import find_run, is_run_dir, runs_under

    run = tmp_path / "fresh"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"env": {"name": "toy"}}), encoding="utf-8")
    assert not is_run_dir(run)  # a config alone is not a run
    (run / "run.lock").write_text("{}", encoding="utf-8")
    assert is_run_dir(run) and runs_under([tmp_path]) == {"fresh": run}
    assert find_run("fresh", [tmp_path]) == run
    with pytest.raises(ConfigError, match="no run named '../fresh'"):
        find_run("../fresh", [tmp_path / "x"])


def test_the_cli_reads_run_folders_through_the_run_store_not_the_dashboard():
    import ast
    from pathlib import Path

    import skillopt.cli

    for path in Path(skillopt.cli.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "skillopt.ui.runs":
                assert not {a.name for a in node.names} & {"is_run_dir", "read_json", "planted_link", "runs_under"}, path.name
