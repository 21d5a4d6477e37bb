"""The shared vocabulary of every SkillOpt distribution.

Every record is a frozen attrs class: records cross thread, process and file boundaries
(rollouts run in pools, run files are read back on resume), so nothing may mutate them
after creation. Serialisation goes through :mod:`skillopt.serde`; no record carries a
hand-written ``to_dict``.
"""

from __future__ import annotations

import enum
import hashlib
from typing import Any

import attrs

# --------------------------------------------------------------------------- models


@attrs.frozen(kw_only=True)
class Message:
    """One chat message. ``images`` holds data: URLs or file paths for vision targets;
    ``image_detail`` (``low``/``high``) asks providers that support it for that image
    resolution, empty leaves it to the provider."""

    role: str
    content: str
    images: tuple[str, ...] = ()
    image_detail: str = ""


@attrs.frozen(kw_only=True)
class CompletionRequest:
    """What the engine asks of a backend; the cache key is derived from all of it."""

    messages: tuple[Message, ...]
    max_tokens: int = 1024
    temperature: float | None = None
    json_schema: dict[str, Any] | None = None
    role: str = "target"
    stage: str = "rollout"
    seed: int | None = None
    stop: tuple[str, ...] = ()
    reasoning_effort: str | None = None
    timeout_s: float | None = None


@attrs.frozen(kw_only=True)
class Usage:
    """Token counts of one call (or a sum of calls)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
        )


@attrs.frozen(kw_only=True)
class Completion:
    """A backend's answer. ``parsed`` is set when the request carried a JSON schema."""

    text: str
    parsed: Any = None
    usage: Usage = Usage()
    cost_usd: float | None = None
    latency_s: float = 0.0
    model: str = ""
    finish_reason: str = "stop"
    cached: bool = False


# --------------------------------------------------------------------------- tasks


@attrs.frozen(kw_only=True)
class Task:
    """One benchmark item.

    ``inputs`` is what the target may see; ``gold`` and ``reference`` are for scoring
    and for the optimizer only (the hidden reference never reaches the target).
    """

    id: str
    inputs: dict[str, Any] = attrs.field(factory=dict)
    gold: Any = None
    task_type: str = "default"
    reference: str = ""
    split: str = ""


@attrs.frozen(kw_only=True)
class Score:
    """``hard`` is the benchmark's pass metric, ``soft`` a graded one, both in [0, 1]."""

    hard: float
    soft: float
    feedback: str = ""
    metrics: dict[str, float] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class Turn:
    """One event of a trajectory: a message, a tool call, an observation, an evaluation."""

    role: str
    content: str
    kind: str = "message"
    name: str = ""


#: rollout statuses that mean "no answer was obtained": missing data, never a score
MISSING_STATUSES = ("error", "timeout")


@attrs.frozen(kw_only=True)
class Rollout:
    """A scored trajectory of the target on one task under one skill.

    ``status``: ``ok`` (scored), ``failed`` (the item itself could not be run: the
    prompt does not fit the context, the env rejected the model's output; scored 0,
    like a wrong answer), or ``error`` / ``timeout`` (the provider failed or the
    deadline passed: missing data, never scored, retried on resume). A dead endpoint
    is never mistaken for a bad skill.
    """

    task_id: str
    task_type: str = "default"
    status: str = "ok"
    turns: tuple[Turn, ...] = ()
    prediction: str = ""
    score: Score = Score(hard=0.0, soft=0.0)
    usage: Usage = Usage()
    error: str = ""
    duration_s: float = 0.0
    skill_hash: str = ""
    repeat: int = 0

    @property
    def failed(self) -> bool:
        return self.score.hard < 1e-9

    @property
    def missing(self) -> bool:
        """No answer was obtained (provider error or deadline): not a result."""
        return self.status in MISSING_STATUSES


Trajectory = Rollout


# --------------------------------------------------------------------------- skills and edits


def skill_hash(content: str) -> str:
    """Content address of a skill text (sha256, 16 hex digits, as upstream)."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()[:16]


@attrs.frozen(kw_only=True)
class Skill:
    """A skill document version."""

    content: str
    version: int = 0
    origin: str = "initial_skill"

    @property
    def hash(self) -> str:
        return skill_hash(self.content)


EDIT_OPS = ("append", "insert_after", "replace", "delete")


@attrs.frozen(kw_only=True)
class Edit:
    """One bounded change to a skill document."""

    op: str
    target: str = ""
    content: str = ""
    support_count: int = 1
    source_type: str = "failure"
    merge_level: int = 0
    rationale: str = ""


@attrs.frozen(kw_only=True)
class Suggestion:
    """A rewrite-mode proposal: what to change and why, applied by a full rewrite."""

    type: str
    title: str
    instruction: str
    motivation: str = ""
    priority_hint: str = "medium"
    support_count: int = 1
    source_type: str = "failure"


@attrs.frozen(kw_only=True)
class Patch:
    """What one analyst (or one merge) proposes."""

    edits: tuple[Edit, ...] = ()
    suggestions: tuple[Suggestion, ...] = ()
    new_skill: str = ""
    reasoning: str = ""
    source_type: str = "failure"
    patterns: tuple[str, ...] = ()
    appendix_notes: tuple[str, ...] = ()
    merge_level: int = 0

    @property
    def size(self) -> int:
        return len(self.edits) + len(self.suggestions) + (1 if self.new_skill else 0)


@attrs.frozen(kw_only=True)
class EditResult:
    """What happened to one edit when applied; ``not_applied`` edits are reported back."""

    edit: Edit
    status: str
    detail: str = ""


# --------------------------------------------------------------------------- gating and history


class GateAction(enum.StrEnum):
    """A gate's answer. ``more`` asks for another look with more repeats per item
    (sequential gates only); ``no_decision`` means too few items were valid to decide."""

    ACCEPT = "accept"
    REJECT = "reject"
    FORCE_ACCEPT = "force_accept"
    NO_DECISION = "no_decision"
    MORE = "more"


@attrs.frozen(kw_only=True)
class Verdict:
    """A gate's decision on a candidate skill."""

    accepted: bool
    action: GateAction = attrs.field(converter=GateAction)
    metric: str
    current_score: float
    candidate_score: float
    reason: str = ""
    forced: bool = False
    n_items: int = 0
    confidence: float | None = None
    details: dict[str, Any] = attrs.field(factory=dict)
    #: val items left out of the comparison (no valid result on one side) and why
    excluded: dict[str, str] = attrs.field(factory=dict)
    #: repeats per item the decision was made on, and the number of looks it took
    repeats: int = 1
    looks: int = 1


class StepAction(enum.StrEnum):
    """What one step did with its candidate."""

    ACCEPT = "accept"
    ACCEPT_NEW_BEST = "accept_new_best"
    FORCE_ACCEPT = "force_accept"
    REJECT = "reject"
    SKIP_NO_PATCHES = "skip_no_patches"
    SKIP_NO_CHANGE = "skip_no_change"
    SKIP_NO_REWRITE = "skip_no_rewrite"
    #: every analyst call of the step failed (schema break, truncated reply)
    SKIP_REFLECT_FAILED = "skip_reflect_failed"

    @property
    def accepted(self) -> bool:
        return self in (StepAction.ACCEPT, StepAction.ACCEPT_NEW_BEST, StepAction.FORCE_ACCEPT)

    @property
    def skipped(self) -> bool:
        return self.value.startswith("skip")


@attrs.frozen(kw_only=True)
class StepRecord:
    """One line of ``history.json``: everything a reader needs to understand a step."""

    step: int
    epoch: int
    step_in_epoch: int
    action: StepAction = attrs.field(converter=StepAction)
    edit_budget: int = 0
    rollout_hard: float = 0.0
    rollout_soft: float = 0.0
    rollout_n: int = 0
    #: train items with no answer (provider errors): left out of reflection
    rollout_errors: int = 0
    n_failure_patches: int = 0
    n_success_patches: int = 0
    #: analyst calls whose reply was unusable (schema broken, truncated) and why
    reflect_failures: int = 0
    reflect_failure_reasons: tuple[str, ...] = ()
    #: analyst calls that got no reply (provider errors): their trajectories were not reflected on
    reflect_missing: int = 0
    n_edits_proposed: int = 0
    n_edits_merged: int = 0
    n_edits_selected: int = 0
    n_edits_applied: int = 0
    n_edits_not_applied: int = 0
    candidate_hash: str = ""
    candidate_len: int = 0
    selection_hard: float | None = None
    selection_soft: float | None = None
    candidate_gate_score: float | None = None
    verdict: Verdict | None = None
    #: val items compared by the gate, and those excluded (provider errors)
    gate_items: int = 0
    gate_excluded: int = 0
    #: val rollouts the gate's early stop did not need (vs. deciding at the most repeats)
    gate_rollouts_saved: int = 0
    current_score: float = 0.0
    best_score: float = 0.0
    best_step: int = 0
    current_origin: str = ""
    best_origin: str = ""
    skill_len: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    optimizer_prompt_tokens: int = 0
    calls: int = 0
    cost_usd: float = 0.0
    timing: dict[str, float] = attrs.field(factory=dict)
    wall_time_s: float = 0.0
    notes: tuple[str, ...] = ()


# --------------------------------------------------------------------------- sleep sessions


@attrs.frozen(kw_only=True)
class Session:
    """One coding-agent session as a harvester reads it, already redacted."""

    id: str
    source: str
    project: str = ""
    started_at: str = ""
    ended_at: str = ""
    turns: tuple[Turn, ...] = ()
    tools_used: tuple[str, ...] = ()
    files_touched: tuple[str, ...] = ()
    raw_path: str = ""
    metadata: dict[str, Any] = attrs.field(factory=dict)
