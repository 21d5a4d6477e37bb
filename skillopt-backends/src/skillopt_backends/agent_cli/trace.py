"""An agent CLI's tool steps as trajectory turns (``Completion.trace``), clipped.

Claude Code (``--output-format stream-json --verbose``) and Codex (``exec --json``)
print every tool call and its result as events; in agent mode these become
``tool_call`` / ``observation`` turns that reflection reads (upstream's
``claude_trace_to_optimizer`` / ``codex_trace_to_optimizer``, PR #238: on by default,
``options.trace_to_optimizer = false`` turns it off). Arguments and results are clipped,
and a long session keeps its first steps and says how many were left out, so a trace
never crowds the analysts' prompt. Secrets are masked by the call pipeline.
"""

from __future__ import annotations

import json
from typing import Any

from skillopt.api import Turn

MAX_STEPS = 40
ARGS_CHARS = 300
RESULT_CHARS = 400


def trace_on(options: dict[str, Any], mode: str) -> bool:
    value = options.get("trace_to_optimizer", True)
    off = value is False or str(value).strip().lower() in ("0", "false", "no", "off")
    return mode == "agent" and not off


def clip(text: str, limit: int) -> str:
    text = " ".join(str(text).split()) if len(str(text)) > limit else str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def call(name: str, arguments: Any) -> Turn:
    shown = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False, sort_keys=True)
    return Turn(role="assistant", kind="tool_call", name=name, content=clip(shown, ARGS_CHARS))


def result(name: str, output: Any) -> Turn:
    if isinstance(output, list):  # content parts
        output = "\n".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in output)
    return Turn(role="tool", kind="observation", name=name, content=clip(output if output is not None else "", RESULT_CHARS))


def bounded(turns: list[Turn]) -> tuple[Turn, ...]:
    """The first :data:`MAX_STEPS` tool calls (with their results), and a note of the rest."""
    calls = [i for i, t in enumerate(turns) if t.kind == "tool_call"]
    if len(calls) <= MAX_STEPS:
        return tuple(turns)
    cut = calls[MAX_STEPS]
    left = len(calls) - MAX_STEPS
    return (*turns[:cut], Turn(role="system", kind="note", content=f"[{left} more agent step(s) not shown]"))


def claude_steps(events: list[dict[str, Any]]) -> tuple[Turn, ...]:
    """Claude Code's stream: ``tool_use`` blocks of assistant messages, ``tool_result`` blocks of user messages."""
    names: dict[str, str] = {}
    turns: list[Turn] = []
    for event in events:
        content = (event.get("message") or {}).get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict):
                continue
            if event.get("type") == "assistant" and block.get("type") == "tool_use":
                names[str(block.get("id"))] = str(block.get("name") or "tool")
                turns.append(call(names[str(block.get("id"))], block.get("input") or {}))
            elif event.get("type") == "user" and block.get("type") == "tool_result":
                turns.append(result(names.get(str(block.get("tool_use_id")), "tool"), block.get("content")))
    return bounded(turns)


def codex_steps(events: list[dict[str, Any]]) -> tuple[Turn, ...]:
    """Codex's ``item.completed`` events: commands with their output, file changes, MCP tool calls, web searches."""
    turns: list[Turn] = []
    for event in events:
        item = event.get("item") or {}
        kind = item.get("type")
        if event.get("type") != "item.completed":
            continue
        if kind == "command_execution":
            turns.append(call("shell", str(item.get("command", ""))))
            code = item.get("exit_code")
            turns.append(result("shell", (f"[exit {code}] " if code not in (None, 0) else "") + str(item.get("aggregated_output", ""))))
        elif kind == "file_change":
            changes = [f"{c.get('kind', 'update')} {c.get('path', '')}" for c in item.get("changes") or [] if isinstance(c, dict)]
            turns.append(call("apply_patch", ", ".join(changes)))
        elif kind == "mcp_tool_call":
            name = f"{item.get('server', 'mcp')}.{item.get('tool', 'tool')}"
            turns.append(call(name, item.get("arguments") or {}))
            if item.get("result") is not None or item.get("error"):
                turns.append(result(name, item.get("result") if item.get("result") is not None else item.get("error")))
        elif kind == "web_search":
            turns.append(call("web_search", str(item.get("query", ""))))
    return bounded(turns)
