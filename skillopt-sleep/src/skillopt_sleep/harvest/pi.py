"""pi (pi-coding-agent): ``~/.pi/agent/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl``
(``$PI_CODING_AGENT_DIR`` overrides ``~/.pi/agent``).

The first line is the header ``{"type": "session", "version", "id", "cwd",
"timestamp"}``. Version 1 files are a linear list of entries; versions 2 and 3 form a
tree through ``id``/``parentId`` and the conversation is the branch that ends at the
last entry (abandoned branches are not what the developer kept). Parsing is strict:
a malformed line, a duplicate id, a reference to an unknown or later entry, or a
cycle rejects the whole file rather than guessing. Messages are ``user``,
``assistant`` (text, ``thinking`` — skipped — and ``toolCall`` blocks),
``toolResult`` (``toolName``, ``isError``; a failed bash result's text ends with
``Command exited with code N``) and ``bashExecution`` (``!cmd`` runs, ``exitCode``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from skillopt.api import Harvester, Session, hookimpl
from skillopt_sleep.harvest.builder import SessionBuilder
from skillopt_sleep.harvest.fields import block_text, command_text, edit_target, is_edit_tool
from skillopt_sleep.harvest.files import files_under, iter_jsonl
from skillopt_sleep.harvest.tally import current


class PiHarvester(Harvester):
    name = "pi"
    summary = "pi coding agent sessions (~/.pi/agent/sessions/**/*.jsonl)"
    root_env_var = "SKILLOPT_SLEEP_PI_ROOTS"
    memory_file = "AGENTS.md"
    skill_dir = ".pi/skills"

    def default_roots(self) -> list[Path]:
        base = Path(os.environ.get("PI_CODING_AGENT_DIR") or Path.home() / ".pi" / "agent").expanduser()
        return [base / "sessions"]

    def sessions(self, roots: list[Path], since: datetime | None = None) -> Iterator[Session]:
        for path in files_under(roots, ["**/*.jsonl"], since=since):
            if "subagent-artifacts" in path.parts:
                continue
            try:
                session = parse_file(path, since)
            except ValueError as exc:  # strict format: a broken file is skipped whole, and said so
                current().add_unreadable(str(exc))
                continue
            if session is not None:
                yield session


def active_branch(entries: list[dict], version: int) -> list[dict]:
    """The entries on the path from the root to the last entry (v2+), validated."""
    if version < 2:
        return entries
    index: dict[str, int] = {}
    for pos, entry in enumerate(entries):
        eid = entry.get("id")
        if not isinstance(eid, str) or not eid:
            raise ValueError("entry without an id")
        if eid in index:
            raise ValueError(f"duplicate entry id {eid}")
        parent = entry.get("parentId")
        if parent is not None and (parent not in index):
            raise ValueError(f"entry {eid} refers to unknown or later parent {parent}")
        index[eid] = pos
    if not entries:
        return []
    branch, seen = [], set()
    node = entries[-1]
    while node is not None:
        if node["id"] in seen:
            raise ValueError("cycle in the entry tree")
        seen.add(node["id"])
        branch.append(node)
        parent = node.get("parentId")
        node = entries[index[parent]] if parent is not None else None
    return list(reversed(branch))


def parse_file(path: Path, since: datetime | None = None) -> Session | None:
    records = list(iter_jsonl(path, strict=True))
    if not records or records[0].get("type") != "session":
        raise ValueError(f"{path}: first record is not a session header")
    header = records[0]
    version = int(header.get("version") or 1)
    b = SessionBuilder("pi", header.get("id") or path.stem, path)
    b.set_project(header.get("cwd"))
    b.seen(header.get("timestamp"))
    for entry in active_branch(records[1:], version):
        if entry.get("type") != "message" or not isinstance(entry.get("message"), dict):
            continue
        _message(b, entry["message"], entry.get("timestamp"))
    return b.build(since)


def _message(b: SessionBuilder, msg: dict, when) -> None:
    role = msg.get("role")
    if role == "user":
        b.user(block_text(msg.get("content")), when)
    elif role == "assistant":
        if msg.get("model"):
            b.metadata.setdefault("model", msg["model"])
        for block in msg.get("content") or []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                b.assistant(block.get("text") or "", when)
            elif block.get("type") == "toolCall":
                args = block.get("arguments") if isinstance(block.get("arguments"), dict) else {}
                tool, call_id = str(block.get("name") or "tool"), str(block.get("id") or "")
                if is_edit_tool(tool):
                    b.edit(tool, *edit_target(args), call_id=call_id, when=when)
                else:
                    detail = command_text(args.get("command")) or str(args.get("path") or args.get("file_path") or "")
                    b.tool_call(tool, detail, call_id=call_id, when=when)
        if msg.get("stopReason") == "error":
            b.feedback("error", when)
    elif role == "toolResult":
        name = msg.get("toolName") or b.tool_name_for(msg.get("toolCallId"))
        output = block_text(msg.get("content"))
        details = msg.get("details") if isinstance(msg.get("details"), dict) else {}
        code = details.get("exitCode") if isinstance(details.get("exitCode"), int) else None
        b.tool_result(name, output=output, exit_code=code, failed=bool(msg.get("isError")), when=when)
    elif role == "bashExecution":
        name = b.tool_call("bash", command_text(msg.get("command")), when=when)
        code = msg.get("exitCode") if isinstance(msg.get("exitCode"), int) else None
        b.tool_result(name, output=str(msg.get("output") or ""), exit_code=code, failed=bool(msg.get("cancelled")) or None, when=when)


@hookimpl
def skillopt_register_harvesters(register):
    register(PiHarvester)
