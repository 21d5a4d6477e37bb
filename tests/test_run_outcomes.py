"""How ``skillopt run`` ends, as a user sees it: exit status, final line, the lock on
the run directory, and a resume under a changed config (issue 10: F5, F7).

The model service is the fault-injecting OpenAI-protocol server of faultkit.py, reached
through the ``openai-compatible`` backend and the real ``openai`` SDK; the env is the
installed SearchQA plugin on its bundled sample.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("skillopt_backends")
pytest.importorskip("skillopt_envs_searchqa")
sys.path.insert(0, str(Path(__file__).parent))

from faultkit import API_KEY, MODEL, Reply, ToyModelServer

SMALL = ["--preset", "small", "--set", "train.max_steps=2", "--set", "evaluation.sel_env_num=12",
         "--set", "evaluation.test_env_num=4", "--set", "model.max_retries=0"]


@pytest.fixture
def service(monkeypatch):
    server = ToyModelServer(target_script=lambda request: "Answer: nobody").start()
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", API_KEY)
    yield server
    server.stop()


def run_against(run_cli, server, out: Path, *extra: str):
    return run_cli("run", "--env", "searchqa", "--backend", "openai-compatible", "--base-url", server.base_url,
                   "--model", MODEL, "--out", str(out), *SMALL, *extra)


def words(text: str) -> str:
    return " ".join(text.split())


def test_an_optimizer_that_fails_every_call_exits_4_naming_the_model_setting(run_cli, service, tmp_path):
    service.optimizer_script = lambda request: "I am sorry, I cannot write JSON today."
    result = run_against(run_cli, service, tmp_path / "run")
    assert result.exit_code == 4, result.output
    assert "stopped (optimizer_failed)" in words(result.output) and "model.optimizer.model" in words(result.output)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["status"] == "optimizer_failed" and summary["steps_completed"] == 2
    history = json.loads((tmp_path / "run" / "history.json").read_text())
    assert [h["action"] for h in history] == ["skip_reflect_failed"] * 2
    assert "JSON schema" in history[0]["reflect_failure_reasons"][0]


def test_analyst_replies_cut_at_the_cap_name_the_optimizer_token_setting(run_cli, service, tmp_path):
    service.optimizer_script = lambda request: Reply(text='{"reasoning": "the answers are', finish="length")
    result = run_against(run_cli, service, tmp_path / "run")
    assert result.exit_code == 4, result.output
    assert "model.optimizer.max_tokens" in words(result.output)


def test_every_target_reply_cut_at_its_cap_stops_at_the_baseline_naming_the_env_setting(run_cli, service, tmp_path):
    service.target_script = lambda request: Reply(text="Answer: the answer is probably the", finish="length")
    result = run_against(run_cli, service, tmp_path / "run")
    assert result.exit_code == 5, result.output
    assert "env.max_completion_tokens" in words(result.output) and "target_truncated" in words(result.output)
    assert service.by_kind["optimizer"] == 0  # nothing was paid for after the baseline showed it


def test_a_provider_outage_exits_6_and_the_same_command_resumes(run_cli, service, tmp_path):
    from faultkit import outage

    service.faults.append(outage())
    out = tmp_path / "run"
    down = run_against(run_cli, service, out)
    assert down.exit_code == 6 and "model.target" in words(down.output), down.output
    service.faults.clear()
    up = run_against(run_cli, service, out)
    assert up.exit_code == 0, up.output
    assert json.loads((out / "summary.json").read_text())["status"] == "finished"


def cli(*args: str, home: Path) -> subprocess.Popen:
    env = {**os.environ, "SKILLOPT_HOME": str(home)}
    return subprocess.Popen([sys.executable, "-c", "from skillopt.cli import main; main()", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_a_second_run_on_the_same_directory_is_refused_at_once_naming_the_owner(tmp_path):
    out, home = tmp_path / "run", tmp_path / "home"
    args = ["run", "--env", "searchqa", "--backend", "scripted", "--set", "model.options.delay_s=0.2", "--out", str(out)]
    first = cli(*args, home=home)
    try:
        lock = out / "run.lock"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (lock.is_file() and lock.read_text().strip()):
            time.sleep(0.05)
        owner = json.loads(lock.read_text())
        assert owner["pid"] == first.pid
        started = time.monotonic()
        second = cli(*args, home=home)
        _, err = second.communicate(timeout=60)
        refused_in = time.monotonic() - started
        assert second.returncode != 0 and f"pid {first.pid}" in words(err) and "in use" in words(err)
        assert "resuming" not in err and "baseline" not in err  # it did nothing before refusing
        print(f"second run refused in {refused_in:.2f}s (interpreter start included)")
    finally:
        first.kill()
        first.wait()
    # the owner died without cleaning up: its lock is stale and is taken over with a note
    third = cli(*args, "--set", "train.max_steps=1", "--force-config", home=home)
    _, err = third.communicate(timeout=300)
    assert third.returncode == 0, err[-2000:]
    assert f"took over the lock of pid {first.pid}" in words(err)


def test_a_forced_config_change_is_recorded_in_history_and_summary(run_cli, tmp_path):
    out = tmp_path / "run"
    base = ["run", "--env", "searchqa", "--backend", "scripted", "--out", str(out), "--set", "evaluation.sel_env_num=4",
            "--set", "evaluation.test_env_num=4"]
    assert run_cli(*base, "--set", "train.max_steps=1").exit_code == 0
    changed = ["--set", "train.max_steps=2", "--set", "optimizer.learning_rate=3"]  # max_steps alone may grow a run
    refused = run_cli(*base, *changed)
    assert refused.exit_code != 0 and "optimizer.learning_rate" in refused.output
    forced = run_cli(*base, *changed, "--force-config")
    assert forced.exit_code == 0, forced.output
    history = json.loads((out / "history.json").read_text())
    changes = [h for h in history if h.get("kind") == "config_change"]
    assert len(changes) == 1 and changes[0]["after_step"] == 1
    assert any("optimizer.learning_rate" in c for c in changes[0]["changes"])
    assert [h["step"] for h in history if h.get("kind") == "step"] == [1, 2]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config_changes"][0]["after_step"] == 1
