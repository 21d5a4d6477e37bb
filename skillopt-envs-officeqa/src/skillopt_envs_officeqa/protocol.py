"""The text protocol of the tool loop, so that any backend can drive it.

The core has no function-calling API, so the agent writes its calls in the reply:

    <tool>{"name": "grep", "args": {"pattern": "Customs", "path": "treasury_bulletin_1949_06.txt"}}</tool>

and ends with ``<answer>…</answer>``. Accepted variations: tags ``<tool>``, ``<tool_call>``
or ``<tool-call>`` in any case; a missing closing tag at the end of the reply; the JSON in
a code fence; ``arguments``/``parameters``/``input`` for ``args`` (also as a JSON string),
``tool``/``function`` for ``name``, or the arguments at the top level; Python dict syntax
(single quotes); and a call written as ``grep("Customs", "file.txt")`` or
``read(path="f.txt", start=40)``. At most :data:`MAX_CALLS_PER_REPLY` calls run per reply.

An ``<answer>`` that comes before any tool call ends the item; a tool call written before
an answer runs, and the answer in that reply is ignored (it was written before the
result was seen). Answer extraction follows upstream: the first ``<answer>…</answer>``
(here an unclosed ``<answer>`` at the very end also counts).
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

import attrs

from skillopt_envs_officeqa.tools import PARAMETERS

MAX_CALLS_PER_REPLY = 4
_TOOL_OPEN = re.compile(r"<\s*tool(?:[_-]call)?\s*>", re.IGNORECASE)
_TOOL_CLOSE = re.compile(r"<\s*/\s*tool(?:[_-]call)?\s*>", re.IGNORECASE)
_ANSWER = re.compile(r"<answer>(.*?)(?:</answer>|\Z)", re.IGNORECASE | re.DOTALL)
_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")
_NAME_KEYS = ("name", "tool", "function", "tool_name")
_ARG_KEYS = ("args", "arguments", "parameters", "input", "params")


@attrs.frozen
class ToolCall:
    name: str
    args: dict[str, Any]
    raw: str
    error: str = ""  # set when the call could not be parsed; the agent is told why


@attrs.frozen
class Parsed:
    calls: tuple[ToolCall, ...] = ()
    answer: str | None = None  # set when the reply ends the item
    dropped_calls: int = 0


def extract_answer(text: str) -> str | None:
    m = _ANSWER.search(text or "")
    return m.group(1).strip() if m else None


def parse_reply(text: str) -> Parsed:
    text = text or ""
    answer_match = _ANSWER.search(text)
    first_tool = _TOOL_OPEN.search(text)
    if answer_match and (first_tool is None or answer_match.start() < first_tool.start()):
        return Parsed(answer=answer_match.group(1).strip())
    bodies = []
    pos = 0
    while True:
        opening = _TOOL_OPEN.search(text, pos)
        if opening is None:
            break
        closing = _TOOL_CLOSE.search(text, opening.end())
        end = closing.start() if closing else len(text)
        bodies.append(text[opening.end() : end])
        pos = closing.end() if closing else len(text)
    calls = tuple(parse_call(body) for body in bodies[:MAX_CALLS_PER_REPLY])
    return Parsed(calls=calls, dropped_calls=max(len(bodies) - MAX_CALLS_PER_REPLY, 0))


#: characters of one call's body that are parsed; a longer call is an error the agent sees
MAX_CALL_CHARS = 4000


def parse_call(body: str) -> ToolCall:
    """One call's body -> a ToolCall; any malformed shape (``{[1]: 2}``, JSON nested a
    thousand deep, a 6,000-character path) is a ToolCall with ``error`` set, never an
    exception: the agent is told and the item goes on."""
    raw = body.strip()
    if len(raw) > MAX_CALL_CHARS:
        return ToolCall(name="", args={}, raw=raw[:200], error=f"the tool call is {len(raw)} characters long; keep it under {MAX_CALL_CHARS}")
    try:
        return _parse_call(raw)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError, AttributeError) as exc:
        return ToolCall(name="", args={}, raw=raw, error=f"the tool call could not be read ({type(exc).__name__}); write e.g. "
                        '<tool>{"name": "grep", "args": {"pattern": "Customs", "path": "<file>"}}</tool>')


def _parse_call(raw: str) -> ToolCall:
    cleaned = _FENCE.sub("", raw).strip()
    example = '{"name": "grep", "args": {"pattern": "Customs", "path": "<file>"}}'
    if not cleaned:
        return ToolCall(name="", args={}, raw=raw, error=f"empty tool call; write e.g. <tool>{example}</tool>")
    data: Any = None
    try:
        data = json.loads(cleaned)
    except (json.JSONDecodeError, RecursionError):
        try:
            data = ast.literal_eval(cleaned)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            data = _call_syntax(cleaned)
    if not isinstance(data, dict):
        return ToolCall(name="", args={}, raw=raw, error=f"the tool call is not valid JSON; write e.g. <tool>{example}</tool>")
    name = next((str(data[k]) for k in _NAME_KEYS if isinstance(data.get(k), str)), "")
    if not name:
        return ToolCall(name="", args={}, raw=raw, error=f"the tool call has no \"name\"; write e.g. <tool>{example}</tool>")
    args: Any = next((data[k] for k in _ARG_KEYS if k in data), None)
    if args is None:
        args = {k: v for k, v in data.items() if k not in _NAME_KEYS}
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            params = PARAMETERS.get(name.strip().lower(), ("pattern",))
            args = {params[0]: args}  # a bare string: the tool's first parameter
    if not isinstance(args, dict):
        return ToolCall(name=name, args={}, raw=raw, error="\"args\" must be an object of named arguments")
    return ToolCall(name=name.strip().lower(), args=args, raw=raw)


def _call_syntax(text: str) -> dict | None:
    """``grep("x", "f.txt")`` / ``read(path="f", start=3)`` as ``{"name", "args"}``; None if not a call."""
    try:
        node = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return None
    name = node.func.id.lower()
    params = PARAMETERS.get(name)
    try:
        positional = [ast.literal_eval(a) for a in node.args]
        keywords = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if params is None or len(positional) > len(params):
        return {"name": name, "args": {**{f"arg{i}": v for i, v in enumerate(positional)}, **keywords}}
    return {"name": name, "args": {**dict(zip(params, positional, strict=False)), **keywords}}
