"""Writing synthetic sessions in real on-disk formats: Claude Code JSONL and Codex
rollouts here, the other agents in :mod:`.writers_logs` and :mod:`.writers_db`.

The experiments' sessions are turned into the same files the agents write, so they
exercise the real harvesters, not a shortcut around them.
"""

from __future__ import annotations

import hashlib
import json
import uuid
import zlib
from datetime import datetime, timedelta
from pathlib import Path

import attrs


@attrs.frozen(kw_only=True)
class Event:
    kind: str  # user | assistant | shell | edit
    text: str = ""  # the message, the command, or the text an edit writes
    exit_code: int = 0
    output: str = ""
    path: str = ""  # the file an edit writes


def _lines(records: list[dict]) -> str:
    return "\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n"


def write_claude(home: Path, project: Path, session_id: str, events: list[Event], start: datetime) -> Path:
    slug = "-" + str(project).strip("/").replace("/", "-")
    path = home / ".claude" / "projects" / slug / f"{session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    records, t, parent = [], start, None
    base = {
        "isSidechain": False,
        "userType": "external",
        "cwd": str(project),
        "sessionId": session_id,
        "version": "1.0.98",
        "gitBranch": "main",
    }
    for n, ev in enumerate(events):
        t += timedelta(seconds=7)
        uid = str(uuid.UUID(bytes=hashlib.sha256(f"{session_id}:{n}".encode()).digest()[:16]))  # stable across runs
        if ev.kind == "user":
            rec = {**base, "parentUuid": parent, "type": "user", "message": {"role": "user", "content": ev.text}}
        elif ev.kind == "assistant":
            rec = {
                **base,
                "parentUuid": parent,
                "type": "assistant",
                "message": {
                    "id": f"msg_{n}",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [{"type": "text", "text": ev.text}],
                    "stop_reason": "end_turn",
                },
            }
        else:
            tool_id = f"toolu_{session_id[:8]}_{n}"
            if ev.kind == "edit":
                name, args, result, error = "Edit", {"file_path": ev.path, "old_string": "", "new_string": ev.text}, f"Updated {ev.path}", False
            else:
                name, args = "Bash", {"command": ev.text}
                result, error = (f"Exit code {ev.exit_code}\n" if ev.exit_code else "") + ev.output, ev.exit_code != 0
            call = {"type": "tool_use", "id": tool_id, "name": name, "input": args}
            message = {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [call]}
            records.append(
                {**base, "parentUuid": parent, "type": "assistant", "uuid": uid + "a", "timestamp": t.isoformat() + "Z", "message": message}
            )
            block = {"tool_use_id": tool_id, "type": "tool_result", "content": result, "is_error": error}
            rec = {**base, "parentUuid": uid + "a", "type": "user", "message": {"role": "user", "content": [block]}}
        rec["uuid"] = uid
        rec["timestamp"] = t.isoformat() + "Z"
        records.append(rec)
        parent = uid
    path.write_text(_lines(records), encoding="utf-8")
    return path


def _exec_output(ev: Event) -> str:
    """Codex's unified ``exec_command`` result text."""
    return f"Chunk ID: {zlib.crc32(ev.text.encode()) % 65536:04x}\nWall time: 0.8123 seconds\nProcess exited with code {ev.exit_code}\nOutput:\n{ev.output}\n"


def write_codex(
    home: Path, project: Path, session_id: str, events: list[Event], start: datetime, *, exec_command: bool = False
) -> Path:
    """A rollout; shell commands as ``shell`` calls with structured output, or with
    ``exec_command`` as the current ``exec_command`` calls with unified-exec text."""
    day = home / ".codex" / "sessions" / f"{start:%Y}" / f"{start:%m}" / f"{start:%d}"
    day.mkdir(parents=True, exist_ok=True)
    path = day / f"rollout-{start:%Y-%m-%dT%H-%M-%S}-{session_id}.jsonl"
    t = start
    records = [
        {
            "timestamp": t.isoformat() + "Z",
            "type": "session_meta",
            "payload": {
                "id": session_id,
                "timestamp": t.isoformat() + "Z",
                "cwd": str(project),
                "originator": "codex_cli_rs",
                "cli_version": "0.36.0",
                "git": {"branch": "main"},
            },
        }
    ]
    for n, ev in enumerate(events):
        t += timedelta(seconds=6)
        ts = t.isoformat() + "Z"
        if ev.kind == "user":
            records.append(
                {"timestamp": ts, "type": "event_msg", "payload": {"type": "user_message", "message": ev.text, "images": []}}
            )
            records.append(
                {
                    "timestamp": ts,
                    "type": "response_item",
                    "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": ev.text}]},
                }
            )
        elif ev.kind == "assistant":
            records.append(
                {
                    "timestamp": ts,
                    "type": "response_item",
                    "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": ev.text}]},
                }
            )
        elif ev.kind == "edit":
            patch = f"*** Begin Patch\n*** Update File: {ev.path}\n@@\n" + "".join(f"+{line}\n" for line in ev.text.splitlines()) + "*** End Patch"
            call = f"call_{n}"
            records.append(
                {
                    "timestamp": ts,
                    "type": "response_item",
                    "payload": {"type": "custom_tool_call", "status": "completed", "call_id": call, "name": "apply_patch", "input": patch},
                }
            )
            records.append(
                {
                    "timestamp": ts,
                    "type": "response_item",
                    "payload": {"type": "custom_tool_call_output", "call_id": call, "output": f"Success. Updated the following files:\nM {ev.path}"},
                }
            )
        else:
            call = f"call_{n}"
            records.append(
                {
                    "timestamp": ts,
                    "type": "response_item",
                    "payload": {
                        "type": "function_call",
                        "name": "exec_command" if exec_command else "shell",
                        "call_id": call,
                        "arguments": json.dumps(
                            {"cmd": ev.text, "workdir": str(project)}
                            if exec_command
                            else {"command": ["bash", "-lc", ev.text], "workdir": str(project)}
                        ),
                    },
                }
            )
            output = (
                _exec_output(ev)
                if exec_command
                else json.dumps({"output": ev.output, "metadata": {"exit_code": ev.exit_code, "duration_seconds": 0.3}})
            )
            records.append(
                {"timestamp": ts, "type": "response_item", "payload": {"type": "function_call_output", "call_id": call, "output": output}}
            )
    path.write_text(_lines(records), encoding="utf-8")
    return path


WRITERS = {"claude-code": write_claude, "codex": write_codex}
