"""Cursor agent transcripts: ``~/.cursor/projects/<slug>/agent-transcripts/<id>/<id>.jsonl``
(older builds: ``agent-transcripts/<id>.jsonl``).

Each line is ``{"role": "user"|"assistant", "message": {"content": [blocks]}}``; the
user's words are wrapped in ``<user_query>``. Tool calls are ``tool_use`` blocks and
their results ``tool_result`` blocks (``is_error``). Lines in the shape of
``cursor-agent --output-format stream-json`` are read too: a ``tool_call`` event with
``subtype: completed`` holds one ``<kind>ToolCall`` whose ``args`` carry the command
and whose ``result`` is ``{"success": {...}}`` or ``{"failure": {...}}`` — for
``shellToolCall`` with ``exitCode``, ``stdout`` and ``stderr``. Records have no
timestamps, so the file's modification time is the session's end. The workspace is
read from the project's ``.workspace-trusted`` file when present; otherwise the slug
(the path with every non-alphanumeric character turned into ``-``) identifies it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from skillopt.api import Harvester, Session, hookimpl
from skillopt_sleep.harvest.builder import SessionBuilder
from skillopt_sleep.harvest.fields import block_text, edit_target, is_edit_tool
from skillopt_sleep.harvest.files import files_under, iter_jsonl, mtime

_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.DOTALL)
_WRAPPERS = re.compile(r"<(user_info|attached_files|system_reminder|git_status|rules)>.*?</\1>", re.DOTALL)


def slug(path: str) -> str:
    """Cursor's project directory name for a workspace path."""
    return re.sub(r"[^A-Za-z0-9]+", "-", path).strip("-")


def user_words(text: str) -> str:
    found = _QUERY.findall(text or "")
    if found:
        return "\n".join(found).strip()
    return _WRAPPERS.sub("", text or "").strip()


class CursorHarvester(Harvester):
    name = "cursor"
    summary = "Cursor agent transcripts (~/.cursor/projects/*/agent-transcripts)"
    root_env_var = "SKILLOPT_SLEEP_CURSOR_ROOTS"
    memory_file = ".cursor/rules/skillopt-sleep.mdc"
    skill_dir = ".cursor/skills"

    def default_roots(self) -> list[Path]:
        return [Path.home() / ".cursor" / "projects"]

    def sessions(self, roots: list[Path], since: datetime | None = None) -> Iterator[Session]:
        patterns = ["*/agent-transcripts/*/*.jsonl", "*/agent-transcripts/*.jsonl"]
        for path in files_under(roots, patterns, since=since):
            session = parse_file(path, since)
            if session is not None:
                yield session


def project_of(transcript: Path) -> str:
    parts = transcript.parts
    idx = parts.index("agent-transcripts") if "agent-transcripts" in parts else -1
    if idx <= 0:
        return ""
    project_dir = Path(*parts[:idx])
    trusted = project_dir / ".workspace-trusted"
    try:
        data = json.loads(trusted.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("workspacePath"), str):
            return data["workspacePath"]
    except (OSError, json.JSONDecodeError):
        pass
    return "cursor-slug:" + project_dir.name


def parse_file(path: Path, since: datetime | None = None) -> Session | None:
    session_id = path.parent.name if path.parent.name != "agent-transcripts" else path.stem
    b = SessionBuilder("cursor", session_id, path)
    b.project = project_of(path)
    ended = mtime(path)
    for rec in iter_jsonl(path):
        kind = rec.get("type")
        if kind == "turn_ended":
            if rec.get("status") == "error":
                b.feedback("error")
            continue
        if kind == "tool_call":
            _tool_event(b, rec)
            continue
        message = rec.get("message") if isinstance(rec.get("message"), dict) else {}
        content = message.get("content")
        role = rec.get("role") or message.get("role") or kind
        if role == "user":
            _user(b, content)
        elif role == "assistant":
            _assistant(b, content)
    b.seen(ended)
    return b.build(since)


def _user(b: SessionBuilder, content) -> None:
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            name = b.tool_name_for(block.get("tool_use_id"))
            b.tool_result(name, output=block_text(block.get("content")), failed=bool(block.get("is_error")))
    b.user(user_words(block_text(content)))


def _assistant(b: SessionBuilder, content) -> None:
    if isinstance(content, str):
        b.assistant(content)
        return
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            b.assistant(block.get("text") or "")
        elif block.get("type") in ("tool_use", "tool_call"):
            args = block.get("input") if isinstance(block.get("input"), dict) else {}
            name, call_id = str(block.get("name") or "tool"), str(block.get("id") or "")
            if is_edit_tool(name) or name.lower() == "strreplace":
                b.edit(name, *edit_target(args), call_id=call_id)
                continue
            detail = args.get("command") or args.get("path") or args.get("file_path") or args.get("target_file") or ""
            b.tool_call(name, str(detail), call_id=call_id)


def _tool_event(b: SessionBuilder, rec: dict) -> None:
    """A stream-json ``tool_call`` event: the call when it starts, its result when it completes."""
    call = rec.get("tool_call") if isinstance(rec.get("tool_call"), dict) else {}
    kind, body = next(((k, v) for k, v in call.items() if isinstance(v, dict)), ("tool", {}))
    name = kind[: -len("ToolCall")] if kind.endswith("ToolCall") else kind
    args = body.get("args") if isinstance(body.get("args"), dict) else {}
    call_id = str(rec.get("call_id") or args.get("toolCallId") or "")
    if rec.get("subtype") == "started" or not b.has_call(call_id):
        if is_edit_tool(name):
            b.edit(name, *edit_target(args), call_id=call_id)
        else:
            b.tool_call(name, str(args.get("command") or args.get("path") or args.get("targetFile") or ""), call_id=call_id)
    result = body.get("result") if isinstance(body.get("result"), dict) else None
    if rec.get("subtype") != "completed" or result is None:
        return
    outcome = result.get("success") if isinstance(result.get("success"), dict) else result.get("failure")
    outcome = outcome if isinstance(outcome, dict) else {}
    code = outcome.get("exitCode") if isinstance(outcome.get("exitCode"), int) else None
    output = "\n".join(str(outcome.get(k) or "") for k in ("stdout", "stderr", "error", "message")).strip()
    b.tool_result(name, output=output, exit_code=code, failed="failure" in result)


@hookimpl
def skillopt_register_harvesters(register):
    register(CursorHarvester)
