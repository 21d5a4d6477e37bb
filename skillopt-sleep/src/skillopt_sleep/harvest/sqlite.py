"""Opening another program's SQLite database without ever writing to it, or beside it.

``mode=ro`` keeps us from writing, ``query_only`` guards against a mistake in our own
SQL. But a read-only connection to a database in WAL mode (OpenCode and Copilot CLI
keep theirs so) still creates ``-wal`` and ``-shm`` files next to it, in the agent's
own directory, and leaves them there. So:

- a database in rollback-journal mode is opened ``mode=ro`` (it takes a shared lock and
  creates nothing);
- a WAL database with no ``-wal`` file (no writer has uncheckpointed pages) is opened
  ``immutable=1``: no locks, no side files, the main file is all there is;
- a WAL database whose ``-wal`` exists (the agent is running, or crashed) is copied
  with its WAL into a private temp dir and the copy is read, so committed pages still
  in the WAL are seen and the live files are never locked or touched.

Any failure of the first two (a torn read while a writer checkpoints, a hot journal a
read-only connection cannot roll back) falls back to the copy.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

WAL_MODE = 2  # bytes 18 and 19 of the header: the file format's read/write versions


class SchemaMismatch(Exception):
    """The database does not have the tables/columns this harvester understands."""


def in_wal_mode(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            header = fh.read(20)
    except OSError:
        return False
    return len(header) == 20 and header.startswith(b"SQLite format 3\x00") and header[18] == header[19] == WAL_MODE


def _connect(uri: str) -> sqlite3.Connection:
    conn = sqlite3.connect(uri, uri=True, timeout=2)
    try:
        conn.execute("PRAGMA query_only = ON")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def _direct(path: Path) -> sqlite3.Connection | None:
    """A connection that reads the live file in place and creates nothing beside it, or
    None when only a copy can be read safely."""
    uri = path.resolve().as_uri()
    if not in_wal_mode(path):
        return _connect(f"{uri}?mode=ro")
    if Path(f"{path}-wal").exists():
        return None
    return _connect(f"{uri}?mode=ro&immutable=1")


@contextlib.contextmanager
def open_readonly(path: Path) -> Iterator[sqlite3.Connection]:
    path = Path(path)
    conn = None
    tmpdir = None
    try:
        try:
            conn = _direct(path)
        except sqlite3.Error:
            conn = None
        if conn is None:
            tmpdir = tempfile.mkdtemp(prefix="skillopt-sleep-db-")
            copy = Path(tmpdir) / path.name
            for suffix in ("", "-wal"):  # the -shm index is rebuilt from the WAL
                src = Path(f"{path}{suffix}")
                if src.exists():
                    shutil.copy2(src, Path(f"{copy}{suffix}"))
            conn = _connect(copy.as_uri())
        conn.row_factory = sqlite3.Row
        yield conn
    finally:
        if conn is not None:
            conn.close()
        if tmpdir:
            shutil.rmtree(tmpdir, ignore_errors=True)


def columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})").fetchall()}


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
