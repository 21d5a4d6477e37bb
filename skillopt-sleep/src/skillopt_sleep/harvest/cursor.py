"""Cursor agent transcripts: ``~/.cursor/projects/<slug>/agent-transcripts/<id>/<id>.jsonl``
(older builds: ``agent-transcripts/<id>.jsonl``).

Each line is ``{"role": "user"|"assistant", "message": {"content": [blocks]}}``; the
user's words are wrapped in ``<user_query>``. Records have no timestamps, so the file's
modification time is the session's end. The workspace is read from the project's
``.workspace-trusted`` file when present; otherwise the slug (the path with every
non-alphanumeric character turned into ``-``) identifies it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from skillopt.api import Harvester, Session, hookimpl

from skillopt_sleep.harvest.builder import SessionBuilder, block_text, files_under, iter_jsonl, mtime

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
        if rec.get("type") == "turn_ended":
            if rec.get("status") == "error":
                b.feedback("error")
            continue
        message = rec.get("message") if isinstance(rec.get("message"), dict) else {}
        content = message.get("content")
        if rec.get("role") == "user":
            b.user(user_words(block_text(content)))
        elif rec.get("role") == "assistant":
            _assistant(b, content)
    b.seen(ended)
    return b.build(since)


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
            detail = args.get("command") or args.get("path") or args.get("file_path") or args.get("target_file") or ""
            b.tool_call(block.get("name") or "tool", str(detail))
            if isinstance(args.get("path") or args.get("target_file"), str) and str(block.get("name", "")).lower() in (
                "write",
                "edit",
                "strreplace",
                "edit_file",
            ):
                b.touch(args.get("path") or args.get("target_file"))


@hookimpl
def skillopt_register_harvesters(register):
    register(CursorHarvester)
