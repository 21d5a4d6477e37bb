"""One session read as evidence: its intents, and for each, what the developer
corrected, which commands failed then passed, and how it ended.

An intent owns the events up to the next intent. Messages that are corrections,
late adjustments ("actually, put it under the version heading"), declines or
reactions are evidence for the intent before them, never intents of their own
(:func:`~skillopt_sleep.mine.feedback.reply_kind`).
"""

from __future__ import annotations

import re

import attrs
from skillopt.api import Session

from skillopt_sleep.mine import commands as cmd
from skillopt_sleep.harvest.fields import is_edit_tool
from skillopt_sleep.mine.corrections import find_correction, rule_sentence
from skillopt_sleep.mine.edits import edit_check
from skillopt_sleep.mine.feedback import polarity, reply_kind
from skillopt_sleep.mine.tasks import Check, Lesson

MIN_INTENT_CHARS = 12
_META = re.compile(r"^\s*(<[^>]+>.*</[^>]+>\s*$|\[Pasted text|Caveat:|# /|/\S+(\s+\S+){0,2}\s*$)", re.DOTALL)
_COMMAND_TAGS = re.compile(r"<command-(message|name|args)>")


def is_meta_prompt(text: str) -> bool:
    return not text.strip() or bool(_META.match(text)) or bool(_COMMAND_TAGS.search(text))


@attrs.frozen(kw_only=True)
class IntentEvidence:
    session_id: str
    source: str
    text: str
    categories: tuple[str, ...] = ()
    lessons: tuple[Lesson, ...] = ()
    checks: tuple[Check, ...] = ()
    weak_checks: tuple[Check, ...] = ()
    outcome: str = "unknown"
    files: tuple[str, ...] = ()
    #: what the developer rejected: failed commands, and commands and edits before their correction
    rejected: tuple[str, ...] = ()
    #: what they accepted: passing commands and edits after the last correction
    accepted: tuple[str, ...] = ()


def _checks_for(prefer: tuple[str, ...], avoid: tuple[str, ...], why: str) -> list[Check]:
    out = []
    for token in prefer:
        op, value = cmd.pattern_of(token) if " " in token or re.search(r"\d", token) else ("contains", token)
        out.append(Check(op=op, value=value, why=why))
    for token in avoid:
        if any(token.lower() in p.lower() for p in prefer):
            continue
        op, value = cmd.pattern_of(token)
        out.append(Check(op="not_regex" if op == "regex" else "not_contains", value=value, why=why))
    return out


def _outcome(corrected: bool, last_polarity: int, last_test: bool | None, revert: bool, feedback_error: bool) -> str:
    if revert or last_polarity < 0 or last_test is False:
        return "fail"
    if corrected:
        return "corrected"
    if last_polarity > 0 or last_test is True:
        return "success"
    return "fail" if feedback_error else "unknown"


def digest(session: Session) -> list[IntentEvidence]:
    """The intents of one session with the evidence each one collected."""
    runs = cmd.runs(session)
    turns = session.turns
    starts: list[int] = []
    for i, turn in enumerate(turns):
        if turn.role != "user" or turn.kind != "message" or is_meta_prompt(turn.content):
            continue
        text = turn.content
        if not starts:
            if len(text) >= MIN_INTENT_CHARS:
                starts.append(i)
            continue
        if reply_kind(text, is_correction=find_correction(text) is not None) == "new_request":
            starts.append(i)
    out = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(turns)
        out.append(_intent(session, turns, start, end, [r for r in runs if start < r.index < end]))
    return out


def _edits(turns, start: int, end: int) -> list[tuple[int, str]]:
    return [(i, turns[i].content) for i in range(start + 1, end) if turns[i].kind == "tool_call" and is_edit_tool(turns[i].name)]


def _intent(session: Session, turns, start: int, end: int, span_runs: list) -> IntentEvidence:
    lessons: list[Lesson] = []
    checks: list[Check] = []
    last_polarity, corrected, feedback_error = 0, False, False
    edits = _edits(turns, start, end)
    fixes_at: list[int] = []
    for i in range(start + 1, end):
        turn = turns[i]
        if turn.kind == "feedback":
            last_polarity = {"up": 1, "down": -1}.get(turn.content, last_polarity)
            feedback_error = feedback_error or turn.content == "error"
            continue
        if turn.role != "user" or turn.kind != "message":
            continue
        correction = find_correction(turn.content)
        kind = reply_kind(turn.content, is_correction=correction is not None)
        if kind == "adjustment":
            corrected = True
            fixes_at.append(i)
            found = edit_check(turn.content, [e for j, e in edits if j < i], [e for j, e in edits if j > i])
            lessons.append(
                Lesson(
                    text=rule_sentence(turn.content),
                    kind="adjustment",
                    example=found[1] if found else "",
                    where=found[2] if found else "",
                    evidence=(f"developer: {turn.content[:200]}",),
                )
            )
            checks += [found[0]] if found else []
            last_polarity = 0
        elif correction is not None:
            corrected = True
            fixes_at.append(i)
            prefer, avoid = correction.prefer, correction.avoid
            if not prefer:
                prefer, avoid = _from_commands(span_runs, i, avoid)
            lessons.append(
                Lesson(
                    text=correction.rule,
                    kind="correction",
                    prefer=prefer,
                    avoid=avoid,
                    evidence=(f"developer: {turn.content[:200]}",),
                )
            )
            checks.extend(_checks_for(prefer, avoid, "developer correction"))
            last_polarity = 0
        else:
            p = polarity(turn.content)
            last_polarity = p if p else last_polarity
    for fix in cmd.fixes(span_runs):
        if any(fix.fixed in (lesson.prefer or ()) for lesson in lessons):
            continue
        text = f"For {fix.category}, run `{fix.fixed}`; `{fix.failed}` fails in this project."
        lessons.append(Lesson(text=text, kind="command-fix", prefer=(fix.fixed,), avoid=(fix.failed,), evidence=(fix.evidence,)))
        checks.extend(_checks_for((fix.fixed,), (fix.failed,), "failed-then-passed command"))
    tests = [r for r in span_runs if r.category == "test" and r.ok is not None]
    last_test = tests[-1].ok if tests else None
    weak = []
    for category in ("test", "lint", "format", "migrate", "build"):
        ok_runs = [r for r in span_runs if r.category == category and r.ok and " " in r.signature]
        if ok_runs:
            op, value = cmd.pattern_of(ok_runs[-1].signature)
            weak.append(Check(op=op, value=value, why=f"command that worked for {category}"))
    revert = any(cmd.REVERT.search(r.command) for r in span_runs) or any(
        turns[i].role == "user"
        and turns[i].kind == "message"
        and re.search(r"(?i)\b(revert|undo) (that|this|it)\b", turns[i].content)
        for i in range(start + 1, end)
    )
    fix_at = fixes_at[-1] if fixes_at else None
    rejected = [r.command for r in span_runs if r.ok is False or (fix_at is not None and r.index < fix_at)]
    rejected += [e for j, e in edits if fix_at is not None and j < fix_at]
    accepted = [r.command for r in span_runs if r.ok and (fix_at is None or r.index > fix_at)]
    accepted += [e for j, e in edits if fix_at is None or j > fix_at]
    return IntentEvidence(
        session_id=session.id,
        source=session.source,
        text=turns[start].content,
        categories=tuple(dict.fromkeys(r.category for r in span_runs)),
        lessons=tuple(lessons),
        checks=tuple(dict.fromkeys(checks)),
        weak_checks=tuple(weak),
        outcome=_outcome(corrected, last_polarity, last_test, revert, feedback_error),
        files=session.files_touched[:10],
        rejected=tuple(dict.fromkeys(rejected)),
        accepted=tuple(dict.fromkeys(accepted)),
    )


def _from_commands(span_runs: list, at: int, avoid: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A correction that names no tool ("tags are always prefixed with v") borrows the
    commands around it: what ran just before it is avoided, what passed after is preferred."""
    before = [r for r in span_runs if r.index < at]
    if not before:
        return (), avoid
    category = before[-1].category
    after = [r for r in span_runs if r.index > at and r.category == category and r.ok]
    if not after or not after[0].signature or after[0].signature == before[-1].signature:
        return (), avoid
    fixed = cmd.preferred_form(after[0].signature, before[-1].signature)
    failed = cmd.avoided_form(before[-1], fixed, after[0].signature)
    return (fixed,), avoid or ((failed,) if failed else ())
