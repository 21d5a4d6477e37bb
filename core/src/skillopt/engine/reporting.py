"""What the trainer tells the user and writes to ``history.json``: step records, the
step and baseline lines, and the checks that stop a run that cannot learn."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from skillopt.engine.context import RunContext, StepPlan
from skillopt.engine.rundir import RunDir, RunFileError, read_json, write_json
from skillopt.records import StepAction, StepRecord, skill_hash
from skillopt.results import RunStatus

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from skillopt.calls import Ledger
    from skillopt.calls.ledger import StageTotals
    from skillopt.engine.stages.race import RaceResult
    from skillopt.engine.state import TrainState
    from skillopt.engine.step import StepOutcome
    from skillopt.engine.summary import Stop


#: replies the baseline must have, all cut and none scoring, before the run stops early
TRUNCATION_EVIDENCE = 10


def truncation_stop(run: RunContext, ledger: Ledger, state: TrainState, *, target: StageTotals | None = None) -> Stop | None:
    """A :class:`~skillopt.engine.summary.Stop` when every one of (enough) target replies
    so far was cut at its cap and nothing scored: the run could not learn anything.
    ``target``: the target's totals to judge (default: the whole ledger's so far)."""
    from skillopt.engine.summary import Stop

    target = target if target is not None else ledger.totals().role("target")
    if target.calls >= TRUNCATION_EVIDENCE and target.truncated == target.calls and not state.baseline_score:
        return Stop(status=RunStatus.TARGET_TRUNCATED, role="target",
                    reason=f"every target reply ({target.calls}) was cut at its token cap and the baseline scored 0")
    return None


def baseline_line(run: RunContext, state: TrainState, ledger: Ledger, missing: dict[str, str], *,
                  target: StageTotals | None = None) -> str:
    from skillopt.engine.summary import target_cap_setting

    e = run.cfg.evaluation
    n = len(run.data.val)
    scored = f"{n - len(missing)} of {n}" if missing else f"{n}"
    held = (f" ({len(run.data.selection)} more held out as the selection split: no gate decision uses them)"
            if run.data.selection else "")
    text = f"baseline val {e.gate_metric} {state.baseline_score or 0.0:.3f} on {scored} items{held}; {run.data.total_steps} steps planned"
    if missing:
        reasons = Counter(r[:80] for r in missing.values())
        text += (f"\n[yellow]warning:[/yellow] {len(missing)} of {n} val items got no answer "
                 f"({'; '.join(f'{r} ×{c}' if c > 1 else r for r, c in reasons.most_common(3))}): "
                 "left out of the baseline, asked again at the next evaluation")
    target = target if target is not None else ledger.totals().role("target")
    if target.calls and target.truncated * 2 > target.calls:
        text += (f"\n[yellow]warning:[/yellow] {target.truncated} of {target.calls} target replies were cut at their token cap "
                 f"({target_cap_setting(run.cfg)})")
    return text


def _rate(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def step_record(run: RunContext, plan: StepPlan, action: StepAction, outcome: StepOutcome, *, state: TrainState, usage: Any,
                skill_len: int) -> StepRecord:
    """The ``history.json`` line of a committed step: its outcome, the state after it, and
    ``usage``, what the step spent over every session of the run."""
    st = state
    rollouts = outcome.rollout.rollouts
    scored = [ro for ro in rollouts if not ro.missing]
    statuses = [r.status for r in (outcome.apply.results if outcome.apply else ())]
    gated = outcome.gate
    verdict = gated.verdict if gated else None
    patches = outcome.reflect.patches
    race = getattr(outcome, "race", None)
    return StepRecord(
        step=plan.step, epoch=plan.epoch, step_in_epoch=plan.index + 1, action=action,
        edit_budget=outcome.select.budget if outcome.select and outcome.select.budget is not None else (plan.told if plan.told is not None and run.policy.uses_budget else -1),
        rollout_hard=_rate([ro.score.hard for ro in scored]), rollout_soft=_rate([ro.score.soft for ro in scored]),
        rollout_n=len(rollouts), rollout_errors=len(rollouts) - len(scored),
        n_failure_patches=sum(1 for p in patches if p.source_type == "failure"),
        n_success_patches=sum(1 for p in patches if p.source_type == "success"),
        reflect_failures=len(outcome.reflect.failures), reflect_failure_reasons=outcome.reflect.failures,
        reflect_missing=len(outcome.reflect.missing), n_edits_proposed=outcome.reflect.n_proposed,
        n_edits_merged=outcome.merge.merged.size if outcome.merge and outcome.merge.merged else 0,
        n_edits_selected=outcome.select.selected.size if outcome.select else 0,
        n_edits_applied=statuses.count("applied"), n_edits_not_applied=len(statuses) - statuses.count("applied"),
        candidate_hash=skill_hash(outcome.candidate), candidate_len=len(outcome.candidate),
        selection_hard=gated.candidate.hard if gated else None, selection_soft=gated.candidate.soft if gated else None,
        candidate_gate_score=gated.candidate.gate_score if gated else None, verdict=verdict,
        gate_items=verdict.n_items if verdict else 0, gate_excluded=len(verdict.excluded) if verdict else 0,
        gate_rollouts_saved=gated.rollouts_saved if gated else 0,
        current_score=st.current_score, best_score=st.best_score, best_step=st.best_step,
        current_origin=st.current_origin, best_origin=st.best_origin, skill_len=skill_len,
        prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
        optimizer_prompt_tokens=usage.role("optimizer").prompt_tokens, calls=usage.calls, cost_usd=round(usage.cost_usd, 8),
        cached_calls=usage.cached_calls, cached_tokens=usage.cached_tokens, cached_cost_usd=round(usage.cached_cost_usd, 8),
        timing=dict(outcome.timing), wall_time_s=round(sum(outcome.timing.values()), 3), notes=outcome.notes,
        proposals=getattr(outcome, "proposals", 1), raced=len(race.entrants) if race and len(race.entrants) > 1 else 0,
        race_winner=race.won.proposal if race else 0,
    )


COLOURS = {"accept": "green", "accept_new_best": "green", "force_accept": "yellow", "reject": "red"}


def step_line(rec: StepRecord, total_steps: int, outcome: StepOutcome) -> str:
    colour = COLOURS.get(rec.action.value, "dim")
    gate = ""
    v = rec.verdict
    if v is not None and v.details.get("refused"):
        gate = f" ({v.reason})"
    elif v is not None:
        gate = f" val {rec.candidate_gate_score:.3f} vs {v.current_score:.3f}"
        extra = []
        if v.confidence is not None:
            extra.append(f"confidence {v.confidence:.3f}")
        raced = v.details.get("raced_items")
        if raced:
            extra.append(f"raced: decided on the first {raced} val items, {rec.gate_rollouts_saved} rollouts saved")
        elif v.looks > 1 or v.repeats > 1:
            extra.append(f"{v.looks} look{'s' if v.looks > 1 else ''}, {v.repeats} repeat{'s' if v.repeats > 1 else ''}/item")
        if v.excluded:
            reasons = Counter(r.split(": ", 1)[-1][:60] for r in v.excluded.values())
            extra.append(f"{len(v.excluded)} of {v.n_items + len(v.excluded)} val items failed: "
                         f"{'; '.join(reasons)}; excluded from the comparison")
        if extra:
            gate += f" ({', '.join(extra)})"
    line = (
        f"step {rec.step}/{total_steps} (epoch {rec.epoch}): [{colour}]{rec.action.value}[/{colour}]{gate} · "
        f"train {rec.rollout_hard:.2f} · edits {rec.n_edits_applied}/{rec.n_edits_selected} applied "
        f"(B={rec.edit_budget}) · {rec.calls} calls, {rec.prompt_tokens + rec.completion_tokens} tok"
        + (f", ${rec.cost_usd:.4f}" if rec.cost_usd else "") + cached_text(rec)
    )
    race = getattr(outcome, "race", None)
    if race is not None and len(race.entrants) > 1:
        line += "\n  " + race_line(race)
    if rec.rollout_errors:
        line += f"\n  [yellow]{rec.rollout_errors} of {rec.rollout_n} train rollouts got no answer; left out of reflection[/yellow]"
    if rec.reflect_failure_reasons:
        line += "\n  [yellow]analyst replies unusable:[/yellow] " + "; ".join(dict.fromkeys(rec.reflect_failure_reasons))
    if rec.reflect_missing:
        line += f"\n  [yellow]{rec.reflect_missing} analyst call(s) got no reply (provider errors); their trajectories were skipped[/yellow]"
    return line


def cached_text(rec: StepRecord) -> str:
    """``" + 12 cached (3400 tok, $0.0100 saved)"``: the calls of a step the cache answered."""
    if not rec.cached_calls:
        return ""
    saved = f", ${rec.cached_cost_usd:.4f}" if rec.cached_cost_usd else ""
    return f" + {rec.cached_calls} cached ({rec.cached_tokens} tok{saved} saved)"


def race_line(race: RaceResult) -> str:
    """``race of 3 proposals: p1 won (val 0.625); p0 0.500 (round 2), p2 refused`` for the step line."""
    won = race.won
    others = ", ".join(f"p{e.proposal} " + (f"{e.score:.3f} (round {e.round})" if e.round else "refused")
                       for e in race.losers)
    return (f"race of {len(race.entrants)} proposals: p{won.proposal} won (val {won.score:.3f} on {won.items} items)"
            + (f"; {others}" if others else ""))


def load_history(rundir: RunDir) -> list[dict[str, Any]]:
    """``history.json``; when it is damaged (a torn write, an editor), rebuilt from the
    per-step ``step_record.json`` files, the damaged copy kept beside it. Nothing is lost:
    every step record is written before history.json is. A list holding anything but
    records (``[1, 2]``) is damaged too."""
    try:
        history = read_json(rundir.history, [], expect=list) or []
        stray = next((n for n, entry in enumerate(history, 1) if not isinstance(entry, dict)), None)
        if stray is None:
            return history
        problem = (f"{rundir.history} holds a JSON {type(history[stray - 1]).__name__} as entry {stray}, "
                   "not the step record a run writes there")
    except RunFileError as exc:
        problem = exc.args[0].split(";")[0]
    from skillopt.engine.rundir import move_aside

    records = rebuilt_history(rundir.root)
    aside = move_aside(rundir.history)
    write_json(rundir.history, records)
    from skillopt.report import warn

    warn(f"{problem}; rebuilt it from {len(records)} step records (the damaged copy is {aside.name})")
    return records


def rebuilt_history(root: Path, read: Callable[[Path], Any] | None = None) -> list[dict[str, Any]]:
    """``history.json``'s step entries rebuilt from ``steps/step_*/step_record.json`` (each
    written before history.json is). The one way a damaged history is read, by a resume and
    by the dashboard: ``read(path)`` gives a file's JSON or None when it is unreadable (the
    dashboard's never follows a planted link); a damaged step record is left out."""
    from pathlib import Path

    def engine_read(path: Path) -> Any:
        try:
            return read_json(path, None, expect=dict)
        except RunFileError:
            return None

    read = read or engine_read
    records = []
    for path in sorted(Path(root).glob("steps/step_*/step_record.json")):
        entry = read(path)
        if isinstance(entry, dict):
            records.append({"kind": "step", **entry})
    return records


def append_history(rundir: RunDir, entry: dict[str, Any], step: int | None = None) -> None:
    """Add (or replace, for a re-committed step) one entry of ``history.json``."""
    history = load_history(rundir)
    if step is not None:
        history = [h for h in history if not (h.get("kind", "step") == "step" and h.get("step") == step)]
        entry = {"kind": "step", **entry}
    write_json(rundir.history, [*history, entry])


def append_lr_decision(rundir: RunDir, step: int, decision: dict[str, Any]) -> None:
    path = rundir.root / "lr_history.json"
    try:
        saved = read_json(path, [], expect=list) or []
    except RunFileError as exc:  # a log nothing is computed from: kept aside, started afresh
        from skillopt.engine.rundir import move_aside
        from skillopt.report import warn

        warn(f"{exc.args[0].split(';')[0]}; started a new one (the damaged copy is {move_aside(path).name})")
        saved = []
    rows = [r for r in saved if isinstance(r, dict) and r.get("step") != step]
    write_json(path, [*rows, {"step": step, **decision}])


def step_entries(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The step records of a ``history.json`` (config-change events left out)."""
    return [h for h in history if h.get("kind", "step") == "step"]
