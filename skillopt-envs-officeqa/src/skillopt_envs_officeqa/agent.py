"""The target's side of an item: the multi-turn tool loop (``tools``) and one-call ``oracle``.

``tools``: up to ``max_tool_turns`` model calls. Each reply either calls tools (text
protocol, see :mod:`protocol`) whose results come back as the next user message, or ends
with ``<answer>``. A malformed call, a refused path or an unreadable file is a tool error
the agent reads and can recover from (upstream ends the item). The loop also stops at the
per-item deadline (``ctx.timeout_s``) and on ``ctx.cancel``. Every call and result is a
Turn of the Rollout.

``oracle`` (upstream's ``use_local_tools=false``): one call with the gold pages in the
prompt. ``tools`` can add the same pages with ``env.oracle_pages`` (upstream's default).
"""

from __future__ import annotations

import json
import time
from functools import cache
from importlib import resources

import attrs

from skillopt.api import CompletionRequest, ContextLengthError, Message, Rollout, Task, Turn, Usage
from skillopt_envs_officeqa import pages, protocol
from skillopt_envs_officeqa.docs import DocsIndex, ToolError
from skillopt_envs_officeqa.tools import run_tool

DEFAULT_MAX_TOKENS = 4096
#: a model call is not started when less than this remains before the item's deadline
DEADLINE_MARGIN_S = 1.0
NO_CALL = ("Your reply had neither a tool call nor a final answer. Call a tool, e.g. "
           '<tool>{"name": "glob", "args": {"pattern": "*.txt"}}</tool>, or reply with <answer>value</answer>.')  # fmt: skip


@cache
def template(name: str) -> str:
    return resources.files("skillopt_envs_officeqa").joinpath("prompts", name).read_text(encoding="utf-8").strip()


def system_prompt(skill: str, mode: str, max_tool_turns: int) -> str:
    base = template("rollout_system_oracle.md" if mode == "oracle" else "rollout_system.md")
    base = base.replace("{max_tool_turns}", str(max_tool_turns))
    return f"{base}\n\n## Skill\n{skill.strip() or '(empty)'}"


def user_prompt(task: Task, *, mode: str, oracle: str, restricted: bool) -> str:
    files = task.inputs.get("source_files") or []
    if mode == "oracle":
        documents = "Pages given for this question:\n\n" + (oracle or "(no page could be found)")
    else:
        listing = ", ".join(files) if files and restricted else "use glob to list them"
        documents = f"Documents you may open: {listing}"
        if oracle:
            documents += "\n\nPages given for this question:\n\n" + oracle
    return template("rollout_user.md").format(question=task.inputs["question"], documents=documents)


@attrs.define
class Loop:
    """The running conversation: what the model is sent and what the Rollout records."""

    messages: list[Message]
    turns: list[Turn]
    usage: Usage = Usage()
    calls: int = 0
    tool_calls: int = 0
    tool_errors: int = 0

    def ask(self, model, *, max_tokens: int, temperature: float | None, seed: int) -> str:
        request = CompletionRequest(messages=tuple(self.messages), max_tokens=max_tokens, temperature=temperature,
                                    seed=seed, role="target", stage="rollout")  # fmt: skip
        completion = model.complete(request)
        self.calls += 1
        self.usage = self.usage + completion.usage
        text = completion.text or ""
        self.messages.append(Message(role="assistant", content=text))
        self.turns.append(Turn(role="assistant", content=text))
        return text

    def tell(self, content: str) -> None:
        self.messages.append(Message(role="user", content=content))

    def note(self, content: str) -> None:
        self.turns.append(Turn(role="system", kind="note", content=content))


def run_call(loop: Loop, index: DocsIndex, allowed: tuple[str, ...], call: protocol.ToolCall) -> str:
    """Run one parsed call, record it, and return the ``<tool_result>`` block for the model."""
    name = call.name or "?"
    shown = json.dumps({"name": call.name, "args": call.args}, ensure_ascii=False) if not call.error else call.raw
    loop.turns.append(Turn(role="assistant", kind="tool_call", name=name, content=shown))
    loop.tool_calls += 1
    if call.error:
        result = f"ERROR: {call.error}"
    else:
        try:
            result = run_tool(index, allowed, call.name, call.args)
        except ToolError as exc:
            result = f"ERROR: {exc}"
    if result.startswith("ERROR:"):
        loop.tool_errors += 1
    loop.turns.append(Turn(role="tool", kind="observation", name=name, content=result))
    return f'<tool_result name="{name}">\n{result}\n</tool_result>'


def solve(env, task: Task, skill: str, model, ctx) -> Rollout:
    cfg = env.config
    started = time.monotonic()
    deadline = started + ctx.timeout_s
    index = env.docs_index()
    files = tuple(task.inputs.get("source_files") or ())
    allowed = files if cfg.restrict_to_source_files else ()
    oracle = ""
    if cfg.mode == "oracle" or cfg.oracle_pages:
        oracle = pages.oracle_context(index, files, tuple(task.inputs.get("source_docs") or ()),
                                      page_chars=cfg.oracle_page_chars, total_chars=cfg.oracle_total_chars)  # fmt: skip
    budget = 1 if cfg.mode == "oracle" else cfg.max_tool_turns
    system = system_prompt(skill, cfg.mode, budget)
    user = user_prompt(task, mode=cfg.mode, oracle=oracle, restricted=bool(allowed))
    loop = Loop(messages=[Message(role="system", content=system), Message(role="user", content=user)],
                turns=[Turn(role="system", content=system), Turn(role="user", content=user)])  # fmt: skip
    max_tokens = cfg.max_completion_tokens or DEFAULT_MAX_TOKENS
    answer: str | None = None
    ended = "budget"
    for number in range(1, budget + 1):
        if ctx.cancel is not None and ctx.cancel.is_set():
            ended = "cancelled"
            break
        if number > 1 and time.monotonic() > deadline - DEADLINE_MARGIN_S:
            ended = "deadline"
            break
        try:
            reply = loop.ask(model, max_tokens=max_tokens, temperature=cfg.temperature, seed=ctx.seed + number - 1)
        except ContextLengthError:
            if number == 1:
                raise
            ended = "context"
            break
        if cfg.mode == "oracle":
            answer = protocol.extract_answer(reply)
            ended = "answer" if answer is not None else "no-answer"
            break
        parsed = protocol.parse_reply(reply)
        if parsed.answer is not None:
            answer, ended = parsed.answer, "answer"
            break
        if number == budget:
            break
        if not parsed.calls:
            loop.note("no tool call and no <answer>; the agent was reminded of the protocol")
            loop.tell(NO_CALL)
            continue
        results = [run_call(loop, index, allowed, call) for call in parsed.calls]
        if parsed.dropped_calls:
            results.append(f"(only the first {protocol.MAX_CALLS_PER_REPLY} tool calls of a reply run; {parsed.dropped_calls} skipped)")
        left = budget - number
        results.append(f"({left} model turn{'s' if left != 1 else ''} left; answer with <answer>value</answer> when you know it.)")
        loop.tell("\n\n".join(results))
    score = env.score(task, answer or "")
    score = attrs.evolve(score, feedback=f"{score.feedback} {ending_note(ended, budget, cfg.mode)}".strip(),
                         metrics={**score.metrics, "model_calls": float(loop.calls), "tool_calls": float(loop.tool_calls),
                                  "tool_errors": float(loop.tool_errors), "answered": float(answer is not None)})  # fmt: skip
    loop.turns.append(Turn(role="system", kind="evaluation", content=f"[EVALUATION RESULT] ended: {ended}. {score.feedback}"))
    return Rollout(
        task_id=task.id, task_type=task.task_type, turns=tuple(loop.turns), prediction=answer or "", score=score,
        usage=loop.usage, duration_s=time.monotonic() - started,
    )


def ending_note(ended: str, budget: int, mode: str) -> str:
    if ended == "budget" and mode != "oracle":
        return f"The tool budget of {budget} model turns ran out before a final <answer>; the item scores 0."
    if ended == "no-answer":
        return "The reply had no <answer></answer> tag, so no answer was read."
    if ended == "deadline":
        return "Stopped at the per-item time limit before a final <answer>."
    if ended == "cancelled":
        return "Stopped: the run was cancelled."
    if ended == "context":
        return "Stopped: the conversation no longer fit the model's context window."
    return ""
