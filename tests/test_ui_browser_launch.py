"""Launching, stopping and resuming real ``skillopt run`` processes from the dashboard in
a real headless Chromium: the installed SearchQA env on the ``scripted`` backend (a
deterministic stand-in for a model; ``delay_s`` makes a run slow enough to act on)."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys

import pytest
from browserkit import TOKEN, Served, browser, click_id, console_errors, driver, js, text_of, wait_for  # noqa: F401 (fixtures)

pytest.importorskip("skillopt_envs_searchqa")

SLOW = ["model.options.delay_s=0.3", "train.max_steps=3"]
QUICK = ["train.max_steps=1"]
KEY = "sk-proj-" + "K7" * 24


@pytest.fixture
def served(tmp_path):
    server = Served([tmp_path])
    yield server
    server.stop()


def fill_and_start(driver, url, sets, backend="scripted"):
    driver.get(url)
    wait_for(lambda: js(driver, "return document.querySelectorAll('#env option').length") > 0, what="the launch form")
    js(driver, "document.getElementById('env').value = 'searchqa'")
    js(driver, "document.getElementById('backend').value = arguments[0]", backend)
    js(driver, "document.querySelector('#launch input[name=preset]').value = 'small'")
    js(driver, "document.querySelector('#launch textarea[name=set]').value = arguments[0]", "\n".join(sets))
    console_errors(driver)
    click_id(driver, "start-run")


def started_run(driver) -> str:
    wait_for(lambda: "#/run/" in driver.current_url, timeout=60, what="the started run's page")
    return driver.current_url.split("#/run/")[1]


def status(driver) -> str:
    return text_of(driver, "#run-status")


def post(port, path, body=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("POST", path, body=json.dumps(body or {}), headers={
        "Host": f"127.0.0.1:{port}", "Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    response = conn.getresponse()
    raw = response.read().decode()
    conn.close()
    return response.status, raw


def test_resume_after_a_dashboard_restart_is_refused_while_the_run_lives(driver, tmp_path):
    """Defect 1: a second dashboard over the same runs sees the first one's run as
    running (from its lock), offers Stop not Resume, and refuses a resume request; Stop
    then Resume work through the lock."""
    first = Served([tmp_path])
    fill_and_start(driver, first.url(), SLOW)
    run_id = started_run(driver)
    wait_for(lambda: status(driver) == "running", what="running")
    first.stop(kill_launched=False)  # the dashboard goes away; its run goes on
    second = Served([tmp_path])
    try:
        driver.get(second.url(f"#/run/{run_id}"))
        wait_for(lambda: status(driver) == "running", what="running, seen by the restarted dashboard")
        console_errors(driver)  # the first dashboard's page lost its server: those reconnect errors are expected
        assert js(driver, "return !!document.getElementById('stop-run') && !document.getElementById('resume-run')")
        code, body = post(second.port, f"/api/runs/{run_id}/resume")
        assert code == 409 and "second run on it is refused" in body
        first_pid = int(re.search(r"pid (\d+)", text_of(driver, "#run-head")).group(1))

        click_id(driver, "stop-run")
        wait_for(lambda: status(driver) == "interrupted", timeout=15, what="interrupted after Stop")
        first.dashboard.launcher.launches()[run_id].proc.wait(timeout=10)  # it ended (reaped here: we are its parent)
        wait_for(lambda: js(driver, "return !!document.getElementById('resume-run')"), what="the Resume button")
        click_id(driver, "resume-run")
        wait_for(lambda: status(driver) == "running", timeout=30, what="running again after Resume")
        pid = int(re.search(r"pid (\d+)", text_of(driver, "#run-head")).group(1))
        assert pid != first_pid
        code, body = post(second.port, f"/api/runs/{run_id}/resume")
        assert code == 409, body
        assert console_errors(driver) == []
    finally:
        second.stop()


@pytest.mark.slow
def test_a_sigkilled_run_shows_interrupted_at_once(driver, served, tmp_path):
    """Defect 7: no process holds the lock after SIGKILL, so the page says so within
    seconds, not after the two-minute file-time window."""
    out = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "skillopt", "run", "--env", "searchqa", "--backend", "scripted", "--preset", "small",
                             *[x for s in SLOW for x in ("--set", s)], "--out", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: (out / "runtime_state.json").is_file(), timeout=60, what="the run's state")
        driver.get(served.url("#/run/killed"))
        wait_for(lambda: status(driver) == "running", what="running")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        wait_for(lambda: status(driver) == "interrupted", timeout=5, what="interrupted after SIGKILL")
        assert not js(driver, "return !!document.getElementById('stop-run')")
        assert console_errors(driver) == []
    finally:
        if proc.poll() is None:
            proc.kill()


def test_skillopt_ui_runs_dir_receives_the_runs_it_launches(driver, tmp_path, skillopt_home):
    """Defect 2: ``skillopt ui --runs-dir X`` launches into X, so the run is listed."""
    runs_dir = tmp_path / "my-runs"
    runs_dir.mkdir()
    ui = subprocess.Popen([sys.executable, "-m", "skillopt", "ui", "--runs-dir", str(runs_dir), "--port", "0", "--token", TOKEN],
                          stderr=subprocess.PIPE, text=True)
    try:
        url = wait_for(lambda: re.search(r"open (http://\S+)", ui.stderr.readline() or ""), timeout=30, what="the URL").group(1)
        fill_and_start(driver, url, QUICK)
        run_id = started_run(driver)
        wait_for(lambda: status(driver) == "finished", timeout=60, what="finished")
        assert (runs_dir / run_id / "summary.json").is_file()
        assert js(driver, "return [...document.querySelectorAll('#runs tr')].map(r => r.dataset.id)") == [run_id]
        assert not list(skillopt_home.rglob("summary.json"))  # nothing went to the default data dir
        assert console_errors(driver) == []
    finally:
        ui.terminate()
        ui.wait(timeout=10)


def test_start_runs_the_checks_and_a_child_that_dies_shows_its_log(driver, served, tmp_path, monkeypatch):
    """Defect 3: Start refuses what "Check & estimate" would fail (a missing key) and
    starts nothing; a resume whose process dies at once shows why, from its log."""
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    fill_and_start(driver, served.url(), QUICK, backend="openai")
    wait_for(lambda: "not started" in text_of(driver, "#launch-result"), timeout=30, what="the refusal")
    assert "FAIL" in text_of(driver, "#estimate-result") and "backend" in text_of(driver, "#estimate-result")
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")] == []

    fill_and_start(driver, served.url(), SLOW)
    run_id = started_run(driver)
    wait_for(lambda: status(driver) == "running", what="running")
    assert post(served.port, f"/api/runs/{run_id}/stop")[0] == 200
    argv = tmp_path / ".dashboard-logs" / f"{run_id}.argv.json"
    args = json.loads(argv.read_text())
    argv.write_text(json.dumps([*args, "--set", "train.seed=99"]))  # the resume now asks for another config: refused
    wait_for(lambda: js(driver, "return !!document.getElementById('resume-run')"), timeout=10, what="the Resume button")
    click_id(driver, "resume-run")
    wait_for(lambda: "different config" in text_of(driver, "#notice"), timeout=30,
             what=f"the child's error (page: {text_of(driver, '#view')[:300]!r}, notice {text_of(driver, '#notice')!r})")
    wait_for(lambda: "different config" in text_of(driver, "#run-error"), timeout=10, what="the log's end on the run page")
    assert status(driver) == "interrupted"
    assert console_errors(driver, allow=("409",)) == []


def test_a_key_given_to_the_launch_form_is_stored_and_echoed_nowhere(driver, served, tmp_path):
    """Defect 4: the key reaches the child's environment only: not the command file, the
    log, the run directory, the page or any API answer."""
    fill_and_start(driver, served.url(), [*QUICK, f"model.api_key={KEY}"])
    run_id = started_run(driver)
    wait_for(lambda: status(driver) == "finished", timeout=60, what="finished")
    code, body = post(served.port, "/api/launch", {"env": "searchqa", "backend": "scripted", "preset": "small",
                                                   "set": [*QUICK, f"model.api_key={KEY}"]})
    assert code == 202 and KEY not in body and "api_key_env=" in body
    second = json.loads(body)["id"]
    code, body = post(served.port, "/api/launch", {"env": "searchqa", "backend": "scripted",
                                                   "set": [f'model.options.headers={{Authorization="Bearer {KEY}"}}']})
    assert code == 400 and "credential" in body and KEY not in body
    wait_for(lambda: all((tmp_path / r / "summary.json").is_file() for r in (run_id, second)), timeout=60, what="both runs finished")
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert KEY not in path.read_text(errors="replace"), path
    assert KEY not in driver.page_source
    assert console_errors(driver) == []
