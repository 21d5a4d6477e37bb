"""Claude Code harvester on a real-format transcript (tool_use/tool_result blocks,
sidechains, summaries, snapshots) with planted secrets and a self-replay session."""

from datetime import UTC

from skillopt import serde
from skillopt_sleep.harvest.claude_code import ClaudeCodeHarvester


def test_claude_code_parses_turns_tools_and_results(fixtures_dir):
    sessions = list(ClaudeCodeHarvester().sessions([fixtures_dir / "claude-code"]))
    assert len(sessions) == 1, "the sentinel-marked replay session must be dropped"
    s = sessions[0]
    assert s.id == "claude-code:5b1e7c2a-3f4d-4e8a-9b0c-1d2e3f4a5b6c"
    assert s.project == "/home/dev/code/shop-api"
    assert s.metadata["branch"] == "fix/orders"
    users = [t.content for t in s.turns if t.role == "user" and t.kind == "message"]
    assert users[1].startswith("No, this project uses uv")
    assert users[-1] == "thanks, that's correct"
    assert not any("subagent" in u for u in users), "sidechain records are not the developer's"
    calls = [(t.name, t.content) for t in s.turns if t.kind == "tool_call"]
    assert calls[0] == ("Bash", "python -m pytest tests/test_orders.py")
    results = [t.content for t in s.turns if t.kind == "tool_result"]
    assert results[0].startswith("[error exit=1]")
    assert results[-1].startswith("[ok exit=0 tests=4/0]"), "the pytest summary is read as the test outcome"
    assert "/home/dev/code/shop-api/shop/orders.py" in s.files_touched
    assert s.started_at.startswith("2025-09-14T09:12:03")


def test_claude_code_redacts_planted_secrets(fixtures_dir, no_secret):
    """Bug §6.2: upstream stored Claude transcripts unredacted; here every source is scrubbed."""
    text = serde.dumps(list(ClaudeCodeHarvester().sessions([fixtures_dir / "claude-code"])))
    no_secret(text)
    assert "***REDACTED***" in text


def test_claude_code_since_filter_skips_old_sessions(fixtures_dir):
    from datetime import datetime

    later = datetime(2030, 1, 1, tzinfo=UTC)
    assert list(ClaudeCodeHarvester().sessions([fixtures_dir / "claude-code"], since=later)) == []
