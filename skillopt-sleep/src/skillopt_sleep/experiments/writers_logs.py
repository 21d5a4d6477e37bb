"""Writing synthetic sessions as the JSONL logs of Copilot CLI, Cursor, pi and VS Code
Copilot Chat, in the shapes their harvesters document (see ``harvest/<agent>.py``):
Copilot CLI ``session-state/<id>/events.jsonl`` (a shell result ends ``<exited with
exit code N>``), Cursor agent transcripts (``<user_query>``, ``tool_use`` blocks,
stream-json ``shellToolCall`` results), pi v3 session trees (a failed bash result ends
``Command exited with code N``) and VS Code's chat operation log.
"""

from __future__ import annotations

import json
import os
import zlib
from datetime import datetime, timedelta
from pathlib import Path

from skillopt_sleep.experiments.transcripts import Event
from skillopt_sleep.harvest.cursor import slug


def _write(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def _stamp(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds") + "Z"


def write_copilot_cli(home: Path, project: Path, session_id: str, events: list[Event], start: datetime) -> Path:
    t = start
    out: list[dict] = []

    def event(kind: str, data: dict) -> None:
        out.append({"type": kind, "data": data, "id": f"{session_id[:8]}-{len(out):04d}", "timestamp": _stamp(t), "parentId": None})

    event("session.start", {"sessionId": session_id, "version": 1, "producer": "copilot-agent", "copilotVersion": "0.0.339",
                            "startTime": _stamp(t), "context": {"cwd": str(project), "branch": "main"}})  # fmt: skip
    for n, ev in enumerate(events):
        t += timedelta(seconds=5)
        call = f"toolu_{n:03d}"
        if ev.kind == "user":
            event("user.message", {"content": ev.text, "attachments": []})
        elif ev.kind == "assistant":
            event("assistant.message", {"messageId": f"m{n}", "content": ev.text, "toolRequests": []})
        elif ev.kind == "edit":
            event("tool.execution_start", {"toolCallId": call, "toolName": "edit", "arguments": {"path": ev.path, "new_str": ev.text}})
            event("tool.execution_complete", {"toolCallId": call, "success": True, "result": {"content": f"Edited {ev.path}"}})
        else:
            event("tool.execution_start", {"toolCallId": call, "toolName": "bash", "arguments": {"command": ev.text}})
            result = f"{ev.output}\n<exited with exit code {ev.exit_code}>"
            event("tool.execution_complete", {"toolCallId": call, "success": True, "result": {"content": result}})
    return _write(home / ".copilot" / "session-state" / session_id / "events.jsonl", out)


def write_cursor(home: Path, project: Path, session_id: str, events: list[Event], start: datetime) -> Path:
    folder = home / ".cursor" / "projects" / slug(str(project))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".workspace-trusted").write_text(json.dumps({"workspacePath": str(project)}), encoding="utf-8")
    out: list[dict] = []
    for n, ev in enumerate(events):
        call = f"call_{n:03d}"
        if ev.kind == "user":
            out.append({"role": "user", "message": {"content": [{"type": "text", "text": f"<user_query>\n{ev.text}\n</user_query>"}]}})
        elif ev.kind == "assistant":
            out.append({"role": "assistant", "message": {"content": [{"type": "text", "text": ev.text}]}})
        elif ev.kind == "edit":
            block = {"type": "tool_use", "id": call, "name": "Write", "input": {"path": ev.path, "contents": ev.text}}
            out.append({"role": "assistant", "message": {"content": [block]}})
        else:
            shell = {"args": {"command": ev.text, "toolCallId": call}}
            outcome = {"command": ev.text, "exitCode": ev.exit_code, "stdout": ev.output, "stderr": ""}
            done = {**shell, "result": {"success" if ev.exit_code == 0 else "failure": outcome}}
            out.append({"type": "tool_call", "subtype": "started", "call_id": call, "tool_call": {"shellToolCall": shell}})
            out.append({"type": "tool_call", "subtype": "completed", "call_id": call, "tool_call": {"shellToolCall": done}})
    path = _write(folder / "agent-transcripts" / session_id / f"{session_id}.jsonl", out)
    stamp = (start + timedelta(minutes=5)).timestamp()
    os.utime(path, (stamp, stamp))  # Cursor records no times: the file's mtime is the session's end
    return path


def write_pi(home: Path, project: Path, session_id: str, events: list[Event], start: datetime) -> Path:
    t = start
    folder = "--" + str(project).strip("/").replace("/", "-") + "--"
    out: list[dict] = [{"type": "session", "version": 3, "id": session_id, "timestamp": _stamp(t), "cwd": str(project)}]

    def entry(message: dict) -> None:
        parent = out[-1]["id"] if len(out) > 1 else None
        out.append({"type": "message", "id": f"e{len(out):04d}", "parentId": parent, "timestamp": _stamp(t), "message": message})

    for n, ev in enumerate(events):
        t += timedelta(seconds=4)
        call = f"call_{n:03d}"
        if ev.kind == "user":
            entry({"role": "user", "content": [{"type": "text", "text": ev.text}]})
        elif ev.kind == "assistant":
            entry({"role": "assistant", "content": [{"type": "text", "text": ev.text}], "stopReason": "stop"})
        elif ev.kind == "edit":
            entry({"role": "assistant", "content": [{"type": "toolCall", "id": call, "name": "write", "arguments": {"path": ev.path, "content": ev.text}}]})
            entry({"role": "toolResult", "toolCallId": call, "toolName": "write", "content": [{"type": "text", "text": "ok"}], "isError": False})
        else:
            entry({"role": "assistant", "content": [{"type": "toolCall", "id": call, "name": "bash", "arguments": {"command": ev.text}}]})
            text = ev.output + (f"\n\nCommand exited with code {ev.exit_code}" if ev.exit_code else "")
            entry({"role": "toolResult", "toolCallId": call, "toolName": "bash", "content": [{"type": "text", "text": text}],
                   "isError": ev.exit_code != 0})  # fmt: skip
    return _write(home / ".pi" / "agent" / "sessions" / folder / f"{start:%Y-%m-%dT%H-%M-%S}-000Z_{session_id}.jsonl", out)


def write_vscode_copilot(home: Path, project: Path, session_id: str, events: list[Event], start: datetime) -> Path:
    """VS Code's operation log: one request per user message, its response parts appended."""
    storage = home / ".config" / "Code" / "User" / "workspaceStorage" / f"ws{zlib.crc32(str(project).encode()):010d}"
    storage.mkdir(parents=True, exist_ok=True)
    (storage / "workspace.json").write_text(json.dumps({"folder": project.as_uri()}), encoding="utf-8")
    agent = {"extensionId": {"value": "GitHub.copilot-chat", "_lower": "github.copilot-chat"}, "id": "github.copilot.editsAgent"}
    ms = int(start.timestamp() * 1000)
    ops: list[dict] = [{"kind": 0, "v": {"version": 3, "sessionId": session_id, "creationDate": ms, "requests": []}}]
    index = -1
    for n, ev in enumerate(events):
        ms += 5000
        if ev.kind == "user":
            index += 1
            request = {"requestId": f"request_{index}", "timestamp": ms, "message": {"text": ev.text, "parts": []}, "response": [], "agent": agent}
            ops.append({"kind": 2, "k": ["requests"], "v": [request]})
            continue
        if index < 0:
            continue
        if ev.kind == "assistant":
            part = {"kind": "markdownContent", "content": {"value": ev.text}}
        elif ev.kind == "edit":
            part = {"kind": "toolInvocationSerialized", "toolId": "copilot_createFile", "toolCallId": f"tc{n}", "isComplete": True}
        else:
            state = {"exitCode": ev.exit_code}
            data = {"kind": "terminal", "commandLine": {"original": ev.text}, "terminalCommandState": state, "output": ev.output}
            part = {"kind": "toolInvocationSerialized", "toolId": "run_in_terminal", "toolCallId": f"tc{n}", "isComplete": True,
                    "toolSpecificData": data}  # fmt: skip
        ops.append({"kind": 2, "k": ["requests", index, "response"], "v": [part]})
    return _write(storage / "chatSessions" / f"{session_id}.jsonl", ops)
