"""Content-addressed call cache (SQLite in the user cache dir).

The key covers the backend identity (backend, model, base URL; never a key) and the
full effective request, so a repeated or resumed run re-pays nothing and a recorded
run can be replayed offline. Only answers that passed validation are stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from skillopt.fsio import move_aside
from skillopt.records import Completion, CompletionRequest
from skillopt.serde import from_data, to_data

_VOLATILE = ("timeout_s", "stage", "role")


def request_key(identity: dict[str, Any], request: CompletionRequest) -> str:
    data = to_data(request)
    for key in _VOLATILE:
        data.pop(key, None)
    blob = json.dumps({"identity": identity, "request": data}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class CallCache:
    """A thread-safe SQLite store of ``key -> Completion``; one connection per thread."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.chmod(self.path.parent, 0o700)
        except OSError:
            pass
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []  # every thread's connection, closed by close()
        self._all_lock = threading.Lock()
        self.broken = ""  # why the cache stopped working mid-run ('' = it works)
        try:
            self._create()
        except sqlite3.DatabaseError as exc:
            aside = self.path.with_name(f"{self.path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
            conn = getattr(self._local, "conn", None)
            if conn is not None:
                conn.close()
            self._local = threading.local()
            for suffix in ("", "-wal", "-shm"):
                part = self.path.with_name(self.path.name + suffix)
                if part.exists():
                    move_aside(part, aside.with_name(aside.name + suffix))
            from skillopt.report import warn

            warn(f"the call cache {self.path} is damaged ({exc}); moved it to {aside} and started an empty one")
            self._create()

    def _create(self) -> None:
        conn = self._conn()
        conn.execute(
            "CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, identity TEXT NOT NULL,"
            " request TEXT NOT NULL, completion TEXT NOT NULL, created REAL NOT NULL)"
        )
        conn.execute("SELECT COUNT(*) FROM calls").fetchone()

    def _fail(self, exc: Exception) -> None:
        """A cache that breaks mid-run is switched off, never allowed to lose a paid call."""
        if not self.broken:
            self.broken = str(exc)
            from skillopt.report import warn

            warn(f"the call cache {self.path} failed ({exc}); continuing without it (move the file aside to reset it)")

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            old = os.umask(0o077)  # the cache holds prompts and replies: owner-only, WAL files too
            try:
                conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")  # WAL stays consistent; a power cut may lose the last calls, not the file
            finally:
                os.umask(old)
            for path in (self.path, self.path.with_name(self.path.name + "-wal"), self.path.with_name(self.path.name + "-shm")):
                try:
                    os.chmod(path, 0o600)
                except OSError:
                    pass
            with self._all_lock:
                self._all.append(conn)
            conn.execute("PRAGMA busy_timeout=30000")
            self._local.conn = conn
        return conn

    def get(self, key: str) -> Completion | None:
        if self.broken:
            return None
        try:
            row = self._conn().execute("SELECT completion FROM calls WHERE key = ?", (key,)).fetchone()
            if row is None:
                return None
            return from_data(json.loads(row[0]), Completion)
        except (sqlite3.DatabaseError, ValueError, TypeError) as exc:
            self._fail(exc)
            return None

    def put(self, key: str, identity: dict[str, Any], request: CompletionRequest, completion: Completion) -> None:
        if self.broken:
            return
        try:
            self._put(key, identity, request, completion)
        except sqlite3.DatabaseError as exc:
            self._fail(exc)

    def _put(self, key: str, identity: dict[str, Any], request: CompletionRequest, completion: Completion) -> None:
        self._conn().execute(
            "INSERT OR REPLACE INTO calls (key, identity, request, completion, created) VALUES (?, ?, ?, ?, ?)",
            (
                key,
                json.dumps(identity, sort_keys=True),
                json.dumps(to_data(request), ensure_ascii=False),
                json.dumps(to_data(completion), ensure_ascii=False),
                time.time(),
            ),
        )

    def close(self) -> None:
        """Close every thread's connection (the WAL is checkpointed into the file)."""
        with self._all_lock:
            conns, self._all = self._all, []
        for conn in conns:
            try:
                conn.close()
            except sqlite3.Error:
                pass
        self._local = threading.local()

    def __len__(self) -> int:
        count: int = self._conn().execute("SELECT COUNT(*) FROM calls").fetchone()[0]
        return count

    def clear(self) -> int:
        n = len(self)
        self._conn().execute("DELETE FROM calls")
        return n
