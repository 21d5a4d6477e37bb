"""What one night found and decided, as typed records.

The report is written to ``report.json`` next to a staged proposal, printed by
``--json``, rendered as ``report.md`` and summarised into the project's history. It
is built once, at the end of the night, from frozen records: the core's own records
where they mean the same thing (a gate decision is a :class:`~skillopt.api.Verdict`,
a proposed change an :class:`~skillopt.api.Edit` inside
:class:`~skillopt_sleep.documents.DocEdit`), sleep's records for the rest. It is
serialised by the project's one cattrs converter (``to_data``), never by hand.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from skillopt.api import Verdict
from skillopt_sleep.documents import DocEdit
from skillopt_sleep.mine.tasks import Check, SleepTask


@attrs.frozen(kw_only=True)
class HarvestSummary:
    """How many sessions each source gave, and what was left out and why."""

    sessions: int = 0
    per_source: dict[str, int] = attrs.field(factory=dict)
    sources_tried: tuple[str, ...] = ()
    out_of_scope: int = 0
    #: sessions left out on purpose, by reason (``sleep-replay``, ``grader``, ``agent-automation`` …)
    dropped: dict[str, int] = attrs.field(factory=dict)
    #: transcript lines that were not JSON (or not an object), skipped, by source
    skipped_lines: dict[str, int] = attrs.field(factory=dict)
    #: stores or files a harvester could not read, each with the reason
    unreadable: tuple[str, ...] = ()
    #: start of the harvest window (ISO 8601), None = all history
    since: str | None = None
    #: the tasks came from a reviewed tasks file; nothing was harvested
    tasks_file: bool = False


@attrs.frozen(kw_only=True)
class MiningSummary:
    """What mining made of the sessions."""

    tasks: int = 0
    by_split: dict[str, int] = attrs.field(factory=dict)
    intents: int = 0
    clusters: int = 0
    recurring_clusters: int = 0
    dropped_uncheckable: int = 0
    #: checks dropped because a generic answer (or the rejected attempt) passes them too
    dropped_generic_checks: int = 0
    #: checks dropped because they contradict the project's memory files
    dropped_contradicting: int = 0
    #: checks kept: each one a generic answer fails
    discriminative_checks: int = 0
    #: checks dropped because an agent following the memory files alone already passes them
    dropped_memory_checks: int = 0
    recalled: int = 0
    dreams: int = 0
    session_splits: dict[str, int] = attrs.field(factory=dict)
    from_file: bool = False


@attrs.frozen(kw_only=True)
class TaskRow:
    """One task tonight replays, as the report shows it."""

    id: str
    split: str
    intent: str
    outcome: str = ""
    support: int = 0
    sources: tuple[str, ...] = ()
    checks: tuple[Check, ...] = ()
    rubric: str = ""
    lessons: tuple[str, ...] = ()
    origin: str = ""
    parent: str = ""
    skills: tuple[str, ...] = ()

    @classmethod
    def of(cls, task: SleepTask, *, mined: bool = True) -> TaskRow:
        return cls(
            id=task.id,
            split=task.split,
            intent=task.intent[:300],
            outcome=task.outcome if mined else "",
            support=task.support if mined else 0,
            sources=task.sources if mined else (),
            checks=task.checks,
            rubric=task.rubric,
            lessons=tuple(lesson.text for lesson in task.lessons),
            origin=task.origin,
            parent=task.parent,
            skills=task.skills,
        )


@attrs.frozen(kw_only=True)
class DreamSummary:
    factor: int
    path: str
    variants: int = 0
    from_model: int = 0
    rephrased: int = 0
    rejected: int = 0


@attrs.frozen(kw_only=True)
class ContrastRow:
    id: str
    spread: float
    good: int
    bad: int


@attrs.frozen(kw_only=True)
class ContrastSummary:
    rollouts: int
    tasks: tuple[ContrastRow, ...] = ()
    edits: int = 0


@attrs.frozen(kw_only=True)
class Trial:
    """One gate decision: which candidate, and the core gate's verdict."""

    label: str
    verdict: Verdict


@attrs.frozen(kw_only=True)
class RejectedEdit(DocEdit):
    """A proposal the night did not keep, and why."""

    reason: str = ""


@attrs.frozen(kw_only=True)
class TargetRow:
    role: str
    path: str
    exists: bool


@attrs.frozen(kw_only=True)
class Scores:
    metric: str = "mixed"
    baseline_val: float | None = None
    final_val: float | None = None
    baseline_test: float | None = None
    final_test: float | None = None


@attrs.frozen(kw_only=True)
class TaskScore:
    id: str
    split: str
    intent: str
    baseline: float | None = None
    final: float | None = None
    delta: float | None = None


@attrs.frozen(kw_only=True)
class SkillResult:
    """One skill of a fan-out night (``--fan-out``): consolidated from its own live
    ``SKILL.md`` on the tasks whose sessions used it, gated on its own val tasks, staged
    (when accepted) as its own proposal, adopted and rolled back on its own."""

    name: str
    #: the live SKILL.md ('' when the skill was not found)
    path: str = ""
    #: ``accepted``, ``rejected``, ``nothing_learned``, ``too_few_tasks``, ``skipped``, ``budget_stopped``
    status: str = ""
    reason: str = ""
    tasks: tuple[str, ...] = ()
    scores: Scores = Scores()
    per_task: tuple[TaskScore, ...] = ()
    trials: tuple[Trial, ...] = ()
    accepted_edits: tuple[DocEdit, ...] = ()
    rejected_edits: tuple[RejectedEdit, ...] = ()
    notes: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class NightUsage:
    """What the backends reported, through the core ledger."""

    calls: int = 0
    cached_calls: int = 0
    failed_calls: int = 0
    tokens: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0

    @classmethod
    def of(cls, totals) -> NightUsage:
        """From the ledger's totals (``Ledger.totals()``)."""
        return cls(
            calls=totals.calls,
            cached_calls=totals.cached_calls,
            failed_calls=totals.failed_calls,
            tokens=totals.tokens,
            prompt_tokens=totals.prompt_tokens,
            completion_tokens=totals.completion_tokens,
            cost_usd=totals.cost_usd,
            unpriced_calls=totals.unpriced_calls,
        )


@attrs.frozen(kw_only=True)
class Gathered:
    """How tonight's task list was found: kept with a pinned handoff round so every
    re-run reports the harvest that made the tasks, not a new one."""

    agent: str = ""
    sources: tuple[str, ...] = ()
    harvest: HarvestSummary = HarvestSummary()
    mining: MiningSummary = MiningSummary()
    tasks: tuple[TaskRow, ...] = ()
    dreams: DreamSummary | None = None


@attrs.frozen(kw_only=True)
class NightReport:
    """Everything one night found and decided."""

    night: int
    project: str
    started: str
    finished: str = ""
    dry_run: bool = False
    #: ``accepted``, ``rejected``, ``nothing_learned``, ``no_sessions``, ``too_few_tasks``, ``budget_stopped``
    status: str = ""
    reason: str = ""
    agent: str = ""
    sources: tuple[str, ...] = ()
    #: backend of each role (``target``, ``optimizer``) and the per-call deadline in seconds
    backends: dict[str, str] = attrs.field(factory=dict)
    call_timeout_s: float | None = None
    targets: tuple[TargetRow, ...] = ()
    harvest: HarvestSummary = HarvestSummary()
    mining: MiningSummary = MiningSummary()
    tasks: tuple[TaskRow, ...] = ()
    dreams: DreamSummary | None = None
    contrast: ContrastSummary | None = None
    trials: tuple[Trial, ...] = ()
    accepted_edits: tuple[DocEdit, ...] = ()
    rejected_edits: tuple[RejectedEdit, ...] = ()
    scores: Scores = Scores()
    per_task: tuple[TaskScore, ...] = ()
    usage: NightUsage = NightUsage()
    notes: tuple[str, ...] = ()
    staging: str | None = None
    #: per-skill proposals of a fan-out night, each with its own gate evidence
    skills: tuple[SkillResult, ...] = ()

    def gathered(self) -> Gathered:
        return Gathered(
            agent=self.agent,
            sources=self.sources,
            harvest=self.harvest,
            mining=self.mining,
            tasks=self.tasks,
            dreams=self.dreams,
        )


#: the report fields a night's history row keeps (the rest stays in report.json)
HISTORY_FIELDS = (
    "night",
    "started",
    "finished",
    "status",
    "reason",
    "agent",
    "backends",
    "scores",
    "usage",
    "staging",
    "accepted_edits",
    "rejected_edits",
    "harvest",
    "mining",
)


def history_row(report: NightReport) -> dict:
    """The slice of the report kept in the project's state (``skillopt sleep status``)."""
    from skillopt.api import to_data

    data = to_data(report)
    return {name: data[name] for name in HISTORY_FIELDS}


@attrs.frozen(kw_only=True)
class NightResult:
    """What :func:`skillopt_sleep.cycle.run_night` returns: the night's status and report,
    and where its proposal was staged (and whether it was adopted)."""

    status: str
    reason: str
    report: NightReport
    staging: Path | None = None
    adopted: bool = False
