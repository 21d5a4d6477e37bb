"""A real ``skillopt run`` (SearchQA on the scripted backend) logged to a real local MLflow
store (SQLite), read back with ``MlflowClient``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("skillopt_envs_searchqa")
from mlflow import MlflowClient


def run_args(out, *extra):
    return ("run", "--env", "searchqa", "--backend", "scripted", "--out", str(out), "--set", "env.limit=8",
            "--set", "train.batch_size=4", "--set", "train.max_steps=2", *extra, "--json")


def steps_of(out):
    return [h for h in json.loads((out / "history.json").read_text()) if h.get("kind", "step") == "step"]


@pytest.fixture(autouse=True)
def elsewhere(tmp_path, monkeypatch):
    """Runs start from an empty folder, which must stay empty: MLflow's default artifact
    root is ``./mlruns`` under the current folder."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    yield
    assert list(cwd.iterdir()) == []


def test_a_run_is_logged_with_params_metrics_and_artifacts_and_a_resume_adds_nothing(run_cli, tmp_path, monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    uri = f"sqlite:///{tmp_path / 'store.db'}"
    out = tmp_path / "capitals-run"
    args = run_args(out, "--set", "tracking=[mlflow]", "--set", f"observers.mlflow.tracking_uri={uri}",
                    "--set", "observers.mlflow.experiment=skill-training")
    result = run_cli(*args)
    assert result.exit_code == 0, result.output

    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("skill-training")
    [logged] = client.search_runs([experiment.experiment_id])
    run_id = logged.info.run_id
    assert logged.info.status == "FINISHED" and logged.info.run_name == "capitals-run"
    assert logged.data.tags["skillopt.env"] == "searchqa" and logged.data.tags["skillopt.status"] == "finished"
    assert logged.data.params["env.name"] == "searchqa" and logged.data.params["train.max_steps"] == "2"
    history = steps_of(out)
    assert [h["step"] for h in history] == [1, 2]
    for key in ("current_score", "rollout_hard", "edit_budget", "n_edits_selected", "prompt_tokens"):
        got = sorted((m.step, m.value) for m in client.get_metric_history(run_id, key))
        assert got == [(h["step"], float(h[key])) for h in history], key
    summary = json.loads((out / "summary.json").read_text())
    assert logged.data.metrics["test_best_hard"] == summary["test"]["best"]["hard"]
    assert logged.data.metrics["val_baseline"] == summary["val"]["baseline_gate_score"]
    # the initial skill's scores sit at step 0 (the chart starts where training starts)
    assert [(m.step, m.value) for m in client.get_metric_history(run_id, "val_baseline")] == \
        [(0, summary["val"]["baseline_gate_score"])]
    assert [(m.step, m.value) for m in client.get_metric_history(run_id, "test_initial_hard")] == \
        [(0, summary["test"]["initial"]["hard"])]
    assert [m.step for m in client.get_metric_history(run_id, "test_best_hard")] == [history[-1]["step"]]
    top = {a.path for a in client.list_artifacts(run_id)}
    assert {"summary.json", "history.json", "best_skill.md", "skills"} <= top
    assert {a.path for a in client.list_artifacts(run_id, "skills")} == \
        {"skills/skill_v0000.md"} | {f"skills/skill_v{h['step']:04d}.md" for h in history}  # the initial skill too
    initial = client.download_artifacts(run_id, "skills/skill_v0000.md", str(tmp_path / "initial"))
    assert Path(initial).read_text(encoding="utf-8") == (out / "skills" / "skill_v0000.md").read_text()
    local = client.download_artifacts(run_id, "best_skill.md", str(tmp_path / "download"))
    assert Path(local).read_text(encoding="utf-8") == (out / "best_skill.md").read_text()

    again = run_cli(*args)  # the finished run again: the engine replays its steps to the observers
    assert again.exit_code == 0, again.output
    assert [r.info.run_id for r in client.search_runs([experiment.experiment_id])] == [run_id]
    assert len(client.get_metric_history(run_id, "current_score")) == len(history)  # nothing logged twice


def test_nothing_is_logged_unless_the_run_or_the_environment_asks(run_cli, tmp_path, skillopt_home, monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    quiet = run_cli(*run_args(tmp_path / "quiet"))
    assert quiet.exit_code == 0, quiet.output
    assert not (tmp_path / "quiet" / "tracking").exists() and not list(skillopt_home.rglob("mlflow*"))

    uri = f"sqlite:///{tmp_path / 'env-store.db'}"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    asked = run_cli(*run_args(tmp_path / "asked"))
    assert asked.exit_code == 0, asked.output
    experiment = MlflowClient(tracking_uri=uri).get_experiment_by_name("skillopt-searchqa")
    assert [r.info.run_name for r in MlflowClient(tracking_uri=uri).search_runs([experiment.experiment_id])] == ["asked"]


def test_a_misspelt_tracker_is_refused_before_the_run_starts(run_cli, tmp_path):
    result = run_cli(*run_args(tmp_path / "typo", "--set", "tracking=[mlfow]"))
    assert result.exit_code != 0 and "mlfow" in result.output and "mlflow" in result.output
    assert not (tmp_path / "typo").exists()


@pytest.mark.slow
def test_mlflow_ui_serves_the_store_the_plugin_wrote(run_cli, tmp_path, monkeypatch):
    """The README's `mlflow ui --backend-store-uri sqlite:///…` on a store this plugin
    wrote: the server starts (full MLflow, the ``[ui]`` extra, at the plugin's
    mlflow-skinny version: an older MLflow refuses a newer store's schema), its REST API
    lists the run with its metrics, and it serves the web page."""
    import http.client
    import os
    import signal
    import socket
    import subprocess
    import sys
    import time

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    uri = f"sqlite:///{tmp_path / 'store.db'}"
    out = tmp_path / "ui-run"
    result = run_cli(*run_args(out, "--set", "tracking=[mlflow]", "--set", f"observers.mlflow.tracking_uri={uri}"))
    assert result.exit_code == 0, result.output
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    mlflow = [sys.executable, "-c", "from mlflow.cli import cli; cli()"]
    server = subprocess.Popen([*mlflow, "ui", "--backend-store-uri", uri, "--host", "127.0.0.1", "--port", str(port),
                               "--workers", "1"], cwd=tmp_path / "cwd", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, start_new_session=True)

    def call(method, path, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request(method, path, body=json.dumps(body) if body is not None else None,
                         headers={"Content-Type": "application/json"})
            response = conn.getresponse()
            return response.status, response.read().decode("utf-8", "replace")
        finally:
            conn.close()

    try:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, f"mlflow ui exited: {server.communicate()[1][-2000:]}"
            try:
                if call("GET", "/health")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "mlflow ui did not answer within 120 s"
            time.sleep(0.5)
        status, found = call("POST", "/api/2.0/mlflow/experiments/search", {"max_results": 10})
        assert status == 200, found
        [experiment] = [e for e in json.loads(found)["experiments"] if e["name"] == "skillopt-searchqa"]
        status, found = call("POST", "/api/2.0/mlflow/runs/search", {"experiment_ids": [experiment["experiment_id"]]})
        assert status == 200, found
        [listed] = json.loads(found)["runs"]
        assert listed["info"]["run_name"] == "ui-run" and listed["info"]["status"] == "FINISHED"
        metrics = {m["key"]: m["value"] for m in listed["data"]["metrics"]}
        assert metrics["current_score"] == steps_of(out)[-1]["current_score"]
        status, page = call("GET", "/")
        assert status == 200 and "<title>MLflow</title>" in page  # the web app, not only the API
    finally:
        os.killpg(server.pid, signal.SIGKILL)
        server.communicate()


def test_the_final_pick_on_a_selection_split_is_logged(run_cli, tmp_path, monkeypatch):
    """A run that picks its final skill on a carved selection split: the pick's scores are
    metrics and its rule, split and origin are tags, as summary.json says."""
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    uri = f"sqlite:///{tmp_path / 'store.db'}"
    out = tmp_path / "picked-run"
    result = run_cli(*run_args(out, "--set", "tracking=[mlflow]", "--set", f"observers.mlflow.tracking_uri={uri}",
                               "--set", "evaluation.selection_split=carved", "--set", "search.select=smallest"))
    assert result.exit_code == 0, result.output
    pick = json.loads((out / "summary.json").read_text())["selection"]
    client = MlflowClient(tracking_uri=uri)
    [logged] = client.search_runs([client.get_experiment_by_name("skillopt-searchqa").experiment_id])
    assert logged.data.tags["skillopt.selection_split"] == "selection" == pick["split"]
    assert logged.data.tags["skillopt.selection_rule"] == "smallest"
    assert logged.data.tags["skillopt.selection_origin"] == pick["origin"]
    assert logged.data.metrics["selection_accuracy"] == pick["objectives"]["accuracy"]
    assert logged.data.metrics["selection_items"] == pick["n_items"] > 0
