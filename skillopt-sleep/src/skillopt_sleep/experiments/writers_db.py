"""Writing synthetic sessions into OpenCode's SQLite store (``opencode.db``), in the
schema its harvester reads: ``session``, ``message`` (role in ``data``) and ``part``
(``text`` parts, ``tool`` parts whose ``state.metadata.exit`` is a shell's status)."""

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
