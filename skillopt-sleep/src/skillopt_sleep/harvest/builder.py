"""What every harvester shares: bounded reading, time parsing, and the session builder.

The builder is the single ingestion gate: every piece of text a harvester keeps passes
through :func:`skillopt_sleep.redaction.clip` (scrub, then clip) before it becomes a
:class:`~skillopt.records.Turn`, tool names are sanitised to ``[A-Za-z0-9_-]{1,64}``,
and a session containing the engine sentinel is discarded whole.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from skillopt.api import Session, Turn

from skillopt_sleep.redaction import clip
from skillopt_sleep.sentinel import is_engine_text

MAX_TEXT = 4000
MAX_TOOL_DETAIL = 400
MAX_TURNS = 600
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_FILES_PER_SESSION = 50

SHELL_TOOLS = frozenset(
    {
        "bash",
        "shell",
        "exec_command",
        "local_shell",
        "local_shell_call",
        "run_in_terminal",
        "runinterminal",
        "run_shell_command",
        "terminal",
        "run_terminal_cmd",
        "execute_command",
        "command",
    }
)
EDIT_TOOLS = frozenset(
    {
        "edit",
        "write",
        "multiedit",
        "str_replace_editor",
        "apply_patch",
        "create_file",
        "edit_file",
        "replace_string_in_file",
        "insert_edit_into_file",
        "notebookedit",
        "patch",
    }
)

_TOOL_NAME_BAD = re.compile(r"[^A-Za-z0-9_-]+")


def sanitize_tool_name(name: Any) -> str:
    """A tool name safe to show and compare: ``[A-Za-z0-9_-]{1,64}``, never a path or shell text."""
    text = _TOOL_NAME_BAD.sub("_", str(name or "")).strip("_")[:64]
    return text or "tool"


def is_shell_tool(name: str) -> bool:
    return name.lower() in SHELL_TOOLS


def parse_time(value: Any) -> datetime | None:
    """ISO-8601 strings and epoch seconds/milliseconds, as UTC datetimes."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)):
        seconds = value / 1000.0 if value > 1e11 else float(value)
        try:
            return datetime.fromtimestamp(seconds, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    text = str(value).strip()
    if text.isdigit():
        return parse_time(int(text))
    try:
        dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def iso(dt: datetime | None) -> str:
    return dt.astimezone(timezone.utc).isoformat(timespec="seconds") if dt else ""


def mtime(path: Path) -> datetime | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc)
    except OSError:
        return None


def read_snapshot(path: Path, limit: int = MAX_FILE_BYTES) -> str:
    """The file as it was when opened: at most its size at open time (a live writer
    cannot extend the read), and never a trailing half-written line."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        data = fh.read(min(size, limit))
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n")
        data = data[: cut + 1] if cut >= 0 else data
    return data.decode("utf-8", errors="replace")


def iter_jsonl(path: Path, *, strict: bool = False) -> Iterator[dict[str, Any]]:
    """JSON objects of a JSONL snapshot; bad lines are skipped (or raise with ``strict``)."""
    for number, line in enumerate(read_snapshot(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            if strict:
                raise ValueError(f"{path}: line {number} is not JSON") from None
            continue
        if isinstance(obj, dict):
            yield obj
        elif strict:
            raise ValueError(f"{path}: line {number} is not a JSON object")


def files_under(roots: Iterable[Path], patterns: Iterable[str], *, since: datetime | None = None) -> list[Path]:
    """Files matching ``patterns`` under ``roots``, newest first, skipping unchanged-since ones."""
    found: dict[str, Path] = {}
    for root in roots:
        root = Path(root).expanduser()
        if root.is_file():
            candidates: Iterable[Path] = [root]
        elif root.is_dir():
            candidates = (p for pattern in patterns for p in root.glob(pattern))
        else:
            continue
        for path in candidates:
            if not path.is_file():
                continue
            if since is not None:
                modified = mtime(path)
                if modified is not None and modified < since:
                    continue
            found.setdefault(str(path), path)
    return sorted(found.values(), key=lambda p: mtime(p) or datetime.min.replace(tzinfo=timezone.utc), reverse=True)


def block_text(content: Any, *, kinds: tuple[str, ...] = ("text", "input_text", "output_text")) -> str:
    """Text of a message content that is a string or a list of typed blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") in kinds and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return "\n".join(p for p in parts if p)
    return ""


def command_text(value: Any) -> str:
    """A shell command from a string or an argv list (``["bash", "-lc", "pytest"]``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        if len(value) >= 3 and value[0].endswith(("bash", "sh", "zsh")) and value[1] in ("-lc", "-c"):
            return value[2]
        return " ".join(value)
    return ""


_EXIT_CODE = re.compile(r"(?i)\bexit(?:ed with)?(?: code|_code|status)?[:= ]+(-?\d+)")


def exit_code_in(text: str) -> int | None:
    m = _EXIT_CODE.search(text or "")
    return int(m.group(1)) if m else None


def result_content(ok: bool, exit_code: int | None, output: str) -> str:
    """How tool results are stored: a status tag the miner parses, then redacted output."""
    tag = f"[{'ok' if ok else 'error'}{'' if exit_code is None else f' exit={exit_code}'}]"
    head = clip(output or "", MAX_TOOL_DETAIL)
    return f"{tag} {head}".rstrip()


class SessionBuilder:
    """Accumulates one session's events; :meth:`build` returns a redacted Session or None."""

    def __init__(self, source: str, session_id: str, raw_path: Path | str = ""):
        self.source = source
        self.session_id = str(session_id)
        self.raw_path = str(raw_path)
        self.project = ""
        self.started: datetime | None = None
        self.ended: datetime | None = None
        self.metadata: dict[str, Any] = {}
        self.turns: list[Turn] = []
        self.tools: list[str] = []
        self.files: list[str] = []
        self.engine_generated = False
        self._calls: dict[str, str] = {}

    # -------------------------------------------------------------- events

    def seen(self, when: Any) -> None:
        dt = when if isinstance(when, datetime) else parse_time(when)
        if dt is None:
            return
        if self.started is None or dt < self.started:
            self.started = dt
        if self.ended is None or dt > self.ended:
            self.ended = dt

    def set_project(self, path: Any) -> None:
        if path and not self.project and isinstance(path, str):
            self.project = os.path.normpath(path)

    def _add(self, turn: Turn) -> None:
        if len(self.turns) < MAX_TURNS:
            self.turns.append(turn)

    def user(self, text: str, when: Any = None) -> None:
        if not text or not text.strip():
            return
        if is_engine_text(text):
            self.engine_generated = True
        self.seen(when)
        self._add(Turn(role="user", content=clip(text.strip(), MAX_TEXT)))

    def assistant(self, text: str, when: Any = None) -> None:
        if not text or not text.strip():
            return
        self.seen(when)
        self._add(Turn(role="assistant", content=clip(text.strip(), MAX_TEXT)))

    def feedback(self, signal: str, when: Any = None) -> None:
        """An explicit signal from the agent UI (vote, turn error): ``up``, ``down``, ``error``."""
        self.seen(when)
        self._add(Turn(role="user", kind="feedback", content=signal))

    def tool_call(self, name: Any, detail: str = "", call_id: str = "", when: Any = None) -> str:
        safe = sanitize_tool_name(name)
        self.seen(when)
        if safe not in self.tools:
            self.tools.append(safe)
        if call_id:
            self._calls[str(call_id)] = safe
        self._add(Turn(role="assistant", kind="tool_call", name=safe, content=clip(detail or "", MAX_TOOL_DETAIL)))
        return safe

    def tool_name_for(self, call_id: Any, default: str = "tool") -> str:
        return self._calls.get(str(call_id), sanitize_tool_name(default))

    def tool_result(self, name: Any, *, ok: bool, exit_code: int | None = None, output: str = "", when: Any = None) -> None:
        self.seen(when)
        self._add(
            Turn(role="tool", kind="tool_result", name=sanitize_tool_name(name), content=result_content(ok, exit_code, output))
        )

    def touch(self, path: Any) -> None:
        if isinstance(path, str) and path and len(self.files) < MAX_FILES_PER_SESSION:
            clean = clip(path, 300)
            if clean not in self.files:
                self.files.append(clean)

    # -------------------------------------------------------------- result

    def build(self, since: datetime | None = None) -> Session | None:
        if self.engine_generated:
            return None
        if not any(t.role == "user" and t.kind == "message" for t in self.turns):
            return None
        if since is not None and self.ended is not None and self.ended < since:
            return None
        return Session(
            id=f"{self.source}:{self.session_id}",
            source=self.source,
            project=self.project,
            started_at=iso(self.started),
            ended_at=iso(self.ended),
            turns=tuple(self.turns),
            tools_used=tuple(self.tools),
            files_touched=tuple(self.files),
            raw_path=self.raw_path,
            metadata={k: _clean_meta(v) for k, v in self.metadata.items()},
        )


def _clean_meta(value: Any) -> Any:
    if isinstance(value, str):
        return clip(value, 300)
    if isinstance(value, list):
        return [_clean_meta(v) for v in value[:50]]
    if isinstance(value, dict):
        return {str(k)[:64]: _clean_meta(v) for k, v in list(value.items())[:50]}
    return value
