"""One session read as evidence: its intents, and for each, what the developer said
and what was done — the attempt they rejected, the one they kept, and how it ended.

An intent owns the events up to the next intent. Messages that are corrections,
late adjustments ("actually, put it under the version heading"), declines or
reactions are evidence for the intent before them, never intents of their own
(:func:`~skillopt_sleep.mine.feedback.reply_kind`); a polite request for more work and
a request opened by "now"/"jetzt"/"ensuite"/"ahora" start a new intent.

Checks come first from what was done: each difference between a rejected step and the
step kept instead (:func:`~skillopt_sleep.mine.attempts.differences`) — another tool,
added options, another import, another directory, a heading — is a check the kept
attempt passes and the rejected one fails. The developer's words add checks for what
they name when the kept attempt bears it out, or when no step was recorded at all (a
store that keeps words only), and give a difference its wording ("use
`datetime.now(timezone.utc)`" names what the kept edit's new import is for).
"""

from __future__ import annotations

import re

import attrs

from skillopt.api import Session
from skillopt_sleep.mine import commands as cmd
from skillopt_sleep.mine.attempts import Difference, Step, differences, file_kind, steps, vocabulary
from skillopt_sleep.mine.corrections import Correction, find_correction, rule_sentence
from skillopt_sleep.mine.edits import edit_check, shape
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
    #: what was done, for grouping intents by it: ``cat:test``, ``prog:cargo``, ``kind:test_*.py``, ``dir:tests/unit``, ``diff:…``
    actions: tuple[str, ...] = ()


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


def check_of(diff: Difference) -> list[Check]:
    """The checks a difference between the rejected and the kept attempt makes."""
    why = "what the kept attempt did instead"
    if diff.kind == "heading":
        return [Check(op="regex", value=shape(diff.prefer), why=why)]
    if diff.kind == "flag":
        core = cmd.core(diff.avoid) or diff.avoid
        tokens = diff.prefer.split()
        head = len(core.split()) if diff.prefer.startswith(core) else len(tokens) - 1
        parts = [re.sub(r"\d+", r"\\d+", re.escape(t)) for t in tokens]
        value = r"\s+".join(parts[:head]) + r"\b[^\n`]*?\s" + r"\s+".join(parts[head:])
        return [Check(op="regex", value=value, why=why)]
    if diff.kind == "place":
        return [Check(op="contains", value=diff.prefer, why=why)]
    return _checks_for((diff.prefer,), (diff.avoid,) if diff.avoid else (), why)


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
    turns = session.turns
    done = steps(session, -1, len(turns))
    vocab = vocabulary(done)
    starts: list[int] = []
    for i, turn in enumerate(turns):
        if turn.role != "user" or turn.kind != "message" or is_meta_prompt(turn.content):
            continue
        text = turn.content
        if not starts:
            if len(text) >= MIN_INTENT_CHARS:
                starts.append(i)
            continue
        if reply_kind(text, is_correction=find_correction(text, vocab) is not None) == "new_request":
            starts.append(i)
    out = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(turns)
        out.append(_intent(session, start, end, [s for s in done if start < s.index < end], vocab))
    return out


def _text(step: Step) -> str:
    return step.segment if step.kind == "shell" else f"{step.path}\n{step.text}"


def _grounded(token: str, kept: str, rejected: str) -> bool:
    low = token.lower()
    return low in kept.lower() and low not in rejected.lower()


def _worded(value: str, said: list[str], kept: str, rejected: str, *, avoided: bool = False) -> str:
    """The developer's name for what a difference found, when one contains the other and
    the steps bear it out (``datetime.now(timezone.utc)`` for the new import ``timezone``)."""
    low = value.lower()
    for token in said:
        t = token.lower()
        related = low in t or (t in low and 2 * len(t) >= len(low))
        if related and (_grounded(token, rejected, kept) if avoided else _grounded(token, kept, rejected)):
            return token
    return value


@attrs.define
class _Reading:
    """What the replies in one intent's span said."""

    corrections: list[tuple[int, Correction]] = attrs.field(factory=list)
    adjustments: list[tuple[int, str]] = attrs.field(factory=list)
    last_polarity: int = 0
    feedback_error: bool = False
    revert: bool = False

    @property
    def fix_at(self) -> int | None:
        marks = [i for i, _ in self.corrections] + [i for i, _ in self.adjustments]
        return max(marks) if marks else None


def _read(turns, start: int, end: int, vocab) -> _Reading:
    r = _Reading()
    for i in range(start + 1, end):
        turn = turns[i]
        if turn.kind == "feedback":
            r.last_polarity = {"up": 1, "down": -1}.get(turn.content, r.last_polarity)
            r.feedback_error = r.feedback_error or turn.content == "error"
            continue
        if turn.role != "user" or turn.kind != "message":
            continue
        r.revert = r.revert or re.search(r"(?i)\b(revert|undo) (that|this|it)\b", turn.content) is not None
        correction = find_correction(turn.content, vocab)
        kind = reply_kind(turn.content, is_correction=correction is not None)
        if correction is not None and (correction.prefer or correction.avoid or kind == "correction"):
            r.corrections.append((i, correction))
            r.last_polarity = 0
        elif kind == "adjustment":
            r.adjustments.append((i, turn.content))
            r.last_polarity = 0
        else:
            p = polarity(turn.content)
            r.last_polarity = p if p else r.last_polarity
    return r


def _intent(session: Session, start: int, end: int, span: list[Step], vocab) -> IntentEvidence:
    turns = session.turns
    reading = _read(turns, start, end, vocab)
    fix_at = reading.fix_at
    rejected_steps = [s for s in span if s.ok is False or (fix_at is not None and s.index < fix_at)]
    kept_steps = [s for s in span if s.ok is not False and (fix_at is None or s.index > fix_at)]
    if fix_at is None:  # no words: what failed was rejected, what passed after it kept
        kept_steps = [s for s in kept_steps if s.kind == "edit" or s.ok]
    # the same command failing and then passing is code being fixed, not the command rejected
    kept_segments = {s.segment for s in kept_steps if s.kind == "shell"}
    rejected_steps = [s for s in rejected_steps if not (s.kind == "shell" and s.segment in kept_segments)]
    rejected_text = "\n".join(_text(s) for s in rejected_steps)
    kept_text = "\n".join(_text(s) for s in kept_steps)
    diffs = differences(rejected_steps, kept_steps)
    said_prefer = [t for _, c in reading.corrections for t in c.prefer]
    said_avoid = [t for _, c in reading.corrections for t in c.avoid]
    evidence = tuple(f"developer: {turns[i].content[:200]}" for i, _ in reading.corrections) + tuple(
        f"developer: {text[:200]}" for _, text in reading.adjustments
    )
    lessons: list[Lesson] = []
    checks: list[Check] = []
    failed = any(s.kind == "shell" and s.ok is False for s in rejected_steps)
    for d in diffs:
        prefer = _worded(d.prefer, said_prefer, kept_text, rejected_text) if d.kind in ("api", "command") else d.prefer
        avoid = _worded(d.avoid, said_avoid, kept_text, rejected_text, avoided=True) if d.avoid else ""
        d = attrs.evolve(d, prefer=prefer, avoid=avoid)
        checks += check_of(d)
        text = rule_sentence(turns[reading.fix_at].content) if reading.fix_at is not None else d.evidence
        lessons.append(
            Lesson(text=text, kind=d.kind, prefer=(d.prefer,), avoid=(d.avoid,) if d.avoid else (), where=d.where,
                   scope=d.category, failed=failed and d.kind in ("command", "flag"), example=" ".join(d.prefer.split()[:2]) if d.kind == "heading" else "",
                   evidence=(*evidence[-2:], d.evidence))
        )  # fmt: skip
    shown = {p.lower() for lesson in lessons for p in lesson.prefer}
    for i, c in reading.corrections:  # what the words name that no difference already shows
        # what the words name counts unless the steps contradict it (the rejected attempt had it, the kept one not)
        prefer = tuple(t for t in c.prefer if t.lower() not in shown and not _grounded(t, rejected_text, kept_text))
        avoid = tuple(t for t in c.avoid if t.lower() not in kept_text.lower())  # never forbid what was kept
        if not prefer and not c.prefer and not avoid:
            prefer, avoid = _from_commands(span, i, avoid)
        checks += _checks_for(prefer, avoid, "developer correction")
        if prefer or (avoid and not diffs):  # an avoided name a difference already shows is in its lesson
            lessons.append(Lesson(text=c.rule, kind="correction", prefer=prefer, avoid=avoid, failed=failed,
                                  evidence=(f"developer: {c.text[:200]}",)))  # fmt: skip
    for i, text in reading.adjustments:
        if any(lesson.kind == "heading" for lesson in lessons):
            continue
        found = edit_check(text, [_text(s) for s in span if s.kind == "edit" and s.index < i],
                           [_text(s) for s in span if s.kind == "edit" and s.index > i])  # fmt: skip
        checks += [found[0]] if found else []
        lessons.append(Lesson(text=rule_sentence(text), kind="adjustment", example=found[1] if found else "",
                              where=found[2] if found else "", evidence=(f"developer: {text[:200]}",)))  # fmt: skip
    tests = [s for s in span if s.category == "test" and s.ok is not None]
    weak = []
    for category in ("test", "lint", "format", "migrate", "build", "install"):
        ok_runs = [s for s in kept_steps if s.category == category and s.ok and " " in cmd.signature(s.segment)]
        if ok_runs:
            op, value = cmd.pattern_of(cmd.signature(ok_runs[-1].segment))
            weak.append(Check(op=op, value=value, why=f"command that worked for {category}"))
    revert = reading.revert or any(s.kind == "shell" and cmd.REVERT.search(s.text) for s in span)
    return IntentEvidence(
        session_id=session.id,
        source=session.source,
        text=turns[start].content,
        categories=tuple(dict.fromkeys(s.category for s in span if s.category)),
        lessons=tuple(lessons),
        checks=tuple(dict.fromkeys(checks)),
        weak_checks=tuple(weak),
        outcome=_outcome(fix_at is not None, reading.last_polarity, tests[-1].ok if tests else None, revert, reading.feedback_error),
        files=tuple(dict.fromkeys(s.path for s in span if s.kind == "edit"))[:10] or session.files_touched[:10],
        rejected=tuple(dict.fromkeys(_text(s) for s in rejected_steps)),
        accepted=tuple(dict.fromkeys(_text(s) for s in kept_steps)),
        actions=_actions(span, diffs),
    )


def _actions(span: list[Step], diffs: list[Difference]) -> tuple[str, ...]:
    out: list[str] = []
    for s in span:
        if s.kind == "shell":
            out += [f"cat:{s.category}"] if s.category else [f"prog:{(s.program or '-').split()[0]}"]
        else:
            out += [f"kind:{file_kind(s.path)}", f"dir:{s.path.rsplit('/', 1)[0] if '/' in s.path else '.'}"]
    out += [f"diff:{d.kind}:{d.prefer.lower()}" for d in diffs]
    return tuple(dict.fromkeys(out))


def _from_commands(span: list[Step], at: int, avoid: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A correction that names no tool ("tags are always prefixed with v") borrows the
    commands around it: what ran just before it is avoided, what passed after is preferred."""
    before = [s for s in span if s.kind == "shell" and s.index < at]
    if not before:
        return (), avoid
    category = before[-1].category
    after = [s for s in span if s.kind == "shell" and s.index > at and s.category == category and s.ok]
    last_sig, next_sig = cmd.signature(before[-1].segment), cmd.signature(after[0].segment) if after else ""
    if not after or not next_sig or next_sig == last_sig:
        return (), avoid
    fixed = cmd.preferred_form(next_sig, last_sig)
    run = cmd.CommandRun(command=before[-1].text, category=category, signature=last_sig, ok=before[-1].ok, exit_code=None,
                         index=before[-1].index, segment=before[-1].segment)  # fmt: skip
    failed = cmd.avoided_form(run, fixed, next_sig)
    return (fixed,), avoid or ((failed,) if failed else ())
