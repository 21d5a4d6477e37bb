"""Copilot CLI harvester on a real-schema session store, opened read-only."""

import hashlib
import sqlite3
from datetime import UTC

import pytest

from skillopt import serde
from skillopt_sleep.harvest.copilot_cli import CopilotCliHarvester
from skillopt_sleep.harvest.sqlite import SchemaMismatch


@pytest.fixture
def store(tmp_path, fixtures_dir, sqlite_from_sql):
    return sqlite_from_sql(fixtures_dir / "copilot-cli" / "session-store.sql", tmp_path / "session-store.db")


def test_copilot_cli_reads_sessions_turns_and_files(store):
    sessions = {s.id: s for s in CopilotCliHarvester().sessions([store])}
    s = sessions["copilot-cli:c0b1e2d3-4f5a-4b6c-8d7e-9f0a1b2c3d4e"]
    assert s.project == "/home/dev/code/shop-api"
    users = [t.content for t in s.turns if t.role == "user"]
    assert users[1].startswith("no, use uv run pytest")
    assert "tests/test_discounts.py" in s.files_touched
    assert s.ended_at.startswith("2025-09-16T14:09:30")


def test_copilot_cli_never_writes_the_store(store):
    before = hashlib.sha256(store.read_bytes()).hexdigest()
    list(CopilotCliHarvester().sessions([store]))
    assert hashlib.sha256(store.read_bytes()).hexdigest() == before


def test_copilot_cli_time_filter_is_exact_not_daily(store):
    from datetime import datetime

    cut = datetime(2025, 9, 16, 14, 30, tzinfo=UTC)  # same day, after the shop-api session
    ids = [s.id for s in CopilotCliHarvester().sessions([store], since=cut)]
    assert ids == ["copilot-cli:aa11bb22-cc33-4d44-8e55-ff6677889900"]


def test_copilot_cli_redacts_planted_secrets(store, no_secret):
    no_secret(serde.dumps(list(CopilotCliHarvester().sessions([store]))))


def test_copilot_cli_unknown_schema_is_a_clear_error(tmp_path):
    db = tmp_path / "session-store.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE sessions (id TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(SchemaMismatch, match="lacks.*cwd"):
        list(CopilotCliHarvester().sessions([db]))
