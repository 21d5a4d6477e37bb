"""What each stage returns: frozen records, saved through the one converter.

A step is ``rollout → reflect → merge → select → apply → gate``; the epoch boundary
adds ``slow_update`` and ``meta_skill``, the end of training ``final_eval``. Each
record is everything the next stage (and a reader of the run directory) needs.
"""

from __future__ import annotations

from typing import Any

import attrs

from skillopt.records import EditResult, Patch, Rollout, Verdict
from skillopt.results import SplitScore


@attrs.frozen(kw_only=True)
class RolloutGroup:
    """One micro-batch's rollouts (``folder`` is relative to the step folder)."""

    folder: str
    rollouts: tuple[Rollout, ...]


@attrs.frozen(kw_only=True)
class RolloutResult:
    groups: tuple[RolloutGroup, ...]

    @property
    def rollouts(self) -> list[Rollout]:
        return [ro for g in self.groups for ro in g.rollouts]

    @property
    def usable(self) -> list[Rollout]:
        return [ro for ro in self.rollouts if not ro.missing]


@attrs.frozen(kw_only=True)
class MinibatchResult:
    """One analyst call: its patch, or why its reply was unusable (a completed outcome:
    a provider failure raises instead and is never saved)."""

    kind: str
    items: int
    patch: Patch | None = None
    failure: str = ""


@attrs.frozen(kw_only=True)
class ReflectResult:
    patches: tuple[Patch, ...]
    minibatches: int
    #: analyst replies that were unusable (schema broken, truncated), with the reason
    failures: tuple[str, ...] = ()
    #: analyst calls with no reply (provider errors), with the reason
    missing: tuple[str, ...] = ()

    @property
    def n_proposed(self) -> int:
        return sum(p.size for p in self.patches)


@attrs.frozen(kw_only=True)
class MergeResult:
    merged: Patch | None
    notes: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return self.merged is None or (self.merged.size == 0 and not self.merged.appendix_notes)


@attrs.frozen(kw_only=True)
class SelectResult:
    budget: int | None
    selected: Patch
    selection: dict[str, Any] = attrs.field(factory=dict)
    lr_decision: dict[str, Any] | None = None
    notes: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class ApplyResult:
    candidate: str
    results: tuple[EditResult, ...] = ()
    extra: dict[str, Any] = attrs.field(factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def summary(self) -> dict[str, int]:
        out = {"total": len(self.results)}
        for res in self.results:
            out[res.status] = out.get(res.status, 0) + 1
        return out


@attrs.frozen(kw_only=True)
class EvalScore:
    """A skill's val evaluation as the gate saw it."""

    skill_hash: str
    gate_score: float
    hard: float
    soft: float
    n: int
    missing: dict[str, str] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class GateResult:
    verdict: Verdict
    current: EvalScore
    candidate: EvalScore
    #: val rollouts the early decision did not need (vs. every item, or the most repeats)
    rollouts_saved: int = 0
    #: val items the candidate ran on when a race decided early (0 = every item)
    raced_items: int = 0


@attrs.frozen(kw_only=True)
class EditEffect:
    """One applied edit of an accepted step, left out of the candidate on the flipped items."""

    #: position among the step's applied edits (0-based)
    index: int
    op: str
    target: str = ""
    content: str = ""
    #: items the candidate gets better than the candidate without this edit
    helped: tuple[str, ...] = ()
    #: items the candidate gets worse than the candidate without this edit
    hurt: tuple[str, ...] = ()
    #: mean gate-metric gain the edit brings on the evaluated items (None: none evaluated)
    effect: float | None = None
    #: items evaluated without it
    evaluated: int = 0


@attrs.frozen(kw_only=True)
class Attribution:
    """``steps/step_NNNN/attribution.json``: which applied edit changed which val item."""

    #: val items the accepted candidate fixed (better than the current skill)
    fixed: tuple[str, ...] = ()
    #: val items it broke
    broke: tuple[str, ...] = ()
    #: the flipped items each edit was left out on (within ``evaluation.attribution_rollouts``)
    items: tuple[str, ...] = ()
    edits: tuple[EditEffect, ...] = ()
    #: rollouts the attribution cost
    rollouts: int = 0
    #: the gate metric compared
    metric: str = "hard"


@attrs.frozen(kw_only=True)
class Pair:
    """One train item under last epoch's skill and this epoch's."""

    task_id: str
    label: str
    prev: Rollout
    curr: Rollout


@attrs.frozen(kw_only=True)
class SlowUpdateResult:
    status: str
    content: str = ""
    reasoning: str = ""
    error: str = ""
    candidate: str = ""


@attrs.frozen(kw_only=True)
class MetaSkillResult:
    status: str
    content: str = ""
    error: str = ""


@attrs.frozen(kw_only=True)
class FinalEvalResult:
    #: the initial skill's val score now (items missing at the baseline asked again)
    initial_val_score: float
    final_val_score: float
    final_hard: float
    final_soft: float
    promote_final: bool
    test: dict[str, SplitScore] = attrs.field(factory=dict)
    #: best minus initial on test (hard), per item scored on both sides: the lift's raw data
    test_item_lift: dict[str, float] = attrs.field(factory=dict)
    #: the best skill's val score measured as the initial's is (every item, the first look's
    #: repeats): what the final line compares with ``initial_val_score`` (None: saved by an
    #: older version)
    best_val_score: float | None = None
