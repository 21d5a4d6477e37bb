"""The LLM miner: one optimizer call per session, asking for checkable tasks.

The model sees the session's (already redacted) prompts, commands with their exit
status, and the final reply, and returns up to three tasks with deterministic checks
and/or a one-sentence rubric. Checks are validated like a hand-written tasks file
(unknown ops and broken regexes are dropped and reported; tool names sanitised).
A task keeps both its checks and its rubric (the prompt asks for both): an answer
then passes only when the checks pass *and* the judge accepts it, so a literal check
alone cannot be reward-hacked (upstream let the rubric replace the checks, and this
miner used to discard every check whenever a rubric came with them). Tasks with
neither are dropped. Tasks inherit their
session's split, so the LLM path leaks no more than the heuristic one.
"""

from __future__ import annotations

from skillopt.api import BudgetExceeded, Cancelled, CompletionRequest, Message, Session, SkillOptError
from skillopt_sleep.mine.generic import generic_passes
from skillopt_sleep.mine.memory import ProjectMemory, contradicts
from skillopt_sleep.mine.tasks import Lesson, SleepTask, task_id
from skillopt_sleep.redaction import clip
from skillopt_sleep.replay.judging import validate_checks
from skillopt_sleep.sentinel import mark

MINER_SCHEMA = {
    "type": "object",
    "properties": {
        "tasks": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "intent": {"type": "string"},
                    "checks": {"type": "array", "items": {"type": "object"}},
                    "rubric": {"type": "string"},
                    "lesson": {"type": "string"},
                },
                "required": ["intent"],
            },
        }
    },
    "required": ["tasks"],
}


def miner_request(session: Session) -> CompletionRequest:
    lines = []
    for turn in session.turns:
        if turn.role == "user" and turn.kind == "message":
            lines.append(f"USER: {clip(turn.content, 240)}")
        elif turn.kind == "tool_call" and turn.content:
            lines.append(f"RAN: {clip(turn.content, 160)}")
        elif turn.kind == "tool_result":
            lines.append(f"RESULT: {clip(turn.content, 80)}")
        elif turn.kind == "feedback":
            lines.append(f"UI SIGNAL: {turn.content}")
        if len(lines) >= 40:
            break
    finals = [t.content for t in session.turns if t.role == "assistant" and t.kind == "message"]
    if finals:
        lines.append(f"FINAL REPLY: {clip(finals[-1], 400)}")
    system = mark(
        "You turn a developer's coding-agent session into at most 3 replayable tasks that test whether an agent "
        "follows this developer's conventions. Each task: a general `intent` (no secrets, no one-off details), "
        "`checks` (ops: contains, not_contains, regex, not_regex, max_chars, min_chars, no_refusal, tool_called; "
        "each {op, value}) and a one-sentence `rubric`, plus the `lesson` the developer taught, if any. "
        "Only propose tasks grounded in evidence: corrections, failing then passing commands, reverts."
    )
    return CompletionRequest(
        messages=(Message(role="system", content=system), Message(role="user", content="\n".join(lines))),
        max_tokens=800,
        json_schema=MINER_SCHEMA,
        role="optimizer",
        stage="sleep-mine",
        temperature=0.0,
    )


def mine_session(client, session: Session, split: str, memory: ProjectMemory | None = None) -> tuple[list[SleepTask], list[str]]:
    """Tasks and notes; a spent budget and a prompt waiting for a handoff answer propagate.
    The model's checks pass the same screens as mined ones: none contradicting the
    project's memory files, and a task some generic answer passes is dropped."""
    memory = memory or ProjectMemory()
    from skillopt_sleep.replay.handoff import HandoffPending

    try:
        completion = client.complete(miner_request(session))
    except (BudgetExceeded, Cancelled, HandoffPending):
        raise
    except SkillOptError as exc:
        return [], [clip(f"miner failed on {session.id}: {type(exc).__name__}: {exc}", 300)]
    tasks, notes = [], []
    for item in (completion.parsed or {}).get("tasks", [])[:3]:
        intent = clip(str(item.get("intent") or ""), 800)
        if len(intent) < 8:
            continue
        checks, problems = validate_checks(item.get("checks") or [])
        notes.extend(problems)
        rubric = clip(str(item.get("rubric") or ""), 400)
        checks = [c for c in checks if not contradicts(c, memory)]
        if checks and generic_passes(checks, ()):
            if not rubric:
                notes.append(f"dropped a mined task from {session.id} that a generic answer passes")
                continue
            notes.append(f"dropped the checks of a mined task from {session.id} that a generic answer passes; its rubric stays")
            checks = []
        if not (checks or rubric):
            notes.append(f"dropped an uncheckable mined task from {session.id}")
            continue
        lesson_text = clip(str(item.get("lesson") or ""), 400)
        lessons = (Lesson(text=lesson_text, kind="llm", evidence=(f"mined from {session.id}",)),) if lesson_text else ()
        tasks.append(
            SleepTask(
                id=task_id("llm", session.id, intent),
                intent=intent,
                checks=tuple(checks),
                rubric=rubric,
                sessions=(session.id,),
                sources=(session.source,),
                lessons=lessons,
                split=split,
                origin="llm",
            )
        )
    return tasks, notes
