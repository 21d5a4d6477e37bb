"""The records mining produces: checks, lessons and tasks.

A :class:`SleepTask` is one recurring developer intent, restricted to the sessions of
one split. It is checkable by deterministic :class:`Check` s mined from evidence in
its own sessions, or by a rubric for the LLM judge; a task with neither is dropped —
never scored from its historical outcome label (upstream's no-op default).
"""

from __future__ import annotations

import hashlib
import re

import attrs

#: lessons a difference between the rejected and the kept attempt shows (:mod:`.attempts`)
SHOWN = ("command", "flag", "api", "place", "heading")
CHECK_OPS = (
    "contains",
    "not_contains",
    "regex",
    "not_regex",
    "max_chars",
    "min_chars",
    "no_refusal",
    "tool_called",
    "section_present",
    "section_contains",
)


@attrs.frozen(kw_only=True)
class Check:
    """One deterministic test of a replayed answer."""

    op: str
    value: str = ""
    why: str = ""


@attrs.frozen(kw_only=True)
class Lesson:
    """A rule the developer's own sessions support, phrased for the skill document."""

    text: str
    kind: str = "correction"
    prefer: tuple[str, ...] = ()
    avoid: tuple[str, ...] = ()
    support: int = 1
    evidence: tuple[str, ...] = ()
    #: what following it looks like, from the accepted edit (its first tokens: ``## [1.4.1]``)
    example: str = ""
    #: the sessions it was seen in
    sessions: tuple[str, ...] = ()
    #: the file the accepted edit changed, for a lesson an edit shows
    where: str = ""
    #: what kind of job or file it is about: a command category (``test``) or program, a file kind (``test_*.py``)
    scope: str = ""
    #: the rejected attempt failed when it ran: the project itself, not only the developer, rejected it
    failed: bool = False
    #: how many sessions of its job, outside the test split, teach it (train and val: a
    #: train task may hold one session of a job the developer corrected five times)
    seen: int = 0

    @property
    def key(self) -> str:
        """Lessons that prefer the same tools teach the same thing, however they are worded
        (and in whichever language)."""
        if self.prefer:
            return "prefer:" + "|".join(sorted(_general(p) for p in self.prefer))
        if self.avoid:
            return "avoid:" + "|".join(sorted(_general(a) for a in self.avoid))
        return " ".join(self.text.lower().split())

    @property
    def strength(self) -> tuple[int, int, int, int]:
        """Which of two same-key lessons to keep: one the session's steps show (and the
        developer's words back), then one that also says what to avoid, then the longer one."""
        return (self.kind in SHOWN, self.kind == "correction", len(self.avoid), len(self.text))


@attrs.frozen(kw_only=True)
class SleepTask:
    """A replayable task: an intent, how to check an answer, and where it came from."""

    id: str
    intent: str
    context: str = ""
    checks: tuple[Check, ...] = ()
    rubric: str = ""
    outcome: str = "unknown"
    sessions: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    lessons: tuple[Lesson, ...] = ()
    split: str = ""
    origin: str = "heuristic"
    support: int = 1
    cluster: str = ""
    parent: str = ""  # for a dream variant: the id of the real task it rephrases
    #: skills its sessions used (:mod:`skillopt_sleep.skills`); a fan-out night consolidates each from these tasks
    skills: tuple[str, ...] = ()

    @property
    def checkable(self) -> bool:
        return bool(self.checks or self.rubric)


def _general(token: str) -> str:
    """A name with its numbers generalised: ``git tag -a v1.8.0`` and ``… v2.0.1`` teach one thing."""
    return re.sub(r"\d+", "N", token.lower())


def task_id(prefix: str, *parts: str) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:12]
    return f"{prefix}_{digest}"


def _covers(general: str, specific: str) -> bool:
    g, sp = general.lower().split(), specific.lower().split()
    return len(g) <= len(sp) and sp[: len(g)] == g


def collapse(lessons: list[Lesson] | tuple[Lesson, ...]) -> tuple[Lesson, ...]:
    """Drop lessons another lesson already teaches: ``uv run alembic`` and ``uv run
    alembic revision`` are one lesson (the stronger wording is kept)."""
    kept: list[Lesson] = []
    for lesson in sorted(lessons, key=lambda lesson: lesson.strength, reverse=True):
        same = next(
            (
                k
                for k in kept
                if lesson.prefer and k.prefer and any(_covers(a, b) or _covers(b, a) for a in lesson.prefer for b in k.prefer)
            ),
            None,
        )
        if same is None:
            kept.append(lesson)
        else:
            sessions = tuple(dict.fromkeys(same.sessions + lesson.sessions))
            evidence = tuple(dict.fromkeys(same.evidence + lesson.evidence))[:6]
            kept[kept.index(same)] = attrs.evolve(
                same, sessions=sessions, evidence=evidence, support=max(same.support, lesson.support, len(sessions)),
                failed=same.failed or lesson.failed,
            )
    return tuple(kept)
