"""The dashboard's server, over real run directories written by the engine (toy env,
scripted models; see toy.py), through real HTTP on 127.0.0.1."""

from __future__ import annotations

import http.client
import json
import os
import threading
import time

import pytest
from engine_helpers import cached_trainer, make_trainer

from skillopt.ui import runs
from skillopt.ui.server import Dashboard, make_server

TOKEN = "test-token-0123456789"


@pytest.fixture(scope="module")
def run_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    make_trainer(root / "toy-run", num_epochs=1).train()
    return root


@pytest.fixture
def served(run_root):
    dashboard = Dashboard([run_root], launch_root=run_root, token=TOKEN, poll_s=0.05)
    server = make_server(dashboard, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield dashboard, server.server_address[1]
    dashboard.stopping.set()
    server.shutdown()
    server.server_close()


def request(port, path, *, token=TOKEN, method="GET", body=None, host=None, content_type="application/json"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Host": host or f"127.0.0.1:{port}"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if body is not None:
        headers["Content-Type"] = content_type
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = conn.getresponse()
    raw = response.read()
    conn.close()
    try:
        return response.status, json.loads(raw)
    except ValueError:
        return response.status, raw.decode()


def test_runs_are_listed_with_their_real_numbers(served, run_root):
    _, port = served
    status, rows = request(port, "/api/runs")
    assert status == 200
    row = next(r for r in rows if r["id"] == "toy-run")
    summary = json.loads((run_root / "toy-run" / "summary.json").read_text())
    history = json.loads((run_root / "toy-run" / "history.json").read_text())
    assert row["status"] == "finished" and row["env"] == summary["env"]
    assert row["steps_done"] == len(history) and row["steps_planned"] == summary["total_steps"]
    assert row["accepts"] == sum(1 for h in history if h["action"].startswith(("accept", "force_accept"))) > 0
    assert row["test_best"] == summary["test"]["best"]["hard"]


def test_every_api_call_needs_the_token_and_our_host(served):
    _, port = served
    assert request(port, "/api/runs", token=None)[0] == 401
    assert request(port, "/api/runs", token="wrong")[0] == 401
    assert request(port, f"/api/runs?token={TOKEN}", token=None)[0] == 200  # the event stream's way
    assert request(port, "/api/runs", host="evil.example:80")[0] == 403  # DNS rebinding
    status, page = request(port, "/", token=None)
    assert status == 200 and "<title>SkillOpt dashboard</title>" in page
    assert request(port, "/", token=None, host="evil.example")[0] == 403


def test_run_detail_steps_and_skill_diff(served, run_root):
    _, port = served
    status, data = request(port, "/api/runs/toy-run")
    assert status == 200
    history = json.loads((run_root / "toy-run" / "history.json").read_text())
    assert [h["step"] for h in data["history"]] == [h["step"] for h in history]
    assert data["skills"] == runs.skill_versions(run_root / "toy-run") and len(data["skills"]) >= 2
    status, diff = request(port, f"/api/runs/toy-run/diff?a={data['skills'][0]}&b=best")
    assert status == 200 and diff["added"] > 0  # an accepted edit added lines to the best skill
    assert diff["diff"].startswith(f"--- skill {data['skills'][0]}")
    status, step = request(port, f"/api/runs/toy-run/steps/{data['steps'][0]}")
    assert status == 200 and "step_record" in step["files"]
    # each stage's saved result, by the pipeline's stage names
    assert {"reflect", "merge", "select", "apply", "gate"} <= set(step["files"]) and step["candidate_skill"]
    assert step["files"]["gate"]["verdict"]["action"] in ("accept", "reject")
    assert request(port, "/api/runs/toy-run/steps/999")[0] == 404


def test_unknown_runs_and_path_tricks_are_404(served):
    _, port = served
    for path in ("/api/runs/nope", "/api/runs/..%2F..%2Fetc/skills/0", "/api/runs/%2E%2E/diff", "/api/runs/toy-run/skills/..%2Fconfig"):
        assert request(port, path)[0] == 404, path


def test_secrets_in_run_files_never_leave_the_server(served, run_root):
    _, port = served
    # a config written by something that did not redact (the engine does)
    config_file = run_root / "toy-run" / "config.json"
    secret = "sk-proj-" + "Q" * 40
    try:
        config_file.write_text(json.dumps({"model": {"api_key": secret, "backend": "openai"}, "note": f"key {secret}"}))
        status, detail = request(port, "/api/runs/toy-run")
        assert status == 200 and detail["config"]["model"]["backend"] == "openai"
        assert secret not in json.dumps(detail)
    finally:
        config_file.unlink()


def test_the_event_stream_pushes_progress_when_the_run_writes(served, tmp_path):
    dashboard, port = served
    run = tmp_path / "live-run"
    run.mkdir()
    (run / "runtime_state.json").write_text(json.dumps({"status": "running", "last_completed_step": 0}))
    (run / "history.json").write_text("[]")
    dashboard.index.roots.append(tmp_path)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", f"/api/runs/live-run/events?token={TOKEN}", headers={"Host": f"127.0.0.1:{port}"})
    response = conn.getresponse()
    assert response.status == 200 and response.getheader("Content-Type") == "text/event-stream"

    def next_event() -> dict:
        data = None
        while True:
            line = response.fp.readline().decode()
            if line.startswith("data: "):
                data = json.loads(line[6:])
            elif line == "\n" and data is not None:
                return data

    assert next_event()["history_len"] == 0
    time.sleep(0.05)
    (run / "history.json").write_text(json.dumps([{"step": 1, "action": "accept"}]))
    os.utime(run / "history.json", (time.time() + 1, time.time() + 1))  # a distinct mtime on coarse clocks
    event = next_event()
    assert event["history_len"] == 1 and event["accepts"] == 1
    conn.close()


def test_a_launch_with_a_config_typo_is_refused_before_anything_starts(served, run_root, toy_registered):
    _, port = served
    before = set(p.name for p in run_root.iterdir())
    status, body = request(port, "/api/launch", method="POST", body={"env": "toy", "set": ["train.batch_sise=4"]})
    assert status == 400 and "batch_sise" in body["error"] and "batch_size" in body["error"]
    assert set(p.name for p in run_root.iterdir()) == before
    status, body = request(port, "/api/launch", method="POST", body={"env": "../../bin/sh"})
    assert status == 400 and "plain name" in body["error"]
    assert request(port, "/api/launch", method="POST", body={"env": "toy"}, content_type="text/plain")[0] == 415
    assert request(port, f"/api/launch?token={TOKEN}", method="POST", body={"env": "toy"}, token=None)[0] == 401


def test_check_and_estimate_before_launching(served, toy_registered):
    _, port = served
    status, checks = request(port, "/api/check", method="POST", body={"env": "toy", "backend": "scripted", "set": ["train.num_epochs=2"]})
    assert status == 200, checks
    by_name = {c["name"]: c for c in checks}
    assert all(c["ok"] for c in checks) and "target text call" not in by_name  # no model is called
    assert by_name["estimate"]["facts"]["steps"] == 2  # 16 train items fit one batch of 40: one step per epoch
    status, checks = request(port, "/api/check", method="POST", body={"env": "toy", "backend": "nosuch"})
    assert status == 200 and not {c["name"]: c for c in checks}["target backend"]["ok"]


def test_a_run_nobody_is_writing_is_shown_as_interrupted(tmp_path):
    run = tmp_path / "stale"
    run.mkdir()
    (run / "runtime_state.json").write_text(json.dumps({"status": "running", "last_completed_step": 2}))
    old = time.time() - 3600
    os.utime(run / "runtime_state.json", (old, old))
    row = runs.RunIndex([tmp_path]).listing()[0]
    assert row["status"] == "interrupted" and row["steps_done"] == 2


def test_the_runs_command_lists_shows_and_diffs(run_cli, run_root):
    listed = run_cli("runs", "--runs-dir", str(run_root), "--json")
    assert listed.exit_code == 0, listed.output
    assert [r["id"] for r in json.loads(listed.stdout)] == ["toy-run"]
    shown = run_cli("runs", "show", "toy-run", "--runs-dir", str(run_root), "--json")
    history = json.loads((run_root / "toy-run" / "history.json").read_text())
    assert [h["step"] for h in json.loads(shown.stdout)["history"]] == [h["step"] for h in history]
    diffed = run_cli("runs", "diff", str(run_root / "toy-run"), "0", "best")  # a path works too
    assert diffed.exit_code == 0 and diffed.stdout.startswith("--- skill 0\n+++ skill best")
    assert any(line.startswith("+") and not line.startswith("+++") for line in diffed.stdout.splitlines())
    missing = run_cli("runs", "show", "nope", "--runs-dir", str(run_root))
    assert missing.exit_code == 2 and "skillopt runs" in missing.output


def test_the_runs_table_never_cuts_a_run_id_at_80_columns(run_cli, run_root, tmp_path, monkeypatch):
    """The id is what `export`, `blame` and `runs show` take: whole, on one line, on an
    80-column terminal (the other columns wrap instead)."""
    import shutil

    names = ["spreadsheet-20260510-101112", "searchqa-gpt-4o-paper-preset-seed-3"]
    for name in names:
        shutil.copytree(run_root / "toy-run", tmp_path / name)
    monkeypatch.setenv("COLUMNS", "80")
    listed = run_cli("runs", "--runs-dir", str(tmp_path))
    assert listed.exit_code == 0, listed.output
    lines = listed.stderr.splitlines()
    assert max(len(line) for line in lines) <= 80
    for name in names:
        assert any(name in line for line in lines), listed.stderr
    monkeypatch.setenv("COLUMNS", "160")
    wide = run_cli("runs", "--runs-dir", str(tmp_path)).stderr
    assert "val base → best" in wide and all(any(f"│ {name} " in line for line in wide.splitlines()) for name in names)


def test_a_steps_trajectories_failures_first_with_flips_and_conversations(served, run_root):
    _, port = served
    gate = json.loads((run_root / "toy-run" / "steps" / "step_0001" / "gate" / "result.json").read_text())["result"]
    status, val = request(port, "/api/runs/toy-run/steps/1/rollouts?split=val")
    assert status == 200 and val["compared"]
    assert val["flips"]["fixed"] == gate["verdict"]["details"]["improved"]
    assert val["flips"]["broke"] == gate["verdict"]["details"]["regressed"]
    assert len(val["items"]) == gate["candidate"]["n"]
    status, train = request(port, "/api/runs/toy-run/steps/1/rollouts?split=train")
    scores = [i["hard"] for i in train["items"]]
    assert status == 200 and scores == sorted(scores) and not train["compared"]
    item = val["items"][0]["id"]
    status, talk = request(port, f"/api/runs/toy-run/steps/1/rollouts/{item}?split=val&side=before")
    assert status == 200 and talk["repeats"][0]["turns"][-1]["role"] == "assistant"
    assert request(port, "/api/runs/toy-run/steps/1/rollouts?split=nosuch")[0] == 404
    assert request(port, "/api/runs/toy-run/steps/1/rollouts/..%2F..%2Fsummary?split=val")[0] == 404


def test_compare_lists_what_differs_and_each_curve(served, run_root, tmp_path):
    dashboard, port = served
    make_trainer(tmp_path / "other-run", num_epochs=1, train={"batch_size": 4}).train()
    for name, cfg in (("other-run", {"train": {"batch_size": 4}}), ):
        (tmp_path / name / "config.json").write_text(json.dumps(cfg))
    (run_root / "toy-run" / "config.json").write_text(json.dumps({"train": {"batch_size": 8}}))
    dashboard.index.roots.append(tmp_path)
    try:
        status, c = request(port, "/api/compare?runs=toy-run,other-run")
        assert status == 200
        assert c["config_diff"] == [{"key": "train.batch_size", "values": {"toy-run": 8, "other-run": 4}}]
        history = json.loads((tmp_path / "other-run" / "history.json").read_text())
        assert [p["step"] for p in c["curves"]["other-run"]] == [0] + [h["step"] for h in history]  # from the baseline
        assert request(port, "/api/compare?runs=toy-run")[0] == 400
        assert request(port, "/api/compare?runs=toy-run,nope")[0] == 404
    finally:
        (run_root / "toy-run" / "config.json").unlink()


def test_the_page_and_its_files_are_served_and_nothing_else(served):
    _, port = served
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/", headers={"Host": f"127.0.0.1:{port}"})
    response = conn.getresponse()
    page = response.read().decode()
    assert "script-src 'self'" in response.getheader("Content-Security-Policy") and "unsafe-inline" not in response.getheader(
        "Content-Security-Policy").split("script-src")[1].split(";")[0]
    for src in __import__("re").findall(r'(?:src|href)="(/[^"]+)"', page):
        assert request(port, src, token=None)[0] == 200, src
    assert request(port, "/favicon.ico", token=None)[0] == 200
    for bad in ("/static/../runs.py", "/static/%2e%2e/server.py", "/static/vendor/../../launch.py", "/static/app.py", "/etc/passwd"):
        assert request(port, bad, token=None)[0] == 404, bad


def test_the_lock_decides_running_and_a_planted_pid_is_not_an_owner(tmp_path):
    import socket

    from skillopt.engine.lock import RunLock, holder

    run = tmp_path / "locked"
    (run).mkdir()
    (run / "runtime_state.json").write_text(json.dumps({"status": "running", "last_completed_step": 1}))
    lock = RunLock(run).acquire()
    try:
        assert holder(run).state == "held" and runs.RunIndex([tmp_path]).listing()[0]["status"] == "running"
    finally:
        lock.release()
    assert runs.RunIndex([tmp_path]).listing()[0]["status"] == "interrupted"  # at once, not after two minutes
    # a run.lock naming a live process that does not hold the lock (pid 1, this process)
    for pid in (1, os.getpid()):
        (run / "run.lock").write_text(json.dumps({"pid": pid, "host": socket.gethostname(), "started_at": "x"}))
        assert holder(run).state == "free", pid


def test_a_step_served_from_the_call_cache_shows_what_it_saved(tmp_path, run_cli):
    """A step answered entirely by the call cache showed 0 tokens and $0 with no marker."""
    cache = tmp_path / "calls.sqlite3"
    first = cached_trainer(tmp_path / "runs" / "paid", cache)
    first.train()
    repeat = cached_trainer(tmp_path / "runs" / "repeat", cache)
    lines = []
    repeat.reporter = repeat.runner.reporter = type("Lines", (), {"line": lambda self, t: lines.append(t), "phase": lambda self, t: None,
                                                                  "items": lambda self, *a: None})()
    repeat.train()
    paid = json.loads((tmp_path / "runs" / "paid" / "history.json").read_text())
    again = json.loads((tmp_path / "runs" / "repeat" / "history.json").read_text())
    for before, after in zip(paid, again, strict=True):
        assert after["calls"] == 0 and after["prompt_tokens"] == 0 and after["cost_usd"] == 0  # nothing was paid
        assert after["cached_calls"] == before["calls"] > 0
        assert after["cached_tokens"] == before["prompt_tokens"] + before["completion_tokens"]
        assert after["cached_cost_usd"] == pytest.approx(before["cost_usd"])
    step_lines = [line for line in lines if line.startswith("step ")]
    assert step_lines and all(f"+ {h['cached_calls']} cached ({h['cached_tokens']} tok" in line
                              for line, h in zip(step_lines, again, strict=True))

    dashboard = Dashboard([tmp_path / "runs"], launch_root=tmp_path / "runs", token=TOKEN, poll_s=0.05)
    server = make_server(dashboard, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        status, data = request(server.server_address[1], "/api/runs/repeat")
    finally:
        dashboard.stopping.set()
        server.shutdown()
        server.server_close()
    assert status == 200 and [h["cached_calls"] for h in data["history"]] == [h["calls"] for h in paid]
    summary = json.loads((tmp_path / "runs" / "repeat" / "summary.json").read_text())
    assert data["overview"]["cached_calls"] == summary["usage"]["cached_calls"] > 0
    assert summary["usage"]["cached_cost_usd"] > 0
    assert data["overview"]["cached_cost_usd"] == pytest.approx(summary["usage"]["cached_cost_usd"])
    shown = run_cli("runs", "show", "repeat", "--runs-dir", str(tmp_path / "runs"))
    assert f"answered from the call cache, saved: step 1: {again[0]['cached_calls']} calls, {again[0]['cached_tokens']} tok" in shown.output


def test_a_damaged_history_is_read_as_a_resume_reads_it_and_said(run_root, tmp_path, run_cli):
    """A damaged run showed "No steps" and "accepted 0" with no warning, while a resume
    heals it: the dashboard now reads it the engine's way (rebuilt from the step records,
    in memory) and says what it healed."""
    import shutil

    original = runs.detail("toy-run", run_root / "toy-run")
    assert original["overview"]["warnings"] == [] and original["overview"]["accepts"] > 0
    for name, text in {"torn": '[{"step": 1, "ac', "numbers": "[1, 2]", "number": "5"}.items():
        damaged = tmp_path / name
        shutil.copytree(run_root / "toy-run", damaged)
        (damaged / "history.json").write_text(text)
        seen = runs.detail(name, damaged)
        assert [h["step"] for h in seen["history"]] == [h["step"] for h in original["history"]], name
        assert seen["overview"]["accepts"] == original["overview"]["accepts"], name
        [warning] = seen["overview"]["warnings"]
        assert warning.startswith("history.json") and "read from steps/step_NNNN/step_record.json" in warning, warning
        assert (damaged / "history.json").read_text() == text  # the dashboard writes nothing into a run
    (tmp_path / "numbers" / "runtime_state.json").write_text("{not json")
    warnings = runs.overview("numbers", tmp_path / "numbers")["warnings"]
    assert any(w.startswith("runtime_state.json is damaged") for w in warnings)
    shown = run_cli("runs", "show", "torn", "--runs-dir", str(tmp_path))
    assert "warning: history.json is damaged" in " ".join(shown.output.split())
