"""How a run ended, told truthfully: the status (one exit code per way of ending), the
reason, the setting to change, and the ``summary.json`` record. Pure functions of
what the trainer hands them; the trainer writes the files."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from skillopt import __version__
from skillopt.calls.ledger import LedgerTotals
from skillopt.engine.context import RunData
from skillopt.engine.lift import bootstrap_lift, describe as describe_lift
from skillopt.engine.rundir import RUN_LAYOUT
from skillopt.engine.stages.records import FinalEvalResult
from skillopt.records import StepAction
from skillopt.results import FinalPick, GateInfo, RunStatus, RunSummary, ValSummary

if TYPE_CHECKING:
    from skillopt.config.schema import RunConfig
    from skillopt.engine.selection import FinalPickResult
    from skillopt.engine.stages.records import GateResult
    from skillopt.engine.state import TrainState
    from skillopt.gates import Gate


def target_cap_setting(cfg: RunConfig) -> str:
    """The key that caps a target reply's tokens."""
    return "model.target.max_tokens" if cfg.model.target.max_tokens is not None else "env.max_completion_tokens"


def budget_advice(reason: str) -> str:
    for key, flag in (("max_calls", "--max-calls"), ("max_cost_usd", "--max-cost"), ("max_tokens", "--max-tokens")):
        if key in reason:
            return f"raise budget.{key} ({flag}) and re-run the same command to resume"
    return "raise the budget and re-run to resume"


def outage_advice(reason: str, role: str) -> str:
    setting = f"model.{role}.timeout_s" if re.search(r"time(d)? ?out", reason, re.I) else f"model.{role}.backend / model.{role}.base_url"
    return f"the {role} provider did not answer: check {setting}, then re-run the same command to resume"


def optimizer_advice(history: list[dict[str, Any]]) -> str:
    reasons = [r for h in history for r in h.get("reflect_failure_reasons", [])]
    if any("model.optimizer.max_tokens" in r for r in reasons):
        return "every analyst reply was cut at its token cap: raise model.optimizer.max_tokens"
    if any("gradient.minibatch_size" in r for r in reasons):
        return "every analyst prompt was too long: lower gradient.minibatch_size or gradient.max_trajectory_chars"
    return "the optimizer model could not produce the JSON the analysts need: choose a stronger model.optimizer.model"


@attrs.frozen(kw_only=True)
class Stop:
    """Why a run stopped before its last step, and which model role was at fault."""

    status: RunStatus
    reason: str
    role: str = ""


def classify(cfg: RunConfig, state: TrainState, totals: LedgerTotals, stopped: Stop | None, history: list[dict[str, Any]]) -> tuple[RunStatus, str, str]:
    """(status, reason, advice) of the run as it ends."""
    if stopped is not None:
        status, reason = stopped.status, stopped.reason
        if status is RunStatus.BUDGET_EXHAUSTED:
            return status, reason, budget_advice(reason)
        if status is RunStatus.PROVIDER_OUTAGE:
            return status, reason, outage_advice(reason, stopped.role or "target")
        if status is RunStatus.AWAITING_ANSWERS:
            return status, reason, "answer the waiting prompts, then re-run the same command"
        return status, reason, f"raise {target_cap_setting(cfg)}"
    actions = [h.get("action") for h in history]
    if actions and all(a == StepAction.SKIP_REFLECT_FAILED for a in actions):
        return RunStatus.OPTIMIZER_FAILED, f"no step could reflect: all {len(actions)} steps' analyst calls failed", optimizer_advice(history)
    target = totals.role("target")
    nothing_scored = not state.best_score and not any(h.get("rollout_hard") or h.get("rollout_soft") for h in history)
    if target.calls and target.truncated == target.calls and nothing_scored:
        setting = target_cap_setting(cfg)
        return (RunStatus.TARGET_TRUNCATED, f"every target reply ({target.calls}) was cut at its token cap and none scored",
                f"raise {setting}")
    return RunStatus.FINISHED, "", ""


def build_summary(*, cfg: RunConfig, env_name: str, root: Path, best_skill: Path, gate: Gate, data: RunData, state: TrainState, history: list[dict[str, Any]],
                  final: FinalEvalResult | None, totals: LedgerTotals, ending: tuple[RunStatus, str, str],
                  config_data: dict[str, Any], picked: FinalPickResult | None = None,
                  recheck: GateResult | None = None) -> RunSummary:
    """The ``summary.json`` record of a run as it ends."""
    status, reason, advice = ending
    st = state
    test = dict(final.test) if final else {}
    actions = [h.get("action", "") for h in history]
    return RunSummary(
        version=f"skillopt-core-{__version__}", status=status, stopped_reason=reason, advice=advice,
        env=env_name, out_dir=str(root), best_skill=str(best_skill),
        gate=GateInfo(name=gate.name, metric=cfg.evaluation.gate_metric, use_gate=cfg.evaluation.use_gate),
        val=ValSummary(
            n=len(data.val), baseline_gate_score=final.initial_val_score if final else st.baseline_score,
            best_gate_score=final.best_val_score if final and final.best_val_score is not None else st.best_score,
            final_gate_score=final.final_val_score if final else st.current_score,
            final_hard=final.final_hard if final else _last(history, "selection_hard", st.current_score),
            final_soft=final.final_soft if final else _last(history, "selection_soft", st.current_score),
        ),
        best_step=st.best_step, best_origin=st.best_origin, current_origin=st.current_origin,
        total_steps=data.total_steps, steps_completed=st.last_completed_step,
        total_accepts=sum(1 for a in actions if a in ("accept", "accept_new_best")),
        total_force_accepts=actions.count("force_accept"), total_rejects=actions.count("reject"),
        total_skips=sum(1 for a in actions if str(a).startswith("skip")),
        test=test,
        test_delta_hard=(test["best"].hard - test["initial"].hard) if test else None,
        final_test_delta_hard=(test["final"].hard - test["initial"].hard) if test else None,
        val_test_gap_best=(st.best_score - test["best"].hard) if test and cfg.evaluation.gate_metric == "hard" else None,
        usage=totals, optimizer_prompt_tokens_per_step=_per_step(history, "optimizer_prompt_tokens"),
        total_wall_time_s=round(st.wall_time_s, 2), config_changes=tuple(st.config_changes), config=config_data,
        test_lift=bootstrap_lift([list(final.test_item_lift.values())], seed=cfg.train.seed) if final else None,
        finished_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"), run_layout=RUN_LAYOUT, selection=final_pick(picked),
        recheck=recheck.verdict if recheck is not None else None,
    )


def final_pick(picked: FinalPickResult | None) -> FinalPick | None:
    """The summary's account of the final pick (:mod:`skillopt.engine.selection`)."""
    if picked is None:
        return None
    chosen = picked.picked
    return FinalPick(rule=picked.rule, split=picked.split, n_items=picked.n_items, finalists=len(picked.finalists),
                     on_front=sum(1 for f in picked.finalists if f.on_front), origin=chosen.origin,
                     objectives=dict(chosen.objectives), val_score=chosen.val_score, reason=picked.reason)


def pick_words(pick: FinalPick) -> str:
    """``picked on the selection split (12 items no gate decision used) by 'smallest': …``"""
    where = (f"the selection split ({pick.n_items} items no gate decision used)" if pick.split == "selection"
             else f"val (the gate's own {pick.n_items} items)")
    return f"picked among {pick.finalists} kept skills on {where} by '{pick.rule}': {pick.reason}"


def _last(history: list[dict[str, Any]], key: str, default: float) -> float:
    values: list[Any] = [h.get(key) for h in history if h.get(key) is not None]
    return float(values[-1]) if values else float(default)


def _per_step(history: list[dict[str, Any]], key: str) -> float:
    values = [h.get(key, 0) for h in history]
    return round(sum(values) / len(values), 1) if values else 0.0


def final_line(s: RunSummary) -> str:
    if s.status is not RunStatus.FINISHED:
        head = f"[red]stopped ({s.status.value}):[/red] {s.stopped_reason}."
        if s.advice:
            head += f" {s.advice[0].upper()}{s.advice[1:]}."
        return head + f" Best so far: {s.best_skill} (val {s.val.best_gate_score:.3f})"
    origin = f"from {s.best_origin}" + (f"; {pick_words(s.selection)}" if s.selection else "")
    parts = [f"done ({s.status.value}): best skill {s.best_skill} ({origin})",
             f"val {s.val.baseline_gate_score or 0.0:.3f} -> {s.val.best_gate_score:.3f}"]
    if s.test:
        lift = describe_lift(s.test_lift)
        parts.append(f"test hard initial {s.test['initial'].hard:.3f} -> best {s.test['best'].hard:.3f}" + (f", {lift}" if lift else ""))
    return "; ".join(parts)
