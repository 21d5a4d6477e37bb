"""The session builder: the single ingestion gate every harvester goes through.

Every piece of text a harvester keeps passes through
:func:`skillopt_sleep.redaction.clip` (scrub, then clip) before it becomes a
:class:`~skillopt.records.Turn`; tool names are sanitised to ``[A-Za-z0-9_-]{1,64}``;
a tool result is stored with its outcome tag (:mod:`.outcome`); and a session that a
program ran rather than the developer (:mod:`.automation`) is discarded whole, its
reason counted in the harvest's :mod:`.tally`.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

from skillopt.api import Session, Turn
from skillopt_sleep.harvest.automation import automation_reason
from skillopt_sleep.harvest.fields import iso, parse_time, sanitize_tool_name
from skillopt_sleep.harvest.outcome import count_tests, exit_status, tag
from skillopt_sleep.harvest.tally import current
from skillopt_sleep.redaction import clip
from skillopt_sleep.sentinel import is_engine_text

MAX_TEXT = 4000
MAX_TOOL_DETAIL = 400
MAX_TURNS = 600
MAX_FILES_PER_SESSION = 50


def result_content(ok: bool | None, exit_code: int | None, output: str) -> str:
    """How a tool result is stored: its outcome tag, then the redacted, clipped output."""
    head = clip(output or "", MAX_TOOL_DETAIL)
    return f"{tag(ok, exit_code, count_tests(output or ''))} {head}".rstrip()


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
        self.first_request = ""
        self.marked = False  # some user text carries the engine sentinel
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
            self.marked = True
        if not self.first_request:
            self.first_request = text.strip()
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

    def edit(self, name: Any, path: str, written: str = "", call_id: str = "", when: Any = None) -> str:
        """An edit or write tool call: its detail is the path, then the text it wrote (what
        the miner compares between a rejected and an accepted attempt)."""
        safe = self.tool_call(name, path + (f"\n{written}" if written else ""), call_id=call_id, when=when)
        self.touch(path)
        return safe

    def has_call(self, call_id: Any) -> bool:
        return str(call_id) in self._calls

    def tool_name_for(self, call_id: Any, default: str = "tool") -> str:
        return self._calls.get(str(call_id), sanitize_tool_name(default))

    def tool_result(
        self, name: Any, *, output: str = "", exit_code: int | None = None, failed: bool | None = None, when: Any = None
    ) -> None:
        """A tool's result. ``exit_code``: the status the agent recorded in a field (read
        from the output's status line when None); ``failed``: the agent's own error flag
        (``is_error``, ``isError``, ``success: false``). A test run whose summary counts
        failures failed, whatever its exit status says."""
        if exit_code is None:
            exit_code = exit_status(output)
        if exit_code is not None:
            ok: bool | None = exit_code == 0
        else:
            ok = None if failed is None else not failed
        tests = count_tests(output or "")
        if tests is not None and tests.failed:
            ok = False
        self.seen(when)
        self._add(Turn(role="tool", kind="tool_result", name=sanitize_tool_name(name), content=result_content(ok, exit_code, output)))

    def touch(self, path: Any) -> None:
        if isinstance(path, str) and path and len(self.files) < MAX_FILES_PER_SESSION:
            cleaned = clip(path, 300)
            if cleaned not in self.files:
                self.files.append(cleaned)

    # -------------------------------------------------------------- result

    def build(self, since: datetime | None = None) -> Session | None:
        if not any(t.role == "user" and t.kind == "message" for t in self.turns):
            return None
        if since is not None and self.ended is not None and self.ended < since:
            return None
        reason = automation_reason(self.first_request, any_user_text_marked=self.marked)
        if reason is not None:
            current().drop(reason, self.project)
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
