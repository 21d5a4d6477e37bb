"""OpenCode: the SQLite store ``opencode.db`` (``$OPENCODE_DB``, else
``$XDG_DATA_HOME/opencode`` or ``~/.local/share/opencode``).

Tables: ``session`` (id, parent_id, directory, title, time_created, time_updated),
``message`` (id, session_id, time_created, data JSON with role, agent, error) and
``part`` (id, message_id, session_id, data JSON: ``text`` parts — skipped when
``synthetic``/``ignored`` — ``tool`` parts with ``state`` {status, input, output,
metadata.exit} and legacy ``tool-invocation``). Only root sessions (no parent) are
the developer's own; a session driven by a sleep replay agent
(``skillopt-sleep-<32 hex>``) is skipped. The database is opened read-only.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from skillopt.api import Harvester, Session, hookimpl
from skillopt_sleep.harvest.builder import SessionBuilder
from skillopt_sleep.harvest.fields import command_text, edit_target, is_edit_tool, parse_time
from skillopt_sleep.harvest.sqlite import open_readonly, require

SCHEMA = {
    "session": {"id", "parent_id", "directory", "time_created", "time_updated"},
    "message": {"id", "session_id", "time_created", "data"},
    "part": {"id", "message_id", "session_id", "data"},
}
REPLAY_AGENT = re.compile(r"^skillopt-sleep-[0-9a-f]{32}$")


class OpenCodeHarvester(Harvester):
    name = "opencode"
    summary = "OpenCode sessions (opencode.db, read-only)"
    root_env_var = "SKILLOPT_SLEEP_OPENCODE_ROOTS"
    memory_file = "AGENTS.md"
    skill_dir = ".opencode/skills"

    def default_roots(self) -> list[Path]:
        if os.environ.get("OPENCODE_DB"):
            return [Path(os.environ["OPENCODE_DB"]).expanduser()]
        if sys.platform == "win32":
            base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
        else:
            base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
        return [base / "opencode" / "opencode.db"]

    def sessions(self, roots: list[Path], since: datetime | None = None) -> Iterator[Session]:
        for root in roots:
            db = Path(root).expanduser()
            if db.is_dir():
                db = db / "opencode.db"
            if db.is_file():
                yield from read_db(db, since)


def _json(text: Any) -> dict:
    try:
        data = json.loads(text) if isinstance(text, str) else text
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def read_db(db: Path, since: datetime | None) -> Iterator[Session]:
    with open_readonly(db) as conn:
        require(conn, SCHEMA, str(db))
        rows = conn.execute("SELECT * FROM session WHERE parent_id IS NULL ORDER BY time_updated DESC").fetchall()
        for row in rows:
            updated = parse_time(row["time_updated"])
            if since is not None and updated is not None and updated < since:
                continue
            session = _session(conn, row, db, since)
            if session is not None:
                yield session


def _session(conn, row, db: Path, since: datetime | None) -> Session | None:
    b = SessionBuilder("opencode", row["id"], db)
    b.set_project(row["directory"])
    b.seen(row["time_created"])
    b.seen(row["time_updated"])
    parts_by_message: dict[str, list[dict]] = {}
    for part in conn.execute("SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY id", (row["id"],)):
        parts_by_message.setdefault(part["message_id"], []).append(_json(part["data"]))
    for msg in conn.execute(
        "SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id", (row["id"],)
    ):
        info = _json(msg["data"])
        agent = str(info.get("agent") or info.get("mode") or "")
        if REPLAY_AGENT.match(agent):
            return None
        when = msg["time_created"]
        role = info.get("role")
        if info.get("modelID"):
            b.metadata.setdefault("model", info["modelID"])
        for part in parts_by_message.get(msg["id"], []):
            _part(b, role, part, when)
        if role == "assistant" and info.get("error"):
            b.feedback("error", when)
    return b.build(since)


def _part(b: SessionBuilder, role, part: dict, when) -> None:
    ptype = part.get("type")
    if ptype == "text":
        if part.get("synthetic") or part.get("ignored"):
            return
        (b.user if role == "user" else b.assistant)(str(part.get("text") or ""), when)
    elif ptype == "tool":
        state = part.get("state") if isinstance(part.get("state"), dict) else {}
        inp = state.get("input") if isinstance(state.get("input"), dict) else {}
        tool = str(part.get("tool") or "tool")
        if is_edit_tool(tool):
            name = b.edit(tool, *edit_target(inp), when=when)
        else:
            detail = command_text(inp.get("command")) or str(inp.get("filePath") or inp.get("path") or "")
            name = b.tool_call(tool, detail, when=when)
        status = state.get("status")
        if status in ("completed", "error"):
            meta = state.get("metadata") if isinstance(state.get("metadata"), dict) else {}
            code = meta.get("exit") if isinstance(meta.get("exit"), int) else None
            output = str(state.get("output") or state.get("error") or meta.get("output") or "")
            b.tool_result(name, output=output, exit_code=code, failed=status == "error", when=when)
    elif ptype == "tool-invocation":
        inv = part.get("toolInvocation") if isinstance(part.get("toolInvocation"), dict) else {}
        args = inv.get("args") if isinstance(inv.get("args"), dict) else {}
        b.tool_call(inv.get("toolName") or "tool", command_text(args.get("command")), when=when)


@hookimpl
def skillopt_register_harvesters(register):
    register(OpenCodeHarvester)
