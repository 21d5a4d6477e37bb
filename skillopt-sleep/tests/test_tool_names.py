"""Bug §6.3: a transcript- or model-controlled tool name became a file path and shell
text (an executable shim written anywhere), and replay got a real shell. Here names are
sanitised at ingestion and in checks, and replay is text-only: no file, no process."""

import os
from pathlib import Path

from skillopt_sleep.documents import Doc
from skillopt_sleep.harvest.builder import SessionBuilder
from skillopt_sleep.harvest.fields import sanitize_tool_name
from skillopt_sleep.mine.tasks import SleepTask
from skillopt_sleep.replay import replay
from skillopt_sleep.replay.judging import validate_checks


def test_tool_names_are_sanitised_to_a_safe_alphabet():
    for raw in ("../../../tmp/evil", "/usr/bin/sh", "a;rm -rf ~", "$(id)", "x" * 200, ""):
        name = sanitize_tool_name(raw)
        assert name and len(name) <= 64 and all(c.isalnum() or c in "_-" for c in name)
        assert "/" not in name and ".." not in name


def test_harvested_tool_names_are_sanitised():
    b = SessionBuilder("claude-code", "s")
    b.user("do it please")
    b.tool_call("../../bin/evil tool", "ls")
    session = b.build()
    assert session.tools_used == ("bin_evil_tool",)


def test_replay_never_runs_tools_or_writes_files(tmp_path, scripted_client, monkeypatch):
    monkeypatch.chdir(tmp_path)
    checks, _ = validate_checks([{"op": "tool_called", "value": "../../x/evil"}])
    task = SleepTask(id="t", intent="call the tool", split="val", checks=tuple(checks))
    spawned = []
    monkeypatch.setattr(os, "system", lambda *a: spawned.append(a))
    import subprocess

    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: spawned.append(a))
    result = replay(
        [task],
        [Doc(role="skill", path=Path("/p/SKILL.md"), original=None, text="")],
        scripted_client(lambda r: "TOOL_CALL: x_evil"),
        phase="val",
    )
    assert result.attempts[0].hard == 1.0
    assert spawned == [] and list(tmp_path.iterdir()) == []
