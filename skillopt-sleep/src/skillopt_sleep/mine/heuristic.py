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
from skillopt_sleep.mine.memory import NEGATIVE_OPS, ProjectMemory, contradicts, lesson_contradicts, memory_answer
from skillopt_sleep.mine.tasks import Check, Lesson, SleepTask, collapse, task_id
from skillopt_sleep.redaction import clip
from skillopt_sleep.replay.judging import run_check

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
    #: checks dropped because an agent following the memory files alone already passes them
    dropped_memory_checks: int = 0


@attrs.define
class _Counts:
    generic: int = 0
    contradicting: int = 0
    memory: int = 0


def merge_lessons(evidence: list[IntentEvidence]) -> tuple[Lesson, ...]:
    """Lessons deduplicated by what they prefer/avoid; support = distinct sessions; the
    evidence of every session kept, each line naming its session."""
    by_key: dict[str, Lesson] = {}
    sessions: dict[str, list[str]] = defaultdict(list)
    lines: dict[str, list[str]] = defaultdict(list)
    failed: set[str] = set()
    for ev in evidence:
        for lesson in ev.lessons:
            key = lesson.key
            if lesson.failed:
                failed.add(key)
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
                failed=key in failed,
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
    acts = [ev.actions for ev in evidence]
    groups = cluster(texts, cats, actions=acts)
    # what the agent does by default *in this project*: the attempts the developer rejected
    # in train sessions, by kind of job (a check one of them passes cannot tell skills apart)
    defaults: dict[str, list[str]] = defaultdict(list)
    for ev in evidence:
        if splits.get(ev.session_id, "train") == "train":
            for category in ev.categories or ("",):
                defaults[category] += [r for r in ev.rejected if "\n" not in r]
    tasks: list[SleepTask] = []
    dropped = 0
    for members in groups:
        by_split: dict[str, list[int]] = defaultdict(list)
        for i in members:
            by_split[splits.get(evidence[i].session_id, "train")].append(i)
        cluster_key = task_id("c", *sorted({evidence[i].session_id + texts[i][:60] for i in members}))
        seen = _seen(evidence, [i for i in members if splits.get(evidence[i].session_id, "train") != "test"])
        for split, idx in sorted(by_split.items()):
            # train: one task per cluster (its lessons pooled); val/test: one task per
            # session intent, each an independent observation for the gate
            groups_of = [_with_evidence(evidence, idx)] if split == "train" else [[i] for i in idx]
            for group in groups_of:
                task = _task(evidence, group, texts, cats, acts, split, cluster_key, project_name, memory, counts, defaults)
                if task.checkable:
                    if split == "train":
                        task = attrs.evolve(task, lessons=tuple(attrs.evolve(x, seen=seen.get(x.key, 0)) for x in task.lessons))
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
        dropped_memory_checks=counts.memory,
    )


def _seen(evidence: list[IntentEvidence], idx: list[int]) -> dict[str, int]:
    """Per lesson key, how many of these intents' sessions teach it."""
    sessions: dict[str, set[str]] = defaultdict(set)
    for i in idx:
        for lesson in evidence[i].lessons:
            sessions[lesson.key].add(evidence[i].session_id)
    return {key: len(ids) for key, ids in sessions.items()}


def _with_evidence(evidence: list[IntentEvidence], idx: list[int]) -> list[int]:
    """A train cluster's members that carry evidence (a check, a lesson): an intent with
    none ("could you also add a docstring?") says nothing about the job's convention
    and must not lend its session to another job's check."""
    return [i for i in idx if evidence[i].checks or evidence[i].weak_checks or evidence[i].lessons] or idx


def _checks(items: list[IntentEvidence], memory: ProjectMemory, counts: _Counts, defaults: dict[str, list[str]]) -> list[Check]:
    """The group's checks that separate what was accepted from what was rejected or a
    generic answer would do, that the memory files alone do not already guarantee, and
    that agree with the project's memory (at most six)."""
    categories = {c for ev in items for c in ev.categories}
    rejected = [text for ev in items for text in ev.rejected]
    accepted = "\n".join(text for ev in items for text in ev.accepted)
    by_memory = memory_answer(memory)
    seen_defaults = [f"```bash\n{r}\n```" for c in sorted(categories) for r in defaults.get(c, [])[:20]]
    kept: dict[tuple[str, str], Check] = {}
    for pool in ([c for ev in items for c in ev.checks], [c for ev in items for c in ev.weak_checks]):
        for check in pool:
            key = (check.op, check.value.lower())
            if key in kept:
                continue
            if contradicts(check, memory):
                counts.contradicting += 1
            elif by_memory and check.op not in NEGATIVE_OPS and run_check(check, by_memory)[0]:
                counts.memory += 1
            elif not discriminative(check, rejected=rejected, accepted=accepted, categories=categories):
                counts.generic += 1
            else:
                kept[key] = check
        if any(c.op not in NEGATIVE_OPS for c in kept.values()):  # the command that merely worked is only a fallback
            break
    checks = list(kept.values())[:6]
    # a default that is this project's own convention (the kept command) is no tie when the
    # sessions show the agent doing something else: only the other defaults must fail
    extra = ([by_memory] if by_memory else []) + seen_defaults
    if checks and generic_passes(checks, categories, extra=extra, unless=accepted if rejected else ""):
        counts.generic += len(checks)
        return []
    return checks


def _memory_states(lesson, memory: ProjectMemory) -> bool:
    """The memory files already say what the lesson prefers: a rule would repeat them."""
    said = memory_answer(memory).lower()
    return bool(lesson.prefer and said) and all(p.lower() in said for p in lesson.prefer)


def _task(
    evidence, idx: list[int], texts, cats, acts, split: str, cluster_key: str, project_name: str, memory, counts, defaults=None
) -> SleepTask:
    items = [evidence[i] for i in idx]
    face = medoid(idx, texts, cats, acts)
    checks = _checks(items, memory, counts, defaults or {})
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
        lessons=tuple(
            lesson for lesson in merge_lessons(items) if not lesson_contradicts(lesson, memory) and not _memory_states(lesson, memory)
        ),
        split=split,
        origin="heuristic",
        support=len(sessions),
        cluster=cluster_key,
    )
