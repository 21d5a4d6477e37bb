"""What a training run reports: step actions, run status and the run summary.

These are the vocabulary of ``history.json`` and ``summary.json`` and what observers
receive. Actions and statuses are string enums, so the files stay readable JSON
(``"action": "reject"``) while code compares members, never loose strings.
"""

from __future__ import annotations

import enum
from typing import Any

import attrs

from skillopt.calls.ledger import LedgerTotals
from skillopt.records import StepAction

__all__ = ["EXIT_CODES", "ConfigChange", "GateInfo", "RunStatus", "RunSummary", "SplitScore", "StepAction", "ValSummary"]


class RunStatus(enum.StrEnum):
    """How a run ended; each stopped status has its own exit code (:data:`EXIT_CODES`)."""

    RUNNING = "running"
    FINISHED = "finished"
    BUDGET_EXHAUSTED = "budget_exhausted"
    #: no step could reflect: every optimizer call failed (names ``model.optimizer.*``)
    OPTIMIZER_FAILED = "optimizer_failed"
    #: every target reply was cut at its token cap
    TARGET_TRUNCATED = "target_truncated"
    #: the provider failed for long enough that a stage could not complete; resumable
    PROVIDER_OUTAGE = "provider_outage"


#: ``skillopt run`` exit status per final status (2 is a usage or config error, 130 ^C)
EXIT_CODES: dict[RunStatus, int] = {
    RunStatus.FINISHED: 0,
    RunStatus.RUNNING: 1,
    RunStatus.BUDGET_EXHAUSTED: 3,
    RunStatus.OPTIMIZER_FAILED: 4,
    RunStatus.TARGET_TRUNCATED: 5,
    RunStatus.PROVIDER_OUTAGE: 6,
}


@attrs.frozen(kw_only=True)
class ConfigChange:
    """A resume under a changed config (``--force-config``): when, and what changed."""

    after_step: int
    changes: tuple[str, ...]
    at: str = ""


@attrs.frozen(kw_only=True)
class SplitScore:
    """One skill's evaluation on a split, with the per-task-type breakdown."""

    hard: float
    soft: float
    n: int
    skill_hash: str
    #: items that could not be scored (provider errors), excluded from the means
    excluded: int = 0
    by_task_type: dict[str, dict[str, float]] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class ValSummary:
    n: int
    baseline_gate_score: float | None
    best_gate_score: float
    final_gate_score: float
    final_hard: float
    final_soft: float


@attrs.frozen(kw_only=True)
class GateInfo:
    name: str
    metric: str
    use_gate: bool


@attrs.frozen(kw_only=True)
class RunSummary:
    """``summary.json``: how a run ended and what it produced."""

    version: str
    status: RunStatus
    stopped_reason: str
    #: the config key a user should change when the run did not finish
    advice: str
    env: str
    out_dir: str
    best_skill: str
    gate: GateInfo
    val: ValSummary
    best_step: int
    best_origin: str
    current_origin: str
    total_steps: int
    steps_completed: int
    total_accepts: int
    total_force_accepts: int
    total_rejects: int
    total_skips: int
    test: dict[str, SplitScore]
    test_delta_hard: float | None
    final_test_delta_hard: float | None
    val_test_gap_best: float | None
    usage: LedgerTotals
    optimizer_prompt_tokens_per_step: float
    total_wall_time_s: float
    config_changes: tuple[ConfigChange, ...] = ()
    config: dict[str, Any] = attrs.field(factory=dict)
    finished_at: str = ""

    @property
    def exit_code(self) -> int:
        return EXIT_CODES.get(self.status, 1)
