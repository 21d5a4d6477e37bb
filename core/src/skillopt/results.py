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
from skillopt.legacy import MappingReads
from skillopt.records import StepAction

__all__ = ["EXIT_CODES", "ConfigChange", "FinalPick", "GateInfo", "Lift", "RunStatus", "RunSummary", "SeedRun", "SeedsSummary", "SplitScore", "StepAction",
           "ValSummary"]


class RunStatus(enum.StrEnum):
    """How a run ended; each stopped status has its own exit code (:data:`EXIT_CODES`)."""

    #: in progress (``runtime_state.json``), or killed before it could end; re-run to resume
    RUNNING = "running"
    #: every planned step ran (then the final evaluation, unless ``evaluation.eval_test = false``)
    FINISHED = "finished"
    #: a ``budget.*`` limit was reached; raise it and re-run to resume
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

    #: the last step completed before the resume
    after_step: int
    #: one ``key: old -> new`` line per changed result-relevant key
    changes: tuple[str, ...]
    #: local time of the resume, ``%Y-%m-%dT%H:%M:%S%z``
    at: str = ""


@attrs.frozen(kw_only=True)
class SplitScore(MappingReads):
    """One skill's evaluation on a split, with the per-task-type breakdown."""

    #: mean hard score over the scored items
    hard: float
    #: mean soft score over the scored items
    soft: float
    #: items scored (with at least one valid result)
    n: int
    #: ``skill_hash`` of the evaluated skill
    skill_hash: str
    #: items that could not be scored (provider errors), excluded from the means
    excluded: int = 0
    #: per task type: ``total`` rollouts, ``hard`` and ``soft`` means over the scored ones, ``errors`` (missing ones)
    by_task_type: dict[str, dict[str, float]] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class Lift:
    """Best minus initial on test, with a bootstrap interval over items (and seeds)."""

    #: the score compared: ``hard`` or ``soft``
    metric: str
    #: mean of the paired per-item differences (the mean over seeds of each seed's mean)
    delta: float
    #: lower end of the interval
    low: float
    #: upper end of the interval
    high: float
    #: the interval's coverage, e.g. 0.95
    confidence: float
    #: items scored on both sides (summed over seeds)
    n_items: int
    #: runs the interval spans (1 = the item bootstrap alone)
    n_seeds: int = 1
    #: bootstrap resamples drawn
    resamples: int = 2000


@attrs.frozen(kw_only=True)
class ValSummary(MappingReads):
    """The val split's scores in ``summary.json`` (gate scores on the gate's metric)."""

    #: val items the gate uses (after ``evaluation.sel_env_num``)
    n: int
    #: the initial skill's gate score (re-measured by the final evaluation, missing items asked again); None when the run
    #: stopped before its baseline
    baseline_gate_score: float | None
    #: the best skill's gate score
    best_gate_score: float
    #: the final (current) skill's gate score
    final_gate_score: float
    #: the final skill's val hard mean (without a final evaluation: the last gated candidate's, else the current score)
    final_hard: float
    #: the final skill's val soft mean (same fallback as ``final_hard``)
    final_soft: float


@attrs.frozen(kw_only=True)
class GateInfo(MappingReads):
    """Which gate decided the run's steps, on which metric."""

    #: the gate plugin (``evaluation.gate``)
    name: str
    #: ``hard``, ``soft`` or ``mixed`` (``evaluation.gate_metric``)
    metric: str
    #: ``evaluation.use_gate``: false = every candidate force-accepted (still measured)
    use_gate: bool


@attrs.frozen(kw_only=True)
class FinalPick:
    """How the final (best) skill was picked among the skills the search kept
    (``search.select``, ``evaluation.selection_split``)."""

    #: ``best``, ``smallest`` or ``weighted`` (``search.select``)
    rule: str
    #: ``selection``: a split no gate decision used; ``val``: the gate's own items (no selection split)
    split: str
    #: items of that split
    n_items: int
    #: kept skills it chose among
    finalists: int
    #: kept skills on the front of ``search.objectives``
    on_front: int
    #: the picked skill's origin (``step_NNNN`` …)
    origin: str
    #: its objectives on ``split`` (``accuracy``, ``skill_tokens``, ``rollout_tokens``)
    objectives: dict[str, float]
    #: its val gate score, as the gate measured it
    val_score: float
    #: why it was picked, one line
    reason: str = ""


@attrs.frozen(kw_only=True)
class RunSummary(MappingReads):
    """``summary.json``: how a run ended and what it produced. (It replaced the dict the
    first release handed observers: mapping reads still work, with a DeprecationWarning
    naming the attribute; so do ``val``, ``gate``, ``test`` entries and ``usage``.)"""

    #: ``skillopt-core-VERSION`` that wrote the summary
    version: str
    #: how the run ended, a :class:`RunStatus`
    status: RunStatus
    #: why the run stopped early ('' when ``finished``)
    stopped_reason: str
    #: the config key a user should change when the run did not finish
    advice: str
    #: the env's name
    env: str
    #: the run directory
    out_dir: str
    #: path of ``best_skill.md``
    best_skill: str
    #: the gate that decided, a :class:`GateInfo`
    gate: GateInfo
    #: val scores of the initial, best and final skills, a :class:`ValSummary`
    val: ValSummary
    #: the step the best skill was adopted at (0 = the initial skill)
    best_step: int
    #: the best skill's origin: ``initial_skill``, ``step_NNNN``, ``slow_update_epoch_NN`` or ``final_promoted``
    best_origin: str
    #: the final (current) skill's origin
    current_origin: str
    #: steps planned (epochs x steps per epoch, capped by ``train.max_steps``)
    total_steps: int
    #: the last committed step
    steps_completed: int
    #: steps with ``accept`` or ``accept_new_best``
    total_accepts: int
    #: steps with ``force_accept``
    total_force_accepts: int
    #: steps with ``reject``
    total_rejects: int
    #: steps with any ``skip_*`` action
    total_skips: int
    #: test scores keyed ``initial``, ``best``, ``final``; {} without a final evaluation
    test: dict[str, SplitScore]
    #: best minus initial test hard score; None without test scores
    test_delta_hard: float | None
    #: final minus initial test hard score; None without test scores
    final_test_delta_hard: float | None
    #: the best skill's val gate score minus its test hard score (only when ``gate_metric`` is ``hard``; else None)
    val_test_gap_best: float | None
    #: calls, tokens and USD of the run over every session, with the ``role/stage`` breakdown
    usage: LedgerTotals
    #: mean optimizer prompt tokens per recorded step
    optimizer_prompt_tokens_per_step: float
    #: seconds of wall time over every session of the run
    total_wall_time_s: float
    #: resumes under a changed config (``--force-config``)
    config_changes: tuple[ConfigChange, ...] = ()
    #: best over initial on test hard with its bootstrap interval over items; None without test scores
    test_lift: Lift | None = None
    #: the resolved run config, secrets redacted
    config: dict[str, Any] = attrs.field(factory=dict)
    #: local time the summary was written, ``%Y-%m-%dT%H:%M:%S%z``
    finished_at: str = ""
    #: the run directory's layout (docs/run-layout.md says what moved between layouts)
    run_layout: int = 2
    #: how the final skill was picked among the kept ones; None when the best gate score simply won
    selection: FinalPick | None = None

    @property
    def exit_code(self) -> int:
        """``skillopt run``'s exit status for ``status`` (:data:`EXIT_CODES`)."""
        return EXIT_CODES.get(self.status, 1)


@attrs.frozen(kw_only=True)
class SeedRun:
    """One seed's run in a ``--seeds`` series."""

    #: ``train.seed`` of the run
    seed: int
    #: its run directory
    out_dir: str
    #: how it ended
    status: RunStatus
    #: its test lift (None without test scores)
    test_lift: Lift | None = None


@attrs.frozen(kw_only=True)
class SeedsSummary:
    """``seeds_summary.json``: one config run under several seeds (``skillopt run --seeds``)."""

    #: the env's name
    env: str
    #: every seed's run, in the order given
    runs: tuple[SeedRun, ...]
    #: best over initial on test hard, the interval spanning seeds and items; None without test scores
    test_lift: Lift | None = None
    #: local time the summary was written
    finished_at: str = ""
