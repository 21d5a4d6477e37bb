"""GitHub Copilot CLI's current session log: ``~/.copilot/session-state/<id>/events.jsonl``
(older builds: ``session-state/<id>.jsonl``).

Every line is an event ``{"type", "data", "id", "timestamp", "parentId"}``:
``session.start`` (``sessionId``, ``context.cwd``/``branch``), ``session.model_change``
(``newModel``), ``user.message`` (``content``), ``assistant.message`` (``content``,
``toolRequests``), ``tool.execution_start`` (``toolCallId``, ``toolName``,
``arguments``) and ``tool.execution_complete`` (``toolCallId``, ``success``,
``result.content``, ``error``). A shell tool's result text ends with ``<exited with
exit code N>``, which is its exit status. The session directory's ``workspace.yaml``
names the working directory when the start event does not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from skillopt.api import Session
from skillopt_sleep.harvest.builder import SessionBuilder
from skillopt_sleep.harvest.fields import command_text, edit_target, is_edit_tool
from skillopt_sleep.harvest.files import files_under, iter_jsonl

_CWD_LINE = re.compile(r"(?m)^cwd:\s*['\"]?(.+?)['\"]?\s*$")


def sessions(state_dirs: list[Path], since: datetime | None) -> Iterator[Session]:
    for path in files_under(state_dirs, ["*/events.jsonl", "*.jsonl"], since=since):
        session = parse_file(path, since)
        if session is not None:
            yield session


def _workspace_cwd(events_file: Path) -> str:
    try:
        m = _CWD_LINE.search((events_file.parent / "workspace.yaml").read_text(encoding="utf-8"))
    except OSError:
        return ""
    return m.group(1) if m else ""


def parse_file(path: Path, since: datetime | None = None) -> Session | None:
    session_id = path.parent.name if path.name == "events.jsonl" else path.stem
    b = SessionBuilder("copilot-cli", session_id, path)
    for event in iter_jsonl(path):
        data = event.get("data") if isinstance(event.get("data"), dict) else {}
        when = event.get("timestamp")
        kind = event.get("type")
        if kind == "session.start":
            b.session_id = str(data.get("sessionId") or b.session_id)
            context = data.get("context") if isinstance(data.get("context"), dict) else {}
            b.set_project(context.get("cwd"))
            if context.get("branch"):
                b.metadata["branch"] = context["branch"]
            b.seen(data.get("startTime") or when)
        elif kind == "session.model_change" and data.get("newModel"):
            b.metadata["model"] = data["newModel"]
        elif kind == "user.message":
            b.user(str(data.get("content") or ""), when)
        elif kind == "assistant.message":
            b.assistant(str(data.get("content") or ""), when)
        elif kind == "tool.execution_start":
            _start(b, data, when)
        elif kind == "tool.execution_complete":
            _complete(b, data, when)
    if not b.project:
        b.set_project(_workspace_cwd(path))
    return b.build(since)


def _start(b: SessionBuilder, data: dict, when) -> None:
    args = data.get("arguments") if isinstance(data.get("arguments"), dict) else {}
    name, call_id = str(data.get("toolName") or "tool"), str(data.get("toolCallId") or "")
    if is_edit_tool(name):
        b.edit(name, *edit_target(args), call_id=call_id, when=when)
        return
    detail = command_text(args.get("command")) or str(args.get("path") or args.get("file_path") or "")
    b.tool_call(name, detail, call_id=call_id, when=when)


def _complete(b: SessionBuilder, data: dict, when) -> None:
    result = data.get("result") if isinstance(data.get("result"), dict) else {}
    error = data.get("error") if isinstance(data.get("error"), dict) else {}
    output = str(result.get("content") or error.get("message") or "")
    success = data.get("success")
    failed = None if not isinstance(success, bool) else not success
    b.tool_result(b.tool_name_for(data.get("toolCallId")), output=output, failed=failed, when=when)
