"""Opening another program's SQLite database without ever writing to it.

``mode=ro`` keeps us from writing, ``query_only`` guards against a mistake in our own
SQL. A database in WAL mode whose ``-shm`` file we may not touch can refuse a
read-only open; then we copy the database and its WAL into a private temp dir and
read the copy, so the agent's live file is never locked or modified.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path


class SchemaMismatch(Exception):
    """The database does not have the tables/columns this harvester understands."""


@contextlib.contextmanager
def open_readonly(path: Path) -> Iterator[sqlite3.Connection]:
    path = Path(path)
    conn = None
    tmpdir = None
    try:
        try:
            conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=2)
            conn.execute("PRAGMA query_only = ON")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error:
            if conn is not None:
                conn.close()
            tmpdir = tempfile.mkdtemp(prefix="skillopt-sleep-db-")
            copy = Path(tmpdir) / path.name
            for suffix in ("", "-wal", "-shm"):
                src = Path(str(path) + suffix)
                if src.exists():
                    shutil.copy2(src, Path(str(copy) + suffix))
            conn = sqlite3.connect(f"{copy.as_uri()}?mode=ro", uri=True, timeout=2)
            conn.execute("PRAGMA query_only = ON")
        conn.row_factory = sqlite3.Row
        yield conn
    finally:
        if conn is not None:
            conn.close()
        if tmpdir:
            shutil.rmtree(tmpdir, ignore_errors=True)


def columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})").fetchall()}  # noqa: S608 - fixed names


def require(conn: sqlite3.Connection, schema: dict[str, set[str]], where: str) -> None:
    """Raise :class:`SchemaMismatch` naming every missing table or column."""
    problems = []
    for table, needed in schema.items():
        have = columns(conn, table)
        if not have:
            problems.append(f"table {table!r} is missing")
        elif needed - have:
            problems.append(f"table {table!r} lacks {', '.join(sorted(needed - have))}")
    if problems:
        raise SchemaMismatch(f"{where}: unsupported schema ({'; '.join(problems)})")
