"""Codex harvester on real-format rollouts: live ``sessions/YYYY/MM/DD`` and archived files."""

from skillopt import serde
from skillopt_sleep.harvest.codex import CodexHarvester


def _sessions(fixtures_dir):
    return list(CodexHarvester().sessions([fixtures_dir / "codex" / "sessions", fixtures_dir / "codex" / "archived_sessions"]))


def test_codex_reads_live_sessions_tree(fixtures_dir):
    """Bug §6.9: upstream read only archived_sessions; the live YYYY/MM/DD tree is read here."""
    sessions = _sessions(fixtures_dir)
    assert [s.id for s in sessions] == ["codex:7c9e6679-7425-40de-944b-e07fc1f90ae7"]
    s = sessions[0]
    assert s.project == "/home/dev/code/shop-api"
    assert s.metadata["branch"] == "main"
    assert s.metadata["model"] == "gpt-5-codex"


def test_codex_prompts_not_double_counted(fixtures_dir):
    """Bug §6.9: a prompt logged as event_msg and as response_item is counted once."""
    s = _sessions(fixtures_dir)[0]
    users = [t.content for t in s.turns if t.role == "user" and t.kind == "message"]
    assert len(users) == 2
    assert users[1] == "don't call ruff directly, use `uv run ruff check` like everything else here"
    assert not any("environment_context" in u for u in users)
    finals = [t.content for t in s.turns if t.role == "assistant" and t.kind == "message"]
    assert len(finals) == 2


def test_codex_tool_calls_and_exit_codes(fixtures_dir):
    s = _sessions(fixtures_dir)[0]
    calls = [(t.name, t.content) for t in s.turns if t.kind == "tool_call"]
    assert calls[0] == ("shell", "flake8 shop/cart.py")
    assert ("apply_patch", calls[2][1]) == calls[2]
    results = [t.content.split("]")[0] + "]" for t in s.turns if t.kind == "tool_result"]
    assert results == ["[error exit=127]", "[error exit=1]", "[unknown]", "[ok exit=0]"], "apply_patch reports no status"
    assert "shop/cart.py" in s.files_touched


def test_codex_self_replay_filter(fixtures_dir):
    """Bug §6.9: upstream had no self-replay filter for Codex; the archived replay is dropped."""
    ids = [s.id for s in _sessions(fixtures_dir)]
    assert "codex:1b4e28ba-2fa1-11d2-883f-0016d3cca427" not in ids


def test_codex_redacts_planted_secrets(fixtures_dir, no_secret):
    no_secret(serde.dumps(_sessions(fixtures_dir)))


def test_codex_default_roots_cover_live_and_archived(monkeypatch, tmp_path):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path))
    roots = CodexHarvester().default_roots()
    assert roots == [tmp_path / "sessions", tmp_path / "archived_sessions"]
