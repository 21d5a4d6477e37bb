"""OpenCode harvester on a real-schema opencode.db: root sessions only, replay agents skipped."""

import pytest

from skillopt import serde
from skillopt_sleep.harvest.opencode import OpenCodeHarvester


@pytest.fixture
def db(tmp_path, fixtures_dir, sqlite_from_sql):
    return sqlite_from_sql(fixtures_dir / "opencode" / "opencode.sql", tmp_path / "opencode.db")


def test_opencode_root_sessions_and_parts(db):
    sessions = list(OpenCodeHarvester().sessions([db]))
    assert [s.id for s in sessions] == ["opencode:ses_6a1f2b3c4d5eAbCdEf012345"], "child and replay sessions are skipped"
    s = sessions[0]
    users = [t.content for t in s.turns if t.role == "user" and t.kind == "message"]
    assert len(users) == 2 and not any("AGENTS.md contents" in u for u in users), "synthetic parts are skipped"
    calls = [t.content for t in s.turns if t.kind == "tool_call"]
    assert calls == ["alembic revision -m add_discount", "uv run alembic revision -m add_discount"]
    results = [t.content.split("]")[0] + "]" for t in s.turns if t.kind == "tool_result"]
    assert results == ["[error exit=127]", "[ok exit=0]"]
    assert [t.content for t in s.turns if t.kind == "feedback"] == ["error"]


def test_opencode_db_override(monkeypatch, db):
    monkeypatch.setenv("OPENCODE_DB", str(db))
    assert OpenCodeHarvester().default_roots() == [db]


def test_opencode_redacts_planted_secrets(db, no_secret):
    no_secret(serde.dumps(list(OpenCodeHarvester().sessions([db]))))
