"""Cursor harvester on agent-transcript JSONL (``<user_query>`` wrappers, turn errors)."""

from skillopt import serde
from skillopt_sleep.harvest.cursor import CursorHarvester, slug


def _sessions(fixtures_dir):
    return list(CursorHarvester().sessions([fixtures_dir / "cursor"]))


def test_cursor_unwraps_queries_and_reads_workspace(fixtures_dir):
    (s,) = _sessions(fixtures_dir)
    assert s.project == "/home/dev/code/shop-api"
    users = [t.content for t in s.turns if t.role == "user" and t.kind == "message"]
    assert users[0].startswith("format the whole repo before I commit")
    assert "OS Version" not in users[0]
    assert users[1] == "we don't use black, we use `uv run ruff format`"
    assert [t.content for t in s.turns if t.kind == "feedback"] == ["error"]
    assert [t.content for t in s.turns if t.kind == "tool_call"] == ["black .", "uv run ruff format ."]
    assert s.ended_at, "file mtime stands in for the missing timestamps"


def test_cursor_slug_matches_cursor_naming():
    assert slug("/home/dev/code/shop-api") == "home-dev-code-shop-api"


def test_cursor_redacts_planted_secrets(fixtures_dir, no_secret):
    no_secret(serde.dumps(_sessions(fixtures_dir)))
