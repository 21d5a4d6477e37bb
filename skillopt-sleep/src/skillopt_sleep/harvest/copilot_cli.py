"""GitHub Copilot CLI (``$COPILOT_HOME``, else ``~/.copilot``): the event logs under
``session-state/`` (the current format, with tool results and exit status; see
:mod:`.copilot_events`) and the older session store ``session-store.db`` (SQLite).

Store tables used: ``sessions`` (id, cwd, branch, created_at, updated_at), ``turns``
(session_id, turn_index, user_message, assistant_response) and, when present,
``session_files`` (session_id, file_path, tool_name). The database belongs to a
running program: it is opened read-only (or read from a private snapshot), never
written. The time filter is applied to the exact timestamp, not the day.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from skillopt.api import Harvester, Session, hookimpl
from skillopt_sleep.harvest import copilot_events
from skillopt_sleep.harvest.builder import SessionBuilder
from skillopt_sleep.harvest.fields import parse_time
from skillopt_sleep.harvest.sqlite import columns, open_readonly, require

SCHEMA = {
    "sessions": {"id", "cwd", "created_at", "updated_at"},
    "turns": {"session_id", "turn_index", "user_message", "assistant_response"},
}


class CopilotCliHarvester(Harvester):
    name = "copilot-cli"
    summary = "GitHub Copilot CLI session store (~/.copilot/session-store.db, read-only)"
    root_env_var = "SKILLOPT_SLEEP_COPILOT_CLI_ROOTS"
    memory_file = ".github/copilot-instructions.md"
    skill_dir = ".github/skills"

    def default_roots(self) -> list[Path]:
        home = Path(os.environ.get("COPILOT_HOME") or Path.home() / ".copilot").expanduser()
        return [home / "session-state", home / "session-store.db"]

    def sessions(self, roots: list[Path], since: datetime | None = None) -> Iterator[Session]:
        seen: set[str] = set()
        for root in roots:
            for session in _read(Path(root).expanduser(), since):
                if session.id not in seen:  # a session in both the event log and the store
                    seen.add(session.id)
                    yield session


def _read(root: Path, since: datetime | None) -> Iterator[Session]:
    """A root may be the store, an event log, the session-state folder or ``~/.copilot``."""
    if root.is_file():
        yield from read_store(root, since) if root.suffix == ".db" else copilot_events.sessions([root], since)
        return
    if not root.is_dir():
        return
    store, state = root / "session-store.db", root / "session-state"
    if store.is_file():
        yield from read_store(store, since)
    if state.is_dir():
        yield from copilot_events.sessions([state], since)
    elif not store.is_file():
        yield from copilot_events.sessions([root], since)


def read_store(db: Path, since: datetime | None) -> Iterator[Session]:
    with open_readonly(db) as conn:
        require(conn, SCHEMA, str(db))
        has_files = {"session_id", "file_path"} <= columns(conn, "session_files")
        has_branch = "branch" in columns(conn, "sessions")
        rows = conn.execute(
            f"SELECT id, cwd, created_at, updated_at{', branch' if has_branch else ''} FROM sessions ORDER BY updated_at DESC"
        ).fetchall()
        for row in rows:
            updated = parse_time(row["updated_at"])
            if since is not None and updated is not None and updated < since:
                continue
            b = SessionBuilder("copilot-cli", row["id"], db)
            b.set_project(row["cwd"])
            b.seen(row["created_at"])
            b.seen(row["updated_at"])
            if has_branch and row["branch"]:
                b.metadata["branch"] = row["branch"]
            for turn in conn.execute(
                "SELECT user_message, assistant_response FROM turns WHERE session_id = ? ORDER BY turn_index", (row["id"],)
            ):
                b.user(turn["user_message"] or "")
                b.assistant(turn["assistant_response"] or "")
            if has_files:
                file_cols = columns(conn, "session_files")
                tool_col = ", tool_name" if "tool_name" in file_cols else ""
                for f in conn.execute(f"SELECT file_path{tool_col} FROM session_files WHERE session_id = ?", (row["id"],)):
                    b.touch(f["file_path"])
                    if tool_col and f["tool_name"]:
                        b.tool_call(f["tool_name"], f["file_path"] or "")
            session = b.build(since)
            if session is not None:
                yield session


@hookimpl
def skillopt_register_harvesters(register):
    register(CopilotCliHarvester)
