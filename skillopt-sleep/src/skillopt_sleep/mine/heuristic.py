"""The zero-API miner: recurring intents, evidence-backed lessons and deterministic checks.

No model is called. Sessions are split first (by session id), intents are clustered
across *all* sessions to find recurrence, and each (cluster, split) becomes a task
whose checks come only from its own sessions' evidence: the developer's corrections,
commands that failed and then passed, what a corrected edit wrote, and — as weaker
evidence — the command that worked. Every check must separate the attempt the
developer accepted from the ones they rejected or a generic answer
(:mod:`.generic`), and must not contradict the project's memory files
(:mod:`.memory`). A task with no such check is dropped and counted, never scored from
its outcome label.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import attrs
from skillopt.api import Session

from skillopt_sleep.mine.cluster import cluster, medoid
from skillopt_sleep.mine.digest import IntentEvidence, digest
from skillopt_sleep.mine.generic import discriminative, generic_passes
from skillopt_sleep.mine.memory import ProjectMemory, contradicts, lesson_contradicts
from skillopt_sleep.mine.tasks import Check, Lesson, SleepTask, collapse, task_id
from skillopt_sleep.redaction import clip

MAX_INTENT_CHARS = 800
OUTCOME_RANK = {"corrected": 4, "fail": 3, "success": 2, "unknown": 1}


@attrs.frozen(kw_only=True)
class MiningReport:
    tasks: tuple[SleepTask, ...]
    intents: int
    clusters: int
    dropped_uncheckable: int
    recurring_clusters: int
    #: checks dropped because a generic answer (or the rejected attempt) passes them too
    dropped_generic_checks: int = 0
    #: checks dropped because they contradict the project's memory files
    dropped_contradicting: int = 0
    #: checks kept: each fails a generic answer and passes the accepted attempt
    discriminative_checks: int = 0


@attrs.define
class _Counts:
    generic: int = 0
    contradicting: int = 0


def merge_lessons(evidence: list[IntentEvidence]) -> tuple[Lesson, ...]:
    """Lessons deduplicated by what they prefer/avoid; support = distinct sessions; the
    evidence of every session kept, each line naming its session."""
    by_key: dict[str, Lesson] = {}
    sessions: dict[str, list[str]] = defaultdict(list)
    lines: dict[str, list[str]] = defaultdict(list)
    for ev in evidence:
        for lesson in ev.lessons:
            key = lesson.key
            if ev.session_id not in sessions[key]:
                sessions[key].append(ev.session_id)
            lines[key] += [f"{ev.session_id}: {line}" for line in lesson.evidence]
            if key not in by_key or lesson.strength > by_key[key].strength:
                by_key[key] = lesson
    return collapse(
        [
            attrs.evolve(
                lesson,
                support=len(sessions[key]),
                sessions=tuple(sessions[key]),
                evidence=tuple(dict.fromkeys(lines[key]))[:6],
            )
            for key, lesson in by_key.items()
        ]
    )


def mine(
    sessions: list[Session] | tuple[Session, ...],
    splits: dict[str, str],
    *,
    project_name: str = "",
    memory: ProjectMemory | None = None,
) -> MiningReport:
    memory = memory or ProjectMemory()
    counts = _Counts()
    evidence: list[IntentEvidence] = []
    for session in sessions:
        evidence.extend(digest(session))
    texts = [ev.text for ev in evidence]
    cats = [ev.categories for ev in evidence]
    groups = cluster(texts, cats)
    tasks: list[SleepTask] = []
    dropped = 0
    for members in groups:
        by_split: dict[str, list[int]] = defaultdict(list)
        for i in members:
            by_split[splits.get(evidence[i].session_id, "train")].append(i)
        cluster_key = task_id("c", *sorted({evidence[i].session_id + texts[i][:60] for i in members}))
        for split, idx in sorted(by_split.items()):
            # train: one task per cluster (its lessons pooled); val/test: one task per
            # session intent, each an independent observation for the gate
            groups_of = [idx] if split == "train" else [[i] for i in idx]
            for group in groups_of:
                task = _task(evidence, group, texts, cats, split, cluster_key, project_name, memory, counts)
                if task.checkable:
                    tasks.append(task)
                else:
                    dropped += 1
    tasks.sort(key=lambda t: (-t.support, -len(t.lessons), t.id))
    return MiningReport(
        tasks=tuple(tasks),
        intents=len(evidence),
        clusters=len(groups),
        dropped_uncheckable=dropped,
        recurring_clusters=sum(1 for g in groups if len({evidence[i].session_id for i in g}) > 1),
        dropped_generic_checks=counts.generic,
        dropped_contradicting=counts.contradicting,
        discriminative_checks=sum(len(t.checks) for t in tasks),
    )


def _checks(items: list[IntentEvidence], memory: ProjectMemory, counts: _Counts) -> list[Check]:
    """The group's checks that separate what was accepted from what was rejected or a
    generic answer would do, and agree with the project's memory (at most six)."""
    categories = {c for ev in items for c in ev.categories}
    rejected = [text for ev in items for text in ev.rejected]
    accepted = "\n".join(text for ev in items for text in ev.accepted)
    kept: dict[tuple[str, str], Check] = {}
    for pool in ([c for ev in items for c in ev.checks], [c for ev in items for c in ev.weak_checks]):
        for check in pool:
            key = (check.op, check.value.lower())
            if key in kept:
                continue
            if contradicts(check, memory):
                counts.contradicting += 1
            elif not discriminative(check, rejected=rejected, accepted=accepted, categories=categories):
                counts.generic += 1
            else:
                kept[key] = check
        if kept:  # the command that merely worked is only a fallback
            break
    checks = list(kept.values())[:6]
    if checks and generic_passes(checks, categories):
        counts.generic += len(checks)
        return []
    return checks


def _task(evidence, idx: list[int], texts, cats, split: str, cluster_key: str, project_name: str, memory, counts) -> SleepTask:
    items = [evidence[i] for i in idx]
    face = medoid(idx, texts, cats)
    checks = _checks(items, memory, counts)
    outcome = max((ev.outcome for ev in items), key=lambda o: OUTCOME_RANK.get(o, 0))
    files = Counter(f for ev in items for f in ev.files)
    context_lines = []
    if project_name:
        context_lines.append(f"Project: {project_name}")
    if files:
        context_lines.append("Files involved: " + ", ".join(f for f, _ in files.most_common(5)))
    sessions = tuple(sorted({ev.session_id for ev in items}))
    return SleepTask(
        id=task_id(
            "task", cluster_key, split, *([] if split == "train" else sessions), *([] if split == "train" else [texts[face]])
        ),
        intent=clip(texts[face], MAX_INTENT_CHARS),
        context="\n".join(context_lines),
        checks=tuple(checks),
        outcome=outcome,
        sessions=sessions,
        sources=tuple(sorted({ev.source for ev in items})),
        lessons=tuple(lesson for lesson in merge_lessons(items) if not lesson_contradicts(lesson, memory)),
        split=split,
        origin="heuristic",
        support=len(sessions),
        cluster=cluster_key,
    )
