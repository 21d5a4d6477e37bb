"""Copilot CLI's and OpenCode's SQLite stores are read without a file created, changed
or locked in the agent's directory, in every journal mode they are found in.

Regression: a read-only connection to a store in WAL mode (how the running agents keep
them) left ``-wal`` and ``-shm`` files beside it.
"""

import hashlib
import sqlite3

import pytest

from skillopt_sleep.harvest.copilot_cli import CopilotCliHarvester
from skillopt_sleep.harvest.opencode import OpenCodeHarvester
from skillopt_sleep.harvest.sqlite import in_wal_mode

STORES = [
    ("copilot-cli/session-store.sql", "session-store.db", CopilotCliHarvester),
    ("opencode/opencode.sql", "opencode.db", OpenCodeHarvester),
]


def _snapshot(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def _wal(db):
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.close()
    assert in_wal_mode(db) and not (db.parent / f"{db.name}-wal").exists()


@pytest.mark.parametrize("sql, name, harvester", STORES)
@pytest.mark.parametrize("mode", ["wal", "rollback"])
def test_reading_a_quiet_store_leaves_its_directory_exactly_as_it_was(tmp_path, fixtures_dir, sqlite_from_sql, sql, name, harvester, mode):
    db = sqlite_from_sql(fixtures_dir / sql, tmp_path / "agent" / name)
    if mode == "wal":
        _wal(db)
    before = _snapshot(db.parent)
    sessions = list(harvester().sessions([db]))
    assert sessions, "the store was read"
    assert _snapshot(db.parent) == before, "no -wal/-shm file appeared and nothing changed"


def test_a_running_agents_wal_is_read_from_a_private_copy(tmp_path, fixtures_dir, sqlite_from_sql):
    """A live writer has committed a session that is still only in its WAL: the harvest
    sees it, and the agent's database, WAL and index are byte for byte untouched."""
    db = sqlite_from_sql(fixtures_dir / "copilot-cli" / "session-store.sql", tmp_path / "agent" / "session-store.db")
    _wal(db)
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute(
        "INSERT INTO sessions (id, cwd, created_at, updated_at) VALUES ('live-1', '/home/dev/code/shop-api', "
        "'2025-10-01T10:00:00.000Z', '2025-10-01T10:05:00.000Z')"
    )
    writer.execute("INSERT INTO turns (session_id, turn_index, user_message, assistant_response) VALUES ('live-1', 0, 'lint it', 'ok')")
    writer.commit()
    try:
        assert (db.parent / "session-store.db-wal").exists()
        before = _snapshot(db.parent)
        ids = {s.id for s in CopilotCliHarvester().sessions([db])}
        assert "copilot-cli:live-1" in ids, "pages still in the WAL are read"
        assert _snapshot(db.parent) == before
    finally:
        writer.close()
