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

#: field metadata read by :mod:`skillopt.serde`: the field is left out of the data while it
#: holds its default, so records that do not use a later-added field serialise (and hash
#: into cache and stage keys) exactly as before it existed
_NEW_FIELD = {"skillopt_omit_if_default": True}

# --------------------------------------------------------------------------- models


@attrs.frozen(kw_only=True)
class Message:
    """One chat message. ``images`` holds data: URLs or file paths for vision targets;
    ``image_detail`` (``low``/``high``) asks providers that support it for that image
    resolution, empty leaves it to the provider."""

    #: one of ``system``, ``user``, ``assistant``
    role: str
    #: the message text
    content: str
    #: images attached to the message: ``data:`` URLs or file paths (vision targets only)
    images: tuple[str, ...] = ()
    #: ``low`` or ``high`` asks for that image resolution; ``''`` (or ``auto``) leaves it to the provider
    image_detail: str = ""


@attrs.frozen(kw_only=True)
class SkillFile:
    """One file of a folder skill (the Agent Skills layout: ``SKILL.md``,
    ``references/NAME.md``, ``scripts/NAME``)."""

    #: the file's path inside the skill folder, ``/``-separated
    path: str
    #: its text (UTF-8, ending with a newline unless empty)
    content: str
    #: permission bits (``0o644``; a script keeps its own, e.g. ``0o755``)
    mode: int = 0o644


@attrs.frozen(kw_only=True)
class CompletionRequest:
    """What the engine asks of a backend; the cache key is derived from all of it."""

    #: the conversation to complete, in order
    messages: tuple[Message, ...]
    #: cap on output tokens; the role's ``model.ROLE.max_tokens``, when set, overrides it
    max_tokens: int = 1024
    #: sampling temperature; the role's configured temperature, when set, overrides it (None = provider default)
    temperature: float | None = None
    #: JSON Schema the reply must match: the client validates it, re-asks up to ``model.schema_retries`` times and puts the
    #: value in ``Completion.parsed`` (None = free text)
    json_schema: dict[str, Any] | None = None
    #: ``target`` or ``optimizer``; set by the client to its own role (not part of the cache key)
    role: str = "target"
    #: pipeline stage the ledger books the call under (``rollout``, ``analyst``, ``merge`` ...); a stage client's label
    #: wins; not part of the cache key
    stage: str = "rollout"
    #: sampling seed, for providers that accept one (None = none sent)
    seed: int | None = None
    #: stop sequences: the reply ends before the first one
    stop: tuple[str, ...] = ()
    #: reasoning effort for reasoning models (``low``, ``medium``, ``high`` ...); None = the role's ``reasoning_effort``
    reasoning_effort: str | None = None
    #: per-call timeout in seconds; None = the role's ``timeout_s`` (not part of the cache key)
    timeout_s: float | None = None
    #: a folder skill's files other than ``SKILL.md``, for a target that installs them in its workspace
    #: (``Backend.installs_skill_files``: agent CLIs in agent mode) next to the system text; other backends ignore it
    skill_files: tuple[SkillFile, ...] = attrs.field(default=(), metadata=_NEW_FIELD)


@attrs.frozen(kw_only=True)
class Usage:
    """Token counts of one call (or a sum of calls)."""

    #: input tokens, ``cached_tokens`` included
    prompt_tokens: int = 0
    #: output tokens, ``reasoning_tokens`` included
    completion_tokens: int = 0
    #: of ``prompt_tokens``, those read from the provider's prompt cache (billed at the cached rate); 0 when not reported
    cached_tokens: int = 0
    #: of ``completion_tokens``, those spent on hidden reasoning; 0 when not reported
    reasoning_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
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

    #: the reply text (a refusal's text when the model refused)
    text: str
    #: the reply's JSON value, validated against the request's ``json_schema`` (set by the client); None without a schema
    parsed: Any = None
    #: tokens of this call (of the original call for a cache hit)
    usage: Usage = Usage()
    #: USD of this call: the backend's price, or ``model.prices`` when set; 0.0 for a cache hit; None = unknown
    cost_usd: float | None = None
    #: seconds the provider took to answer (the backend's figure, else measured by the client)
    latency_s: float = 0.0
    #: the model that answered, as the provider names it ('' = not reported)
    model: str = ""
    #: why the reply ended: ``stop``, ``length`` (cut at ``max_tokens``), ``refusal`` or ``content_filter`` (backends map
    #: their provider's values to these)
    finish_reason: str = "stop"
    #: served from the call cache, not the provider (set by the client)
    cached: bool = False
    #: an agent's steps before its reply (tool calls and their results, clipped), for backends that run an
    #: agent (agent CLIs in agent mode); the engine puts them into the rollout's trajectory for reflection
    trace: tuple[Turn, ...] = attrs.field(default=(), metadata=_NEW_FIELD)


# --------------------------------------------------------------------------- tasks


@attrs.frozen(kw_only=True)
class Task:
    """One benchmark item.

    ``inputs`` is what the target may see; ``gold`` and ``reference`` are for scoring
    and for the optimizer only (the hidden reference never reaches the target).
    """

    #: unique across the env's splits; results, seeds and resume are keyed by it (never shown to the optimizer)
    id: str
    #: what the target may see (env-specific keys, e.g. ``question``, ``context``)
    inputs: dict[str, Any] = attrs.field(factory=dict)
    #: the answer(s) the scorer checks against; never shown to the target (edits that copy it are refused)
    gold: Any = None
    #: the item's category: the key of ``SplitScore.by_task_type``, available to gates
    task_type: str = "default"
    #: hidden reference (a worked solution, the supporting facts) shown only to the optimizer's analysts
    reference: str = ""
    #: ``train``, ``val`` or ``test``; filled in by the core when the env leaves it empty
    split: str = ""


@attrs.frozen(kw_only=True)
class Score:
    """``hard`` is the benchmark's pass metric, ``soft`` a graded one, both in [0, 1]."""

    #: the benchmark's pass metric in [0, 1] (1 = solved); what ``failed`` and the gate's ``hard`` metric read
    hard: float
    #: a graded metric in [0, 1] (partial credit); what the gate's ``soft`` metric reads
    soft: float
    #: the scorer's explanation, shown to the optimizer with the trajectory, never to the target
    feedback: str = ""
    #: env-specific numbers (``em``, ``f1``, ``steps`` ...); recorded, not used by the engine
    metrics: dict[str, float] = attrs.field(factory=dict)


class TurnKind(enum.StrEnum):
    """What one :class:`Turn` of a trajectory is. The optimizer sees every kind but
    ``evaluation`` as part of the trajectory; ``evaluation`` is the scorer's verdict,
    shown to the optimizer as the outcome."""

    #: a chat message (system prompt, the task, a reply)
    MESSAGE = "message"
    #: the target called a tool; ``name`` is the tool, ``content`` its arguments
    TOOL_CALL = "tool_call"
    #: what a tool or simulator returned; ``name`` is the tool
    OBSERVATION = "observation"
    #: a command the target issued to a simulator (ALFWorld) rather than a tool call
    ACTION = "action"
    #: something the env told the target (a protocol reminder, a clipped input)
    NOTE = "note"
    #: the score and the scorer's feedback
    EVALUATION = "evaluation"


@attrs.frozen(kw_only=True)
class Turn:
    """One event of a trajectory: a message, a tool call, an observation, an evaluation."""

    #: who produced it: ``system``, ``user``, ``assistant``, ``tool`` (an env may add its own, e.g. ``environment``)
    role: str
    #: its text (a tool call: the call as JSON; an evaluation: the scorer's feedback)
    content: str
    #: one of :class:`TurnKind`
    kind: str = "message"
    #: the tool or speaker, where the kind has one
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

    #: the :class:`Task`'s ``id`` (set by the engine)
    task_id: str
    #: the task's type (the engine fills it in from the task when the env leaves ``default``)
    task_type: str = "default"
    #: one of ``ok``, ``failed``, ``error``, ``timeout`` (see above); the engine sets the last three when the rollout
    #: raises or passes its deadline
    status: str = "ok"
    #: the trajectory in order (system prompt, task, replies, tool calls ...), what the optimizer reads
    turns: tuple[Turn, ...] = ()
    #: the target's final answer, as scored
    prediction: str = ""
    #: the scorer's verdict (hard and soft 0, the error as feedback, when the rollout raised or timed out)
    score: Score = Score(hard=0.0, soft=0.0)
    #: target tokens this rollout spent (set by the env, summed over its calls)
    usage: Usage = Usage()
    #: what went wrong when ``status`` is not ``ok`` (redacted; '' otherwise)
    error: str = ""
    #: seconds the rollout took (the env's figure, else measured by the engine)
    duration_s: float = 0.0
    #: ``skill_hash`` of the skill it ran under (set by the engine)
    skill_hash: str = ""
    #: 0-based repeat of this item (the gate's repeats per item); set by the engine
    repeat: int = 0

    @property
    def failed(self) -> bool:
        """A hard score of 0: a wrong answer, a ``failed`` item, or a missing one."""
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

    #: the skill document (markdown)
    content: str
    #: its number in ``skills/skill_vNNNN.md`` (0 = the initial skill)
    version: int = 0
    #: where it came from: ``initial_skill``, ``step_NNNN``, ``slow_update_epoch_NN`` or ``final_promoted``
    origin: str = "initial_skill"

    @property
    def hash(self) -> str:
        """The content address of ``content`` (:func:`skill_hash`)."""
        return skill_hash(self.content)


EDIT_OPS = ("append", "insert_after", "replace", "delete")


@attrs.frozen(kw_only=True)
class Edit:
    """One bounded change to a skill document."""

    #: one of ``append``, ``insert_after``, ``replace``, ``delete`` (``rewrite`` in the results of rewrite policies)
    op: str
    #: text of the skill the edit anchors on (matched whitespace-tolerantly); '' for ``append``
    target: str = ""
    #: the new text (``append``, ``insert_after``, ``replace``); ignored by ``delete``
    content: str = ""
    #: analyst proposals this edit stands for, counted by the merge (never self-reported)
    support_count: int = 1
    #: ``failure`` or ``success``: the trajectories that prompted it
    source_type: str = "failure"
    #: level of the merge tree that produced it (0 = an analyst's proposal)
    merge_level: int = 0
    #: the analyst's reason for the edit
    rationale: str = ""
    #: folder skills: the file it edits (``SKILL.md`` when empty; an ``append`` to a new ``references/NAME.md`` creates
    #: it); single-file skills leave it empty
    target_file: str = attrs.field(default="", metadata=_NEW_FIELD)


@attrs.frozen(kw_only=True)
class Suggestion:
    """A rewrite-mode proposal: what to change and why, applied by a full rewrite."""

    #: one of ``add_rule``, ``remove_rule``, ``merge_rules``, ``reorganize``, ``compress``, ``clarify``
    type: str
    #: a short name for the change (at most 120 characters)
    title: str
    #: what the rewrite should do
    instruction: str
    #: the evidence from the trajectories that calls for it
    motivation: str = ""
    #: the analyst's priority: ``high``, ``medium`` or ``low`` (shown to the ranking call)
    priority_hint: str = "medium"
    #: analyst proposals this suggestion stands for, counted by the merge (never self-reported)
    support_count: int = 1
    #: ``failure`` or ``success``: the trajectories that prompted it
    source_type: str = "failure"


@attrs.frozen(kw_only=True)
class Patch:
    """What one analyst (or one merge) proposes."""

    #: bounded edits (the ``patch`` policy)
    edits: tuple[Edit, ...] = ()
    #: revision suggestions for one rewrite (the ``rewrite`` policy)
    suggestions: tuple[Suggestion, ...] = ()
    #: a whole new skill text (the ``full-rewrite`` policy); '' otherwise
    new_skill: str = ""
    #: the analyst's or merger's explanation (free text; a fallback says so)
    reasoning: str = ""
    #: ``failure`` or ``success``: the trajectories it came from (the final merge of both is ``failure``)
    source_type: str = "failure"
    #: failure patterns (``TYPE: description``) or success patterns the analysts named; shown in the step history
    patterns: tuple[str, ...] = ()
    #: execution notes for the protected appendix (skill-aware reflection only)
    appendix_notes: tuple[str, ...] = ()
    #: 0 = one analyst's patch; n = the output of a merge at tree level n
    merge_level: int = 0

    @property
    def size(self) -> int:
        """Proposals it carries: edits plus suggestions, plus 1 for a new skill."""
        return len(self.edits) + len(self.suggestions) + (1 if self.new_skill else 0)


@attrs.frozen(kw_only=True)
class EditResult:
    """What happened to one edit when applied; ``not_applied`` edits are reported back."""

    #: the edit as proposed
    edit: Edit
    #: one of ``applied``, ``not_applied`` (target or file not found), ``duplicate`` (content already in the skill),
    #: ``protected`` (target inside a protected block or a folder skill's front matter, or a read-only script),
    #: ``invalid`` (bad op, missing target or content, a ``target_file`` outside the folder layout), ``leak`` (copies a
    #: training answer; refused by the engine)
    status: str
    #: why, for any status but ``applied`` (rewrite policies put the suggestion's title here)
    detail: str = ""


# --------------------------------------------------------------------------- gating and history


class GateAction(enum.StrEnum):
    """A gate's answer. ``more`` asks for another look with more repeats per item
    (sequential gates only); ``no_decision`` means too few items were valid to decide."""

    #: the candidate beats the current skill
    ACCEPT = "accept"
    #: it does not (also what a ``more`` on the last look becomes)
    REJECT = "reject"
    #: accepted without a comparison (``evaluation.use_gate = false``, an ungated slow update); set by the engine
    FORCE_ACCEPT = "force_accept"
    #: too few val items had a valid result to decide; set by the engine, the run stops (resumable)
    NO_DECISION = "no_decision"
    #: sequential gates only: look again with one more repeat per item
    MORE = "more"


@attrs.frozen(kw_only=True)
class Verdict:
    """A gate's decision on a candidate skill."""

    #: the candidate replaces the current skill (``accept`` or ``force_accept``)
    accepted: bool
    #: the decision, a :class:`GateAction`
    action: GateAction = attrs.field(converter=GateAction)
    #: the compared metric: ``hard``, ``soft`` or ``mixed`` (``evaluation.gate_metric``)
    metric: str
    #: the current skill's gate score on the compared items
    current_score: float
    #: the candidate's gate score on the compared items
    candidate_score: float
    #: the decision in words, for the step line and ``history.json``
    reason: str = ""
    #: accepted without a comparison (``force_accept``)
    forced: bool = False
    #: val items compared (valid on both sides)
    n_items: int = 0
    #: ``paired``: 1 minus the sign-flip test's p-value; None for gates without a test
    confidence: float | None = None
    #: gate-specific figures (``paired``: ``mean_diff``, ``p_value``, ``alpha``, ``improved``, ``regressed`` ...)
    details: dict[str, Any] = attrs.field(factory=dict)
    #: val items left out of the comparison (no valid result on one side) and why
    excluded: dict[str, str] = attrs.field(factory=dict)
    #: repeats per item the decision was made on
    repeats: int = 1
    #: looks at the evidence the decision took (1 for a non-sequential gate)
    looks: int = 1


class StepAction(enum.StrEnum):
    """What one step did with its candidate."""

    #: the gate accepted the candidate: it is the current skill, not above the best
    ACCEPT = "accept"
    #: accepted, and its val score beats the best so far: also the new best skill
    ACCEPT_NEW_BEST = "accept_new_best"
    #: accepted without a comparison (``evaluation.use_gate = false``)
    FORCE_ACCEPT = "force_accept"
    #: the gate rejected the candidate: the current skill stays
    REJECT = "reject"
    #: the analysts proposed nothing (or no trajectory could be reflected on): no candidate
    SKIP_NO_PATCHES = "skip_no_patches"
    #: edit policies: the applied edits left the skill unchanged (or the candidate was over ``optimizer.max_skill_chars``)
    SKIP_NO_CHANGE = "skip_no_change"
    #: rewrite policies: the rewrite returned the same skill (or none, or one over ``optimizer.max_skill_chars``)
    SKIP_NO_REWRITE = "skip_no_rewrite"
    #: every analyst call of the step failed (schema break, truncated reply)
    SKIP_REFLECT_FAILED = "skip_reflect_failed"

    @property
    def accepted(self) -> bool:
        """The candidate became the current skill (``accept``, ``accept_new_best``, ``force_accept``)."""
        return self in (StepAction.ACCEPT, StepAction.ACCEPT_NEW_BEST, StepAction.FORCE_ACCEPT)

    @property
    def skipped(self) -> bool:
        """The step built no candidate to gate (a ``skip_*`` action)."""
        return self.value.startswith("skip")


@attrs.frozen(kw_only=True)
class StepRecord:
    """One line of ``history.json``: everything a reader needs to understand a step."""

    #: 1-based step number over the whole run
    step: int
    #: 1-based epoch
    epoch: int
    #: 1-based position of the step in its epoch
    step_in_epoch: int
    #: what the step did with its candidate, a :class:`StepAction`
    action: StepAction = attrs.field(converter=StepAction)
    #: the edit budget the step used (after ``select``; the schedule's when it stopped earlier); -1 = no budget
    edit_budget: int = 0
    #: mean hard score of the step's scored train rollouts (missing ones left out)
    rollout_hard: float = 0.0
    #: mean soft score of the step's scored train rollouts
    rollout_soft: float = 0.0
    #: train rollouts of the step, missing ones included
    rollout_n: int = 0
    #: train items with no answer (provider errors): left out of reflection
    rollout_errors: int = 0
    #: analyst patches from failure minibatches
    n_failure_patches: int = 0
    #: analyst patches from success minibatches
    n_success_patches: int = 0
    #: analyst calls whose reply was unusable (schema broken, truncated)
    reflect_failures: int = 0
    #: why, one ``KIND minibatch: REASON`` line per unusable reply (``KIND``: ``failure`` or ``success``)
    reflect_failure_reasons: tuple[str, ...] = ()
    #: analyst calls that got no reply (provider errors): their trajectories were not reflected on
    reflect_missing: int = 0
    #: proposals over every analyst patch (edits, suggestions or whole skills: ``Patch.size``)
    n_edits_proposed: int = 0
    #: proposals left after the merge tree
    n_edits_merged: int = 0
    #: proposals kept by ``select`` (clipped to the edit budget)
    n_edits_selected: int = 0
    #: edits with status ``applied``
    n_edits_applied: int = 0
    #: edits with any other status (``not_applied``, ``duplicate``, ``protected``, ``invalid``, ``leak``)
    n_edits_not_applied: int = 0
    #: ``skill_hash`` of the candidate (the current skill's when the step skipped)
    candidate_hash: str = ""
    #: characters of the candidate
    candidate_len: int = 0
    #: the candidate's val hard mean as the gate measured it; None when no gate ran
    selection_hard: float | None = None
    #: the candidate's val soft mean as the gate measured it; None when no gate ran
    selection_soft: float | None = None
    #: the candidate's gate score on val; None when no gate ran
    candidate_gate_score: float | None = None
    #: the gate's decision; None when the step skipped before the gate
    verdict: Verdict | None = None
    #: val items compared by the gate (valid on both sides); 0 when the step did not reach the gate
    gate_items: int = 0
    #: val items left out of the gate's comparison (no valid result on one side: provider errors)
    gate_excluded: int = 0
    #: val rollouts the gate's early stop did not need (vs. deciding at the most repeats)
    gate_rollouts_saved: int = 0
    #: the current skill's gate score after this step
    current_score: float = 0.0
    #: the best gate score so far
    best_score: float = 0.0
    #: the step that produced the best skill (0 = the initial skill)
    best_step: int = 0
    #: the current skill's origin after this step (``initial_skill``, ``step_NNNN``, ``slow_update_epoch_NN``)
    current_origin: str = ""
    #: the best skill's origin after this step
    best_origin: str = ""
    #: characters of the current skill after this step
    skill_len: int = 0
    #: prompt tokens the step paid for, both roles, over every session (cache hits are free)
    prompt_tokens: int = 0
    #: completion tokens the step paid for, both roles, over every session
    completion_tokens: int = 0
    #: of ``prompt_tokens``, those of the optimizer role
    optimizer_prompt_tokens: int = 0
    #: provider replies the step paid for (cache hits not counted)
    calls: int = 0
    #: USD the step spent (calls without a known price count 0)
    cost_usd: float = 0.0
    #: calls the call cache answered (a resumed or repeated step): no request sent, nothing paid
    cached_calls: int = 0
    #: tokens those cached calls cost when first paid for (what the cache saved)
    cached_tokens: int = 0
    #: USD those cached calls cost when first paid for (what the cache saved)
    cached_cost_usd: float = 0.0
    #: seconds per stage in this session: ``rollout_s``, ``reflect_s``, ``merge_s``, ``select_s``, ``apply_s``, ``gate_s``
    #: (stages the step reached)
    timing: dict[str, float] = attrs.field(factory=dict)
    #: seconds: the sum of ``timing``
    wall_time_s: float = 0.0
    #: degraded paths taken (a merge or ranking fallback, a candidate over the length limit ...)
    notes: tuple[str, ...] = ()
    #: proposals the step made (``search.proposals``; 1 = one candidate, the paper's)
    proposals: int = 1
    #: distinct candidates raced on val before the gate (0 = no race)
    raced: int = 0
    #: the proposal whose candidate went to the gate (the race's winner; 0 with one proposal)
    race_winner: int = 0


# --------------------------------------------------------------------------- sleep sessions


@attrs.frozen(kw_only=True)
class Session:
    """One coding-agent session as a harvester reads it, already redacted."""

    #: ``SOURCE:SESSION_ID``, unique across harvesters
    id: str
    #: the harvester's ``name`` (``claude-code``, ``codex`` ...)
    source: str
    #: the working directory the session ran in ('' = unknown)
    project: str = ""
    #: ISO 8601 UTC time of the first event ('' = unknown)
    started_at: str = ""
    #: ISO 8601 UTC time of the last event ('' = unknown)
    ended_at: str = ""
    #: the conversation, clipped and redacted (kinds ``message``, ``tool_call``, ``tool_result``, ``feedback``)
    turns: tuple[Turn, ...] = ()
    #: names of the tools the agent called, in order of first use
    tools_used: tuple[str, ...] = ()
    #: file paths named in the agent's tool calls
    files_touched: tuple[str, ...] = ()
    #: the transcript file it was read from
    raw_path: str = ""
    #: harvester-specific extras (``model``, ``branch`` ...)
    metadata: dict[str, Any] = attrs.field(factory=dict)
