"""Codex CLI rollouts: live ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`` and
``~/.codex/archived_sessions/`` (``$CODEX_HOME`` overrides ``~/.codex``).

Each line is ``{"timestamp", "type", "payload"}``: ``session_meta`` (id, cwd, git),
``turn_context`` (cwd), ``response_item`` (model-visible items: ``message``,
``function_call`` / ``local_shell_call`` / ``custom_tool_call`` and their outputs) and
``event_msg`` (UI events: ``user_message``, ``agent_message``, ``exec_command_end`` …).

A typed prompt is recorded twice — as an ``event_msg`` ``user_message`` and as a
``response_item`` user message — so prompts are read from ``event_msg`` when the file
has any, and from ``response_item`` only for older rollouts (upstream counted both).
Harness preambles (``<environment_context>``, ``<user_instructions>``, AGENTS.md)
are stripped; they are not the developer's words.

A shell command's exit status lives in its ``function_call_output``, in whichever
shape that Codex version wrote: the structured JSON string ``{"output",
"metadata": {"exit_code"}}``, the same JSON inside an object ``{"content",
"success": false}`` (older failures), the freeform text ``Exit code: N`` (``shell``,
``shell_command``), or ``Process exited with code N`` (``exec_command``, whose command
is in ``cmd``); an ``exec_command_end`` event, when the rollout kept it, has the
authoritative ``exit_code`` for its ``call_id``. Still-running processes (``Process
running with session ID``) have no status yet and are recorded as unknown.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from skillopt.api import Harvester, Session, hookimpl
from skillopt_sleep.harvest.builder import SessionBuilder
from skillopt_sleep.harvest.fields import block_text, command_text, patch_writes
from skillopt_sleep.harvest.files import files_under, iter_jsonl

_PREAMBLES = re.compile(r"<(environment_context|user_instructions|codex_internal_context|turn_aborted)>.*?</\1>", re.DOTALL)
_AGENTS_MD = re.compile(r"^# AGENTS\.md instructions for .*?(?=\n\n[^<#\s]|\Z)", re.DOTALL)
_ITEM_TYPES = {
    "message",
    "function_call",
    "function_call_output",
    "local_shell_call",
    "custom_tool_call",
    "custom_tool_call_output",
    "reasoning",
    "web_search_call",
}


def strip_preambles(text: str) -> str:
    text = _PREAMBLES.sub("", text or "")
    text = _AGENTS_MD.sub("", text.strip())
    return text.strip()


class CodexHarvester(Harvester):
    name = "codex"
    summary = "Codex CLI rollouts (~/.codex/sessions and archived_sessions)"
    root_env_var = "SKILLOPT_SLEEP_CODEX_ROOTS"
    memory_file = "AGENTS.md"
    skill_dir = ".agents/skills"

    def default_roots(self) -> list[Path]:
        home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()
        return [home / "sessions", home / "archived_sessions"]

    def sessions(self, roots: list[Path], since: datetime | None = None) -> Iterator[Session]:
        seen: set[str] = set()
        for path in files_under(roots, ["**/rollout-*.jsonl", "**/*.jsonl"], since=since):
            session = parse_file(path, since)
            if session is not None and session.id not in seen:  # live and archived copies
                seen.add(session.id)
                yield session


def _records(path: Path) -> list[tuple[str, dict, object]]:
    """(type, payload, timestamp) triples; the oldest format has bare items and a header."""
    out = []
    for rec in iter_jsonl(path):
        if "payload" in rec and isinstance(rec.get("payload"), dict):
            out.append((str(rec.get("type")), rec["payload"], rec.get("timestamp")))
        elif rec.get("type") in _ITEM_TYPES:
            out.append(("response_item", rec, rec.get("timestamp")))
        elif "id" in rec and "instructions" in rec:
            out.append(("session_meta", rec, rec.get("timestamp")))
    return out


def parse_file(path: Path, since: datetime | None = None) -> Session | None:
    records = _records(path)
    prompts_from_events = any(kind == "event_msg" and p.get("type") == "user_message" for kind, p, _ in records)
    finals_from_items = any(
        kind == "response_item" and p.get("type") == "message" and p.get("role") == "assistant" for kind, p, _ in records
    )
    b = SessionBuilder("codex", path.stem, path)
    ended = {
        str(p.get("call_id")): p["exit_code"]
        for kind, p, _ in records
        if kind == "event_msg" and p.get("type") == "exec_command_end" and isinstance(p.get("exit_code"), int)
    }
    for kind, p, when in records:
        if kind == "session_meta":
            b.session_id = str(p.get("id") or b.session_id)
            b.set_project(p.get("cwd"))
            b.seen(p.get("timestamp") or when)
            git = p.get("git") if isinstance(p.get("git"), dict) else {}
            if git.get("branch"):
                b.metadata["branch"] = git["branch"]
            if p.get("originator"):
                b.metadata["originator"] = p["originator"]
        elif kind == "turn_context":
            b.set_project(p.get("cwd"))
            if p.get("model"):
                b.metadata.setdefault("model", p["model"])
        elif kind == "event_msg":
            _event(b, p, when, prompts_from_events, finals_from_items)
        elif kind == "response_item":
            _item(b, p, when, prompts_from_events, ended)
    return b.build(since)


def _event(b: SessionBuilder, p: dict, when, prompts_from_events: bool, finals_from_items: bool) -> None:
    etype = p.get("type")
    if etype == "user_message" and prompts_from_events:
        b.user(strip_preambles(str(p.get("message") or "")), when)
    elif etype == "agent_message" and not finals_from_items:
        b.assistant(str(p.get("message") or ""), when)


def _item(b: SessionBuilder, p: dict, when, prompts_from_events: bool, ended: dict[str, int]) -> None:
    itype = p.get("type")
    if itype == "message":
        text = block_text(p.get("content"))
        if p.get("role") == "user" and not prompts_from_events:
            b.user(strip_preambles(text), when)
        elif p.get("role") == "assistant":
            b.assistant(text, when)
    elif itype in ("function_call", "custom_tool_call"):
        name = str(p.get("name") or "tool")
        raw = p.get("arguments") if itype == "function_call" else p.get("input")
        detail = raw if isinstance(raw, str) else ""
        try:
            args = json.loads(raw) if isinstance(raw, str) else {}
        except json.JSONDecodeError:
            args = {}
        if isinstance(args, dict) and ("command" in args or "cmd" in args):
            detail = command_text(args.get("command") if "command" in args else args.get("cmd"))
        writes = patch_writes(detail) if name == "apply_patch" else []
        if writes:  # one edit per patched file: its path and the lines the patch adds
            for path, added in writes:
                b.edit(name, path, added, call_id=str(p.get("call_id") or ""), when=when)
        else:
            b.tool_call(name, detail, call_id=str(p.get("call_id") or ""), when=when)
    elif itype == "local_shell_call":
        action = p.get("action") if isinstance(p.get("action"), dict) else {}
        b.tool_call("local_shell", command_text(action.get("command")), call_id=str(p.get("call_id") or ""), when=when)
    elif itype in ("function_call_output", "custom_tool_call_output"):
        _output(b, p, when, ended)


def output_fields(raw) -> tuple[str, int | None, bool | None]:
    """(text, exit status from a structured field, the agent's failure flag) of one
    ``output`` value, in any of the shapes Codex has written."""
    failed = None
    if isinstance(raw, dict):  # {"content": ..., "success": false}
        failed = (raw.get("success") is False) or None
        code = raw.get("exit_code") if isinstance(raw.get("exit_code"), int) else None
        inner = raw.get("content") if raw.get("content") is not None else raw.get("output")
        text, nested_code, _ = output_fields(inner)
        return text, code if code is not None else nested_code, failed
    if isinstance(raw, list):  # content items
        return block_text(raw, kinds=("input_text", "output_text", "text")), None, None
    if not isinstance(raw, str):
        return "", None, None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        return raw, None, None
    if isinstance(data, dict) and "output" in data:  # structured: {"output", "metadata": {"exit_code"}}
        meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
        code = meta.get("exit_code") if isinstance(meta.get("exit_code"), int) else None
        return str(data.get("output") or ""), code, None
    return raw, None, None


def _output(b: SessionBuilder, p: dict, when, ended: dict[str, int]) -> None:
    call_id = str(p.get("call_id") or "")
    text, code, failed = output_fields(p.get("output"))
    if code is None:
        code = ended.get(call_id)
    b.tool_result(b.tool_name_for(call_id), output=text, exit_code=code, failed=failed, when=when)


@hookimpl
def skillopt_register_harvesters(register):
    register(CodexHarvester)
