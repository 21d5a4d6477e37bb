"""Launching and stopping real ``skillopt run`` processes from the dashboard.

The runs use the installed SearchQA env and the ``scripted`` backend (a deterministic
stand-in for a model; ``delay_s`` makes it slow enough to stop mid-run).
"""

from __future__ import annotations

import http.client
import json
import threading
import time

import pytest

pytest.importorskip("skillopt_envs_searchqa")

from skillopt.ui.server import Dashboard, make_server

TOKEN = "launch-token-0123456789"


@pytest.fixture
def served(tmp_path):
    dashboard = Dashboard([tmp_path], launch_root=tmp_path, token=TOKEN, poll_s=0.1)
    server = make_server(dashboard, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield dashboard, server.server_address[1]
    dashboard.launcher.stop_all()
    dashboard.stopping.set()
    server.shutdown()
    server.server_close()


def call(port, method, path, body=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Host": f"127.0.0.1:{port}", "Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = conn.getresponse()
    data = json.loads(response.read())
    conn.close()
    return response.status, data


def wait_for(port, run_id, predicate, timeout=120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, rows = call(port, "GET", "/api/runs")
        row = next((r for r in rows if r["id"] == run_id), None)
        if row is not None and predicate(row):
            return row
        time.sleep(0.3)
    raise AssertionError(f"{run_id} never reached the expected state; log: {call(port, 'GET', f'/api/runs/{run_id}/log')[1]}")


def test_a_launched_run_finishes_and_shows_up(served, tmp_path):
    _, port = served
    status, started = call(port, "POST", "/api/launch", {
        "env": "searchqa", "backend": "scripted", "preset": "small", "set": ["train.max_steps=1"],
    })
    assert status == 202, started
    assert started["command"][:4] == ["skillopt", "run", "--env", "searchqa"]
    row = wait_for(port, started["id"], lambda r: r["status"] == "finished")
    summary = json.loads((tmp_path / started["id"] / "summary.json").read_text())
    assert row["steps_done"] == summary["steps_completed"] == 1
    assert "done (finished)" in call(port, "GET", f"/api/runs/{started['id']}/log")[1]["log"]


@pytest.mark.slow
def test_stop_kills_a_run_and_it_resumes_from_where_it_was(served, tmp_path):
    _, port = served
    status, started = call(port, "POST", "/api/launch", {
        "env": "searchqa", "backend": "scripted", "preset": "small", "set": ["model.options.delay_s=0.05"],
    })
    assert status == 202, started
    run_id = started["id"]
    wait_for(port, run_id, lambda r: r["status"] == "running" and (r["steps_done"] or 0) >= 1, timeout=90)
    status, stopped = call(port, "POST", f"/api/runs/{run_id}/stop", {})
    assert status == 200 and stopped["stopped"] is True
    row = wait_for(port, run_id, lambda r: r["status"] != "running", timeout=30)
    assert row["status"] != "finished" and not (tmp_path / run_id / "summary.json").exists()
    assert call(port, "POST", f"/api/runs/{run_id}/stop", {})[0] == 409  # nothing left to stop
    done_before = row["steps_done"]

    status, resumed = call(port, "POST", f"/api/runs/{run_id}/resume", {})
    assert status == 202, resumed
    row = wait_for(port, run_id, lambda r: r["status"] == "finished")
    summary = json.loads((tmp_path / run_id / "summary.json").read_text())
    assert summary["steps_completed"] == summary["total_steps"] == row["steps_done"] >= done_before
    log = call(port, "GET", f"/api/runs/{run_id}/log")[1]["log"]
    assert "resum" in log.lower() and "done (finished)" in log
    assert call(port, "POST", "/api/runs/no-such-run/resume", {})[0] == 404
