"""A tool loop for multi-turn envs: the target calls tools until it answers.

``CompletionRequest`` has no provider tool-calling field on purpose: every backend
(a 135M local model, agent CLIs, any chat API) can follow a text protocol, and the
engine's cache, retries and budgets stay per call. The protocol here is one JSON object
per reply, ``{"tool": NAME, "arguments": {...}}`` to call a tool or ``{"answer": TEXT}``
to finish (a bare ``Answer: TEXT`` line also finishes). Anything else is answered with
a reminder of the protocol and costs a turn, so a confused model cannot loop forever.
Every event is recorded as a :class:`~skillopt.records.Turn` with a documented kind.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from skillopt.records import CompletionRequest, Message, Turn, TurnKind, Usage

if TYPE_CHECKING:
    import threading

    from skillopt.envs import ChatModel

#: a reply longer than this is not searched for a JSON call (no quadratic scans)
MAX_REPLY_CHARS = 20_000
#: a tool result is clipped to this many characters before the model sees it
MAX_OBSERVATION_CHARS = 4_000
_ANSWER_LINE = re.compile(r"^\s*answer\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)


@attrs.frozen(kw_only=True)
class Tool:
    """One tool the target may call. ``run(arguments) -> str`` returns the observation;
    an exception it raises becomes an ``error: …`` observation, never a crash."""

    #: what the target writes as ``"tool"`` to call it
    name: str
    #: one line in the protocol text: what the tool does
    description: str
    #: ``run(arguments) -> observation``; an exception becomes an ``error: ...`` observation
    run: Callable[[dict[str, Any]], str] = attrs.field(eq=False)
    #: argument name -> one-line description, shown in the protocol text
    parameters: dict[str, str] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class ToolCall:
    #: the tool the reply asked for (it may not exist)
    name: str
    #: the reply's ``arguments`` object ({} when missing or not an object)
    arguments: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class ToolLoopResult:
    """How a loop ended: ``answered``, ``max_turns`` or ``cut_off`` (a reply hit the token limit)."""

    #: the final answer ('' unless ``ended`` is ``answered``)
    answer: str
    #: the whole trajectory, system prompt and task first
    turns: tuple[Turn, ...]
    #: tokens of every call of the loop
    usage: Usage
    #: one of ``answered``, ``max_turns`` (also a cancelled run), ``cut_off``
    ended: str
    #: tool calls the target made (unknown tools included)
    tool_calls: int = 0


def protocol_text(tools: list[Tool]) -> str:
    """The instructions that teach the reply format; put them in the system prompt."""
    lines = ["Reply with exactly one JSON object per message:",
             '- to call a tool: {"tool": "<name>", "arguments": {...}}',
             '- to finish: {"answer": "<your final answer>"}',
             "Tools:"]
    for tool in tools:
        params = ", ".join(f"{k} ({v})" for k, v in tool.parameters.items()) or "no arguments"
        lines.append(f"- {tool.name}: {tool.description} Arguments: {params}.")
    return "\n".join(lines)


def parse_reply(text: str) -> ToolCall | str | None:
    """A tool call, the final answer (a string), or None when the reply follows no protocol.

    Malformed, deeply nested or huge JSON is never an exception: it is None."""
    if len(text) > MAX_REPLY_CHARS:
        text = text[:MAX_REPLY_CHARS]
    decoder = json.JSONDecoder()
    for start in [m.start() for m in re.finditer(r"\{", text)][:50]:
        try:
            obj, _ = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            continue
        if not isinstance(obj, dict):
            continue
        if "answer" in obj and not isinstance(obj["answer"], (dict, list)):
            return str(obj["answer"]).strip()
        name = obj.get("tool")
        if isinstance(name, str) and name:
            args = obj.get("arguments", {})
            return ToolCall(name=name, arguments=args if isinstance(args, dict) else {})
    found = _ANSWER_LINE.findall(text)
    return found[-1] if found else None


def run_tool_loop(
    model: ChatModel,
    *,
    system: str,
    user: str,
    tools: list[Tool],
    max_turns: int = 8,
    max_tokens: int = 512,
    temperature: float | None = None,
    seed: int | None = None,
    parse: Callable[[str], ToolCall | str | None] = parse_reply,
    cancel: threading.Event | None = None,
) -> ToolLoopResult:
    """Run the target until it answers or ``max_turns`` replies were spent.

    ``model`` is what an env's ``rollout`` receives. Provider errors propagate (the
    engine records them as missing data, never as a wrong answer)."""
    by_name = {tool.name: tool for tool in tools}
    messages = [Message(role="system", content=system), Message(role="user", content=user)]
    turns = [Turn(role="system", content=system), Turn(role="user", content=user)]
    usage, calls = Usage(), 0
    for _ in range(max_turns):
        if cancel is not None and cancel.is_set():
            break
        completion = model.complete(CompletionRequest(
            messages=tuple(messages), max_tokens=max_tokens, temperature=temperature, seed=seed, role="target", stage="rollout",
        ))
        usage = usage + completion.usage
        reply = completion.text
        messages.append(Message(role="assistant", content=reply))
        parsed = parse(reply)
        if isinstance(parsed, str):
            turns.append(Turn(role="assistant", content=reply))
            return ToolLoopResult(answer=parsed, turns=tuple(turns), usage=usage, ended="answered", tool_calls=calls)
        if parsed is None:
            turns.append(Turn(role="assistant", content=reply))
            if completion.finish_reason == "length":
                return ToolLoopResult(answer="", turns=tuple(turns), usage=usage, ended="cut_off", tool_calls=calls)
            nudge = 'Your reply followed no protocol. Reply with {"tool": ..., "arguments": {...}} or {"answer": ...}.'
            messages.append(Message(role="user", content=nudge))
            turns.append(Turn(role="user", kind=TurnKind.NOTE, content=nudge))
            continue
        calls += 1
        turns.append(Turn(role="assistant", kind=TurnKind.TOOL_CALL, name=parsed.name,
                          content=json.dumps({"tool": parsed.name, "arguments": parsed.arguments}, ensure_ascii=False)))
        tool = by_name.get(parsed.name)
        if tool is None:
            observation = f"error: no tool named {parsed.name!r}; tools: {', '.join(by_name)}"
        else:
            try:
                observation = str(tool.run(parsed.arguments))
            except Exception as exc:  # noqa: BLE001 - a tool failure is the model's feedback
                observation = f"error: {type(exc).__name__}: {exc}"
        if len(observation) > MAX_OBSERVATION_CHARS:
            observation = observation[:MAX_OBSERVATION_CHARS] + f"\n[... {len(observation) - MAX_OBSERVATION_CHARS} characters clipped]"
        messages.append(Message(role="user", content=f"[{parsed.name} result]\n{observation}"))
        turns.append(Turn(role="tool", kind=TurnKind.OBSERVATION, name=parsed.name, content=observation))
    return ToolLoopResult(answer="", turns=tuple(turns), usage=usage, ended="max_turns", tool_calls=calls)
