"""Proposing bounded edits from tonight's failures.

Two reflectors, usable together. The *heuristic* one needs no model: every failing
train task carries lessons mined from its own sessions (a correction, a command that
failed and then passed, a late adjustment an edit shows), ranked by how many failing
tasks and sessions support them, each written as a general rule with its evidence
(:mod:`.rules`) or not proposed at all. The *LLM* one shows the optimizer the failures and
the evidence and asks for at most ``budget`` add/replace/delete edits to the learned
block, as schema-checked JSON. Either way the gate, not the reflector, decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import zip_longest

from skillopt.api import BudgetExceeded, Cancelled, CompletionRequest, Edit, Message, SkillOptError, normalise_skill
from skillopt_sleep import prompts
from skillopt_sleep.documents import LEARNED_END, LEARNED_START, Doc, DocEdit
from skillopt_sleep.learn.rules import rule_for
from skillopt_sleep.mine.tasks import Lesson, SleepTask
from skillopt_sleep.redaction import clip
from skillopt_sleep.replay import ReplayResult
from skillopt_sleep.sentinel import mark

MAX_RULE_CHARS = 400

EDITS_SCHEMA = {
    "type": "object",
    "properties": {
        "edits": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "doc": {"type": "string", "enum": ["skill", "memory"]},
                    "op": {"type": "string", "enum": ["append", "replace", "delete"]},
                    "target": {"type": "string"},
                    "content": {"type": "string"},
                    "why": {"type": "string"},
                },
                "required": ["doc", "op", "content"],
            },
        }
    },
    "required": ["edits"],
}


def _known(docs: Sequence[Doc]) -> str:
    return normalise_skill("\n".join(d.rules() for d in docs))


#: a lesson becomes a rule only when this many sessions teach it — a one-off correction
#: ("use `orjson` here") is about that one piece of work, not a convention — or when
#: the attempt it replaced failed when it ran (``alembic: command not found``): then
#: the project itself, not one mood of the developer, rejected it
MIN_SUPPORT = 2


def _general(lesson: Lesson, sessions: set[str]) -> bool:
    """Repeated (in tonight's train sessions, or in its job's sessions outside the test
    split) or forced by a failed command."""
    return max(len(sessions), lesson.support, lesson.seen) >= MIN_SUPPORT or lesson.failed


def _ranked(tasks: Sequence[SleepTask], train: ReplayResult) -> list[tuple[Lesson, set[str], set[str], str]]:
    """(strongest lesson, failing tasks, sessions, a request it came from) per lesson key,
    for tonight's failing train tasks; sessions are pooled across tasks, so a correction
    repeated in two jobs' sessions counts twice."""
    failing = set(train.failing())
    ranked: dict[str, tuple[Lesson, set[str], set[str], str]] = {}
    for task in tasks:
        if task.id not in failing:
            continue
        for lesson in task.lessons:
            entry = ranked.setdefault(lesson.key, (lesson, set(), set(), task.intent))
            entry[1].add(task.parent or task.id)  # a dream variant is not more evidence
            entry[2].update(lesson.sessions or task.sessions[: lesson.support])
            if (lesson.support, lesson.strength) > (entry[0].support, entry[0].strength):
                ranked[lesson.key] = (lesson, entry[1], entry[2], task.intent)
    return sorted(ranked.values(), key=lambda e: (-len(e[1]), -len(e[2]), e[0].kind != "correction", e[0].text))


def one_offs(tasks: Sequence[SleepTask], train: ReplayResult) -> list[Lesson]:
    """Lessons of failing train tasks that only one session teaches: left alone."""
    return [lesson for lesson, _t, sessions, _r in _ranked(tasks, train) if not _general(lesson, sessions)]


def heuristic_edits(tasks: Sequence[SleepTask], train: ReplayResult, docs: Sequence[Doc], budget: int) -> list[DocEdit]:
    """Rules for the lessons of tonight's failing train tasks that at least
    :data:`MIN_SUPPORT` sessions teach (or a failed command forced), those supported by the most failing tasks and
    sessions first; a lesson that supports no general rule
    (:func:`~skillopt_sleep.learn.rules.rule_for`) proposes nothing, and a one-off is left alone."""
    known = _known(docs)
    out: list[DocEdit] = []
    for lesson, task_ids, sessions, request in _ranked(tasks, train):
        support = max(len(sessions), lesson.support, lesson.seen)
        if not _general(lesson, sessions):
            continue
        rule = rule_for(lesson, request)
        if rule is None:
            continue
        content = "- " + clip(rule, MAX_RULE_CHARS)
        if normalise_skill(content.lstrip("- ")) in known:
            continue
        why = f"{len(task_ids)} failing task(s), {support} session(s): " + "; ".join(lesson.evidence[:2])
        out.append(
            DocEdit(
                doc="skill",
                edit=Edit(op="append", content=content, rationale=clip(why, 300), support_count=support),
                origin="heuristic",
                lesson=lesson.key,
                evidence=tuple(clip(line, 300) for line in lesson.evidence),
            )
        )
        if len(out) >= budget:
            break
    return out


def reflect_request(
    tasks: Sequence[SleepTask], train: ReplayResult, docs: Sequence[Doc], budget: int, project_name: str,
    preferences: str = "",
) -> CompletionRequest | None:
    by_id = {t.id: t for t in tasks}
    blocks = []
    shown: set[str] = set()

    def dreamed_last(item: tuple[str, list]) -> tuple[bool, str]:
        return (bool(by_id[item[0]].parent) if item[0] in by_id else False, item[0])

    # real tasks first: a dream variant only speaks for a family no real failure showed
    for tid, attempts in sorted(train.by_task().items(), key=dreamed_last):
        bad = [a for a in attempts if a.status == "ok" and a.hard < 1.0]
        if not bad or tid not in by_id:
            continue
        task = by_id[tid]
        if (task.parent or task.id) in shown:
            continue
        shown.add(task.parent or task.id)
        evidence = "; ".join(e for lesson in task.lessons for e in lesson.evidence[:1])
        blocks.append(
            f"### Request\n{clip(task.intent, 300)}\n- what was missing: {clip(bad[0].feedback, 200)}\n"
            f"- answer excerpt: {clip(bad[0].answer, 300)}\n- developer evidence: {clip(evidence, 300) or '(none)'}"
        )
        if len(blocks) >= 8:
            break
    if not blocks:
        return None
    user = prompts.render(
        "reflect_user",
        project=project_name,
        rules=rules_text(docs),
        failures="\n\n".join(blocks),
        preferences=prompts.preferences_text(preferences),
    )
    return edits_request(prompts.render("reflect_system"), user, budget, stage="sleep-reflect")


def rules_text(docs: Sequence[Doc]) -> str:
    return "\n".join(f"[{d.role}]\n{d.rules() or '(no learned rules yet)'}" for d in docs)


def edits_request(system: str, user: str, budget: int, *, stage: str) -> CompletionRequest:
    """The optimizer call every reflector makes: sentinel-marked, schema-checked edits."""
    user += (
        f'\n\nReply with JSON {{"edits": [...]}} holding at most {budget} edits. op is append, replace or delete; '
        "replace and delete need `target`, an exact existing rule line. "
        "doc is skill (procedures) or memory (always-on conventions)."
    )
    return CompletionRequest(
        messages=(Message(role="system", content=mark(system)), Message(role="user", content=user)),
        max_tokens=900,
        json_schema=EDITS_SCHEMA,
        role="optimizer",
        stage=stage,
        temperature=0.2,
    )


def llm_edits(
    client, tasks, train: ReplayResult, docs, budget: int, project_name: str, preferences: str = ""
) -> tuple[list[DocEdit], str]:
    """Edits from the optimizer, and a note when it could not give any."""
    request = reflect_request(tasks, train, docs, budget, project_name, preferences)
    if request is None:
        return [], ""
    return ask_edits(client, request, budget)


def ask_edits(client, request: CompletionRequest, budget: int, *, origin: str = "llm") -> tuple[list[DocEdit], str]:
    """Send an edits request; parse and sanitise the reply (a failed call is a note). A
    prompt waiting for a handoff answer propagates, so the night pauses for it like any
    other handoff round instead of going on without the reflection."""
    from skillopt_sleep.replay.handoff import HandoffPending

    try:
        completion = client.complete(request)
    except (BudgetExceeded, Cancelled, HandoffPending):
        raise
    except SkillOptError as exc:
        return [], clip(f"reflection failed: {type(exc).__name__}: {exc}", 300)
    out: list[DocEdit] = []
    for item in (completion.parsed or {}).get("edits", [])[:budget]:
        content = clip(str(item.get("content") or ""), MAX_RULE_CHARS)
        if LEARNED_START in content or LEARNED_END in content:
            continue
        op = {"append": "append", "replace": "replace", "delete": "delete"}.get(item.get("op"), "")
        if not op or (op != "delete" and not content.strip()):
            continue
        if op == "append" and not content.lstrip().startswith("- "):
            content = "- " + content.strip()
        out.append(
            DocEdit(
                doc="memory" if item.get("doc") == "memory" else "skill",
                edit=Edit(
                    op=op,
                    target=clip(str(item.get("target") or ""), MAX_RULE_CHARS),
                    content=content,
                    rationale=clip(str(item.get("why") or ""), 300),
                    source_type="failure",
                ),
                origin=origin,
            )
        )
    return out, ""


def merge(heuristic: list[DocEdit], llm: list[DocEdit], budget: int) -> list[DocEdit]:
    """Interleave the two reflectors (evidence first) so each gets a say within the budget."""
    seen: set[str] = set()
    merged: list[DocEdit] = []
    for pair in zip_longest(heuristic, llm):
        for e in pair:
            if e is None:
                continue
            key = normalise_skill(e.edit.content) or f"{e.edit.op}:{normalise_skill(e.edit.target)}"
            if key in seen:
                continue
            seen.add(key)
            merged.append(e)
    return merged[:budget]
