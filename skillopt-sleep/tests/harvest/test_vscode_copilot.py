"""VS Code Copilot Chat harvester: the chatSessions operation log replayed."""

from skillopt import serde
from skillopt_sleep.harvest.vscode_copilot import VSCodeCopilotHarvester, apply_operation


def _sessions(fixtures_dir):
    return list(VSCodeCopilotHarvester().sessions([fixtures_dir / "vscode-copilot" / "workspaceStorage"]))


def test_operation_log_kinds():
    state = apply_operation(None, {"kind": 0, "v": {"requests": [], "title": "x"}})
    state = apply_operation(state, {"kind": 2, "k": ["requests"], "v": [{"a": 1}, {"a": 2}, {"a": 3}]})
    state = apply_operation(state, {"kind": 2, "k": ["requests"], "i": 1, "v": [{"a": 9}]})
    assert state["requests"] == [{"a": 1}, {"a": 9}]
    state = apply_operation(state, {"kind": 1, "k": ["requests", 0, "a"], "v": 5})
    state = apply_operation(state, {"kind": 3, "k": ["title"]})
    assert state == {"requests": [{"a": 5}, {"a": 9}]}


def test_vscode_copilot_rebuilds_requests(fixtures_dir):
    sessions = _sessions(fixtures_dir)
    assert len(sessions) == 1
    s = sessions[0]
    assert s.project == "/home/dev/code/shop-api"
    users = [t.content for t in s.turns if t.role == "user" and t.kind == "message"]
    assert users[1] == "ok run it that way"
    assert not any("summarize" in u for u in users), "other extensions' requests are dropped"
    calls = [t.content for t in s.turns if t.kind == "tool_call"]
    assert calls == ["pytest tests/test_checkout.py", "uv run pytest tests/test_checkout.py"]
    results = [t.content for t in s.turns if t.kind == "tool_result"]
    assert results[0].startswith("[error exit=4]") and results[1].startswith("[ok exit=0]")
    assert [t.content for t in s.turns if t.kind == "feedback"] == ["up"]


def test_vscode_copilot_redacts_planted_secrets(fixtures_dir, no_secret):
    no_secret(serde.dumps(_sessions(fixtures_dir)))
