"""VS Code Copilot Chat: ``<User>/workspaceStorage/<id>/chatSessions/<session>.jsonl``.

The file is an *operation log* over one session object: ``kind 0`` sets the whole
object, ``kind 1`` sets the value at path ``k``, ``kind 2`` truncates the array at
``k`` to index ``i`` (when given) and appends ``v``, ``kind 3`` deletes at ``k``.
Replaying it rebuilds ``requests``: each has ``message.text`` (the prompt),
``response`` parts (markdown ``value``s, ``toolInvocationSerialized`` with a
``toolId``), ``agent`` and ``vote``. The project comes from the adjacent
``workspace.json``. Legacy ``.json`` files hold the final object directly.
"""

from __future__ import annotations

import copy
import json
import os
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from skillopt.api import Harvester, Session, hookimpl
from skillopt_sleep.harvest.builder import SessionBuilder
from skillopt_sleep.harvest.files import files_under, iter_jsonl, read_snapshot

COPILOT_EXTENSION = "github.copilot-chat"


class VSCodeCopilotHarvester(Harvester):
    name = "vscode-copilot"
    summary = "VS Code Copilot Chat sessions (workspaceStorage/*/chatSessions/*.jsonl)"
    root_env_var = "SKILLOPT_SLEEP_VSCODE_COPILOT_ROOTS"
    memory_file = ".github/copilot-instructions.md"
    skill_dir = ".github/skills"

    def default_roots(self) -> list[Path]:
        roots = []
        portable = os.environ.get("VSCODE_PORTABLE")
        if portable:
            roots.append(Path(portable) / "user-data" / "User" / "workspaceStorage")
        for user_dir in _user_dirs():
            roots.append(user_dir / "workspaceStorage")
        return roots

    def sessions(self, roots: list[Path], since: datetime | None = None) -> Iterator[Session]:
        for path in files_under(roots, ["*/chatSessions/*.jsonl", "*/chatSessions/*.json"], since=since):
            session = parse_file(path, since)
            if session is not None:
                yield session


def _user_dirs() -> list[Path]:
    products = ("Code", "Code - Insiders", "VSCodium")
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return [base / product / "User" for product in products]


# ------------------------------------------------------------------ operation log


def _walk(obj: Any, path: list) -> Any:
    for key in path:
        if isinstance(obj, dict):
            obj = obj.get(key)
        elif isinstance(obj, list) and isinstance(key, int) and -len(obj) <= key < len(obj):
            obj = obj[key]
        else:
            return None
    return obj


def apply_operation(state: Any, op: dict) -> Any:
    """Apply one log entry to ``state`` and return the new state."""
    kind, keys = op.get("kind"), op.get("k") or []
    if kind == 0:
        return copy.deepcopy(op.get("v"))
    if not isinstance(keys, list) or not keys:
        return state
    if kind == 1:
        parent = _walk(state, keys[:-1])
        last = keys[-1]
        if isinstance(parent, dict):
            parent[last] = op.get("v")
        elif isinstance(parent, list) and isinstance(last, int):
            if 0 <= last < len(parent):
                parent[last] = op.get("v")
            elif last == len(parent):
                parent.append(op.get("v"))
    elif kind == 2:
        target = _walk(state, keys)
        if isinstance(target, list):
            if isinstance(op.get("i"), int):
                del target[op["i"] :]
            if isinstance(op.get("v"), list):
                target.extend(op["v"])
    elif kind == 3:
        parent = _walk(state, keys[:-1])
        last = keys[-1]
        if isinstance(parent, dict):
            parent.pop(last, None)
        elif isinstance(parent, list) and isinstance(last, int) and 0 <= last < len(parent):
            parent.pop(last)
    return state


def load_session_object(path: Path) -> dict | None:
    if path.suffix == ".json":
        try:
            data = json.loads(read_snapshot(path) or "null")
        except json.JSONDecodeError:
            return None
        return data if isinstance(data, dict) else None
    state: Any = None
    for op in iter_jsonl(path):
        if "kind" in op:
            state = apply_operation(state, op)
    return state if isinstance(state, dict) else None


# ------------------------------------------------------------------ session


def workspace_folder(chat_file: Path) -> str:
    """The workspace folder recorded in ``workspace.json`` next to ``chatSessions``."""
    meta = chat_file.parent.parent / "workspace.json"
    try:
        data = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return ""
    uri = data.get("folder") or data.get("workspace") or ""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return ""
    path = unquote(parsed.path)
    if data.get("workspace") and not data.get("folder"):
        path = os.path.dirname(path)
    return path


def _extension_id(agent: Any) -> str:
    if not isinstance(agent, dict):
        return ""
    ext = agent.get("extensionId")
    if isinstance(ext, dict):
        ext = ext.get("_lower") or ext.get("value") or ""
    return str(ext or "").lower()


def parse_file(path: Path, since: datetime | None = None) -> Session | None:
    data = load_session_object(path)
    if not data:
        return None
    b = SessionBuilder("vscode-copilot", data.get("sessionId") or path.stem, path)
    b.set_project(workspace_folder(path))
    b.seen(data.get("creationDate"))
    for request in data.get("requests") or []:
        if not isinstance(request, dict) or request.get("isSystemInitiated"):
            continue
        ext = _extension_id(request.get("agent"))
        if ext and ext != COPILOT_EXTENSION:
            continue
        when = request.get("timestamp")
        message = request.get("message") if isinstance(request.get("message"), dict) else {}
        b.user(str(message.get("text") or ""), when)
        _response(b, request.get("response") or [], when)
        if request.get("modelId"):
            b.metadata.setdefault("model", request["modelId"])
        vote = request.get("vote")
        if vote in (0, 1):
            b.feedback("up" if vote == 1 else "down", when)
        result = request.get("result") if isinstance(request.get("result"), dict) else {}
        if result.get("errorDetails"):
            b.feedback("error", when)
    return b.build(since)


def _response(b: SessionBuilder, parts: list, when) -> None:
    texts: list[str] = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        kind = part.get("kind")
        if kind in (None, "markdownContent"):
            value = part.get("value")
            if value is None and isinstance(part.get("content"), dict):
                value = part["content"].get("value")
            if isinstance(value, str):
                texts.append(value)
        elif kind == "toolInvocationSerialized":
            if texts:
                b.assistant("".join(texts), when)
                texts = []
            data = part.get("toolSpecificData") if isinstance(part.get("toolSpecificData"), dict) else {}
            command = data.get("command")
            if not command and isinstance(data.get("commandLine"), dict):
                command = data["commandLine"].get("original")
            name = b.tool_call(part.get("toolId") or "tool", str(command or ""), when=when)
            state = data.get("terminalCommandState") if isinstance(data.get("terminalCommandState"), dict) else {}
            if isinstance(state.get("exitCode"), int):
                b.tool_result(name, output=str(data.get("output") or ""), exit_code=state["exitCode"], when=when)
    if texts:
        b.assistant("".join(texts), when)


@hookimpl
def skillopt_register_harvesters(register):
    register(VSCodeCopilotHarvester)
