"""Writing synthetic sessions into the agents' SQLite stores, in the schemas their
harvesters read: OpenCode's ``opencode.db`` (``session``, ``message`` with the role in
``data``, ``part``: ``text`` parts, ``tool`` parts whose ``state.metadata.exit`` is a
shell's status) and Copilot CLI's older ``session-store.db`` (``sessions``, ``turns``:
one user message and the assistant's reply per turn, ``session_files``).
:func:`to_wal` leaves a store in WAL mode, as the running agents keep theirs."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

from skillopt_sleep.experiments.transcripts import Event

SCHEMA = """
CREATE TABLE IF NOT EXISTS session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT,
  directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
"""


def write_opencode(home: Path, project: Path, session_id: str, events: list[Event], start: datetime) -> Path:
    db = home / ".local" / "share" / "opencode" / "opencode.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(db)
    try:
        conn.executescript(SCHEMA)
        t = int(start.timestamp() * 1000)
        sid = f"ses_{session_id}"
        message_id = ""
        for n, ev in enumerate(events):
            t += 4000
            role = "user" if ev.kind == "user" else "assistant"
            if ev.kind == "user" or not message_id or message_id.endswith("u"):
                message_id = f"msg_{session_id}_{n:03d}{'u' if role == 'user' else 'a'}"
                conn.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (message_id, sid, t, t, json.dumps({"role": role, "agent": "build"})))
            if ev.kind in ("user", "assistant"):
                data = {"type": "text", "text": ev.text}
            elif ev.kind == "edit":
                state = {"status": "completed", "input": {"filePath": ev.path, "content": ev.text}, "output": ""}
                data = {"type": "tool", "callID": f"c{n}", "tool": "write", "state": state}
            else:
                meta = {"output": ev.output, "exit": ev.exit_code, "description": "run"}
                state = {"status": "completed", "input": {"command": ev.text}, "output": ev.output, "metadata": meta}
                data = {"type": "tool", "callID": f"c{n}", "tool": "bash", "state": state}
            conn.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (f"prt_{session_id}_{n:03d}", message_id, sid, t, t, json.dumps(data)))
        end = int((start + timedelta(seconds=4 * (len(events) + 1))).timestamp() * 1000)
        conn.execute(
            "INSERT INTO session VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?)",
            (sid, "proj", session_id[:8], str(project), "session", "1.0.20", int(start.timestamp() * 1000), end),
        )
        conn.commit()
    finally:
        conn.close()
    return db


COPILOT_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, cwd TEXT, repository TEXT, branch TEXT, summary TEXT,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS turns (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, turn_index INTEGER NOT NULL,
  user_message TEXT, assistant_response TEXT, timestamp TEXT);
CREATE TABLE IF NOT EXISTS session_files (session_id TEXT NOT NULL, file_path TEXT NOT NULL, tool_name TEXT,
  turn_index INTEGER, first_seen_at TEXT);
"""


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds") + "Z"


def write_copilot_store(home: Path, project: Path, session_id: str, events: list[Event], start: datetime) -> Path:
    """A session in Copilot CLI's session store: the store keeps words only, so what the
    agent ran is told in its reply (``Ran `cmd`: exit 1``), as the real replies do."""
    db = home / ".copilot" / "session-store.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(db)
    try:
        conn.executescript(COPILOT_SCHEMA)
        turns: list[tuple[str, list[str], list[tuple[str, str]]]] = []
        for ev in events:
            if ev.kind == "user":
                turns.append((ev.text, [], []))
            elif turns and ev.kind == "assistant":
                turns[-1][1].append(ev.text)
            elif turns and ev.kind == "shell":
                turns[-1][1].append(f"Ran `{ev.text}`: exit {ev.exit_code}.")
                turns[-1][2].append(("", "bash"))
            elif turns and ev.kind == "edit":
                turns[-1][1].append(f"Edited {ev.path}.")
                turns[-1][2].append((ev.path, "edit"))
        t = start
        for n, (user, replies, files) in enumerate(turns):
            t += timedelta(minutes=2)
            conn.execute(
                "INSERT INTO turns (session_id, turn_index, user_message, assistant_response, timestamp) VALUES (?, ?, ?, ?, ?)",
                (session_id, n, user, " ".join(replies), _iso(t)),
            )
            for path, tool in files:
                if path:
                    conn.execute("INSERT INTO session_files VALUES (?, ?, ?, ?, ?)", (session_id, path, tool, n, _iso(t)))
        conn.execute(
            "INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?)",
            (session_id, str(project), f"dev/{project.name}", "main", "session", _iso(start), _iso(t)),
        )
        conn.commit()
    finally:
        conn.close()
    return db


def to_wal(db: Path) -> None:
    """Switch a store to WAL journaling (and close it cleanly, so no -wal file is left)."""
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
    finally:
        conn.close()
