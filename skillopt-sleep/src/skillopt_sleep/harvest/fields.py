"""Reading the fields agents write: times, message content, commands, tool names.

Every agent stores the same few things in its own shape (a string or typed blocks, an
argv list or a command line, ISO strings or epoch milliseconds); these helpers turn
each into one plain form.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

SHELL_TOOLS = frozenset(
    {
        "bash",
        "shell",
        "shell_command",
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
        "powershell",
    }
)
EDIT_TOOLS = frozenset(
    {
        "edit",
        "write",
        "multiedit",
        "str_replace_editor",
        "str_replace_based_edit_tool",
        "apply_patch",
        "create",
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


def is_edit_tool(name: str) -> bool:
    return name.lower() in EDIT_TOOLS


def parse_time(value: Any) -> datetime | None:
    """ISO-8601 strings and epoch seconds/milliseconds, as UTC datetimes."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)):
        seconds = value / 1000.0 if value > 1e11 else float(value)
        try:
            return datetime.fromtimestamp(seconds, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    text = str(value).strip()
    if text.isdigit():
        return parse_time(int(text))
    try:
        dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def iso(dt: datetime | None) -> str:
    return dt.astimezone(UTC).isoformat(timespec="seconds") if dt else ""


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


_PATH_KEYS = ("file_path", "path", "filePath", "target_file", "targetFile")
_WRITTEN_KEYS = ("new_string", "newString", "new_str", "newText", "content", "file_text", "contents", "code_edit")


def edit_target(args: Any) -> tuple[str, str]:
    """(path, the text it writes) of an edit or write tool call, from the argument names
    the agents use (``new_string``, ``newText``, ``new_str``, ``content`` …, and
    MultiEdit's ``edits`` list); ``("", "")`` when the arguments say neither."""
    if not isinstance(args, dict):
        return "", ""
    path = next((args[k] for k in _PATH_KEYS if isinstance(args.get(k), str)), "")
    written = [args[k] for k in _WRITTEN_KEYS if isinstance(args.get(k), str)]
    for edit in args.get("edits") if isinstance(args.get("edits"), list) else []:
        if isinstance(edit, dict):
            written += [edit[k] for k in _WRITTEN_KEYS if isinstance(edit.get(k), str)]
    return path, "\n".join(written)


_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add) File: (\S+)")


def patch_writes(patch: str) -> list[tuple[str, str]]:
    """(path, added lines) per file of an ``apply_patch`` patch (Codex's format)."""
    out: list[tuple[str, list[str]]] = []
    for line in (patch or "").splitlines():
        m = _PATCH_FILE.match(line)
        if m:
            out.append((m.group(1), []))
        elif out and line.startswith("+") and not line.startswith("+++"):
            out[-1][1].append(line[1:])
    return [(path, "\n".join(lines)) for path, lines in out]
