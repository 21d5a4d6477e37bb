"""The SessionEnd hook: it returns at once, stages a night in the background for the
session's project (never adopting), and starts nothing for automated sessions, while a
night is running, or too soon after the last one."""

import json
import os
import time
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from skillopt_sleep import hook
from skillopt_sleep.experiments.transcripts import Event, write_claude


class FakePopen:
    """Stands in for the detached child: records how it would have been started."""

    started: ClassVar[list[Any]] = []

    def __init__(self, argv, **kw):
        FakePopen.started.append((argv, kw))
        self.pid = 4242


def hook_state(project):
    from skillopt_sleep.state import project_state_dir

    return project_state_dir(project) / hook.STATE_FILE


def _hook_json(project, transcript=""):
    return json.dumps(
        {"session_id": "s1", "transcript_path": str(transcript), "cwd": str(project), "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}
    )


def test_a_session_end_starts_a_detached_night_that_never_adopts(tmp_path, monkeypatch, run_cli, skillopt_home):
    project = tmp_path / "shop-api"
    project.mkdir()
    FakePopen.started = []
    monkeypatch.setattr(hook.subprocess, "Popen", FakePopen)
    res = run_cli("sleep", "session-end", "--backend", "claude-cli", "--max-calls", "40", input=_hook_json(project))
    assert res.exit_code == 0 and "staging a night" in res.stderr and "pid 4242" in res.stderr
    ((argv, kw),) = FakePopen.started
    assert argv[1:6] == ["-m", "skillopt_sleep", "run", "--project", str(project.resolve())]
    assert ["--backend", "claude-cli"] == argv[argv.index("--backend") : argv.index("--backend") + 2]
    assert "--auto-adopt" not in argv and "adopt" not in argv[3:4]
    assert kw["start_new_session"] and kw["stdin"] is not None, "detached from the agent, no terminal input"
    # a second session ending at once starts nothing while that night runs (this test's own pid stands for it)
    state = json.loads((hook_state(project)).read_text())
    hook_state(project).write_text(json.dumps({**state, "pid": os.getpid()}))
    again = run_cli("sleep", "session-end", "--min-hours", "0", input=_hook_json(project))
    assert again.exit_code == 0 and "still running" in again.stderr and len(FakePopen.started) == 1


def test_nothing_starts_too_soon_for_automation_or_without_a_project(tmp_path, monkeypatch, skillopt_home):
    project = tmp_path / "shop-api"
    project.mkdir()
    FakePopen.started = []
    monkeypatch.setattr(hook.subprocess, "Popen", FakePopen)
    now = datetime(2025, 10, 6, 12, 0, tzinfo=UTC)
    assert "staging a night" in hook.session_end(_hook_json(project), [], min_hours=6, now=now)
    soon = hook.session_end(_hook_json(project), [], min_hours=6, now=now + timedelta(hours=2))
    assert "started 2.0 h ago" in soon
    later = hook.session_end(_hook_json(project), [], min_hours=6, now=now + timedelta(hours=7))
    assert "staging a night" in later and len(FakePopen.started) == 2
    replay = write_claude(
        tmp_path / "home", project, "replay-1", [Event(kind="user", text="[skillopt-sleep:engine-prompt v1]\nreplay a task")], now
    )
    assert "automated" in hook.session_end(_hook_json(project, replay), [], min_hours=0, now=now + timedelta(days=1))
    assert "no project directory" in hook.session_end("not json", [], min_hours=0)
    assert len(FakePopen.started) == 2


def test_the_background_night_really_stages_a_proposal(fixture_home, fixtures_dir, skillopt_home):
    """End to end: the hook starts a real detached `skillopt sleep run` (scripted backend
    standing in for the model); it stages a night and adopts nothing."""
    _home, project = fixture_home
    args = ["--backend", "scripted", "--backend-option", f"rules={fixtures_dir / 'persona-rules.json'}", "--lookback-hours", "0"]
    line = hook.session_end(_hook_json(project), args, min_hours=0)
    assert "staging a night" in line, line
    staging = project / ".skillopt-sleep" / "staging"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list(staging.glob("*/manifest.json")):
        time.sleep(0.5)
    assert list(staging.glob("*/manifest.json")), (skillopt_home / "sleep").glob("*/session-end.log")
    assert not (project / ".claude").exists() and (project / "CLAUDE.md").read_text().startswith("# shop-api\n\nHand-written")
