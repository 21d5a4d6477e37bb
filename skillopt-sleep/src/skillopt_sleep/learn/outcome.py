"""A night's decisions, read from its engine run: what the report and the evidence log say.

Nothing is re-run: each gate decision is a step record's verdict (plus the fresh
re-check's), the edits a step put to the gate are its ``select`` result, why an edit
could not be applied is its ``apply`` result, the per-task scores are the baseline's,
the re-check's and the final test evaluation's rollouts. The labels and phases are
the ones a night always used (``edit N: ...``, ``baseline-val``, ``gate-N``,
``final-val`` ...), so a night's evidence reads as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from skillopt.api import GateAction, RunStatus, Verdict, from_data, to_data
from skillopt_sleep.documents import DocEdit
from skillopt_sleep.learn import record
from skillopt_sleep.learn.policy import replay_of
from skillopt_sleep.replay import ReplayResult
from skillopt_sleep.report import ContrastSummary, RejectedEdit, TaskScore, Trial

BUNDLE_LABEL = "all usable edits together"
FINAL_LABEL = "final fresh check"


def rejected(edit: DocEdit, reason: str) -> RejectedEdit:
    return RejectedEdit(**{f.name: getattr(edit, f.name) for f in attrs.fields(DocEdit)}, reason=reason)


@attrs.frozen(kw_only=True)
class Outcome:
    """What one engine run of a night decided (``status`` as a night names it)."""

    status: str
    reason: str
    trials: tuple[Trial, ...] = ()
    accepted: tuple[DocEdit, ...] = ()
    rejected: tuple[RejectedEdit, ...] = ()
    #: the val replays the report's per-task val scores compare (fresh ones after a re-check)
    base_val: ReplayResult | None = None
    cur_val: ReplayResult | None = None
    test_before: ReplayResult | None = None
    test_after: ReplayResult | None = None
    notes: tuple[str, ...] = ()
    contrast: ContrastSummary | None = None
    #: the folder skill the run ends with (the initial one unless accepted)
    skill: str = ""
    budget_stop: str = ""
    #: evidence-log entries: (stage, event, fields)
    events: tuple[tuple[str, str, dict[str, Any]], ...] = ()
    #: the run's replays in the order made, each as a night's replay result (its phase named)
    replays: tuple[ReplayResult, ...] = ()


def _replay(folder: Path, phase: str) -> ReplayResult | None:
    rollouts = record.rollouts_in(folder) if folder.is_dir() else []
    return replay_of(rollouts, phase) if rollouts else None


def _doc_edit(edit, known: dict[tuple[str, str], DocEdit]) -> DocEdit:
    from skillopt_sleep.nightenv import ROLE_OF

    role = ROLE_OF.get(edit.target_file or "SKILL.md", "skill")
    return known.get((role, edit.content)) or DocEdit(doc=role, edit=attrs.evolve(edit, target_file=""))


def _undecided(summary, selected: dict[int, list], decided: set[int], known, metric: str) -> tuple[Trial, list[DocEdit]] | None:
    """The step a run stopped in before its gate decided (too few val items got an
    answer to compare, or the ones without one could change the decision): its edits
    as a *no decision* trial, the engine's reason as the verdict's."""
    if summary.status is not RunStatus.PROVIDER_OUTAGE or not selected:
        return None
    step = max(selected)
    if step in decided or not selected[step]:
        return None
    edits = [_doc_edit(e, known) for e in selected[step]]
    label = BUNDLE_LABEL if len(edits) > 1 else f"edit {step}: {edits[0].edit.content[:80]}"
    verdict = Verdict(accepted=False, action=GateAction.NO_DECISION, metric=metric, current_score=0.0, candidate_score=0.0,
                      reason=summary.stopped_reason)
    return Trial(label=label, verdict=verdict), edits


def read(run_dir: Path, summary, *, gate: str, prefix: str = "", metric: str = "mixed") -> Outcome:
    """The night's outcome of the engine run in ``run_dir`` that ended with ``summary``."""
    run_dir = Path(run_dir)
    proposals, readonly, contrast = record.proposals(run_dir)
    known = {(p.doc, p.edit.content): p for p in proposals}
    selected = record.selected_by_step(run_dir)
    trials: list[Trial] = []
    accepted: list[DocEdit] = []
    refused: list[RejectedEdit] = [rejected(p, f"the {p.doc} document is read-only in this pass") for p in readonly]
    notes: list[str] = record.notes(run_dir)
    last_accepted = 0
    for h in record.history(run_dir):
        step = h["step"]
        edits = [_doc_edit(e, known) for e in selected.get(step, [])]
        notes += [n for n in h.get("notes") or () if n not in notes]
        bundle = len(edits) > 1
        if h.get("verdict") is None:
            if edits:
                problems = [f"{r['edit']['op']} {r['status']}: {r.get('detail', '')}" for r in record.apply_results(run_dir, step)
                            if r.get("status") != "applied"]
                refused += [rejected(e, "could not be applied: " + "; ".join(problems)) for e in edits]
            continue
        verdict = from_data(h["verdict"], Verdict)
        label = BUNDLE_LABEL if bundle else f"edit {step}: {edits[0].edit.content[:80] if edits else ''}"
        trials.append(Trial(label=label, verdict=verdict))
        if h.get("action") in record.ACCEPTED:
            last_accepted = step
            if bundle:
                kept = {(e.doc, e.edit.content) for e in edits}
                refused = [r for r in refused if (r.doc, r.edit.content) not in kept]
            accepted += edits
        elif not bundle:
            refused += [rejected(e, verdict.reason) for e in edits]
    undecided = _undecided(summary, selected, {h["step"] for h in record.history(run_dir)}, known, metric)
    if undecided is not None:  # the run stopped in a gate that could not decide: a no-decision, never a score
        trial, edits = undecided
        trials.append(trial)
        refused += [rejected(e, trial.verdict.reason) for e in edits]
    base_val = _replay(run_dir / "gate_baseline", "baseline-val")
    cur_val = _replay(run_dir / "steps" / f"step_{last_accepted:04d}" / "gate", f"gate-{last_accepted}") if last_accepted else base_val
    recheck = summary.recheck
    stopped = summary.status is RunStatus.BUDGET_EXHAUSTED
    if stopped:
        status = "accepted" if accepted else "budget_stopped"
        reason = f"budget spent ({summary.stopped_reason}); " + (
            f"staging {len(accepted)} edit(s) the gate already validated (fresh final check skipped)" if accepted
            else "nothing was validated")
    elif accepted and recheck is not None:
        trials.append(Trial(label=FINAL_LABEL, verdict=recheck))
        base_val, cur_val = _replay(run_dir / "recheck" / "initial", "final-baseline"), _replay(run_dir / "recheck" / "best", "final-val")
        if recheck.accepted:
            status, reason = "accepted", f"{len(accepted)} edit(s) passed the {gate} gate and the fresh final check"
        else:
            refused += [rejected(e, "final fresh check failed: " + recheck.reason) for e in accepted]
            accepted = []
            status, reason = "rejected", "the fresh final check did not confirm the gain: " + recheck.reason
    elif accepted:  # the run stopped (an outage) before its re-check: nothing confirmed
        refused += [rejected(e, "the run stopped before the fresh final check: " + summary.stopped_reason) for e in accepted]
        accepted, cur_val = [], base_val
        status, reason = "rejected", f"the run stopped before the fresh final check ({summary.stopped_reason})"
    else:
        status, reason = "nothing_learned", "no proposed edit passed the gate" if trials else "no edit was proposed"
    if summary.status not in (RunStatus.FINISHED, RunStatus.BUDGET_EXHAUSTED) and summary.stopped_reason:
        notes.append(f"the engine run stopped: {summary.stopped_reason}")
    test_before = test_after = None
    if status == "accepted" and not stopped:
        test_before = _replay(run_dir / "final_eval" / "test_initial", "test-baseline")
        test_after = _replay(run_dir / "final_eval" / "test_best", "test-final")
    best = run_dir / "best_skill.md"
    skill = best.read_text(encoding="utf-8") if accepted and best.is_file() else ""
    replays: list[ReplayResult] = []
    events = _events(run_dir, proposals, contrast, trials, prefix, recheck is not None and not stopped and bool(trials), replays)
    return Outcome(status=status, reason=reason, trials=tuple(trials), accepted=tuple(accepted), rejected=tuple(refused),
                   base_val=base_val, cur_val=cur_val, test_before=test_before, test_after=test_after, notes=tuple(notes),
                   contrast=contrast, skill=skill, budget_stop=summary.stopped_reason if stopped else "", events=tuple(events),
                   replays=tuple(replays))


def _events(run_dir: Path, proposals, contrast, trials, prefix: str, rechecked: bool,
            made: list[ReplayResult]) -> list[tuple[str, str, dict[str, Any]]]:
    """The evidence log's replay, reflect and gate entries, in the order a night made them
    (``made`` gets each replay result)."""
    out: list[tuple[str, str, dict[str, Any]]] = []

    def replays(folder: Path, phase: str) -> None:
        result = _replay(folder, prefix + phase)
        if result is not None:
            made.append(result)
        for a in result.attempts if result is not None else ():
            out.append(("replay", result.phase, {"task": a.task_id, "repeat": a.repeat, "status": a.status, "hard": a.hard,
                                                   "soft": a.soft, "feedback": a.feedback, "answer": a.answer}))

    replays(run_dir / "gate_baseline", "baseline-val")
    for n, step in enumerate(sorted((run_dir / "steps").glob("step_[0-9][0-9][0-9][0-9]"))):
        if n == 0:  # a night's train replays are asked once; every step reads the same ones (NightEnv.rollout)
            replays(step / "rollout", "train")
        replays(step / "gate", f"gate-{int(step.name[5:])}")
    out += [("reflect", "proposal", to_data(p)) for p in proposals]
    if contrast is not None:
        out.append(("reflect", "contrast", to_data(contrast)))
    if rechecked:
        replays(run_dir / "recheck" / "initial", "final-baseline")
        replays(run_dir / "recheck" / "best", "final-val")
    replays(run_dir / "final_eval" / "test_initial", "test-baseline")
    replays(run_dir / "final_eval" / "test_best", "test-final")
    out += [("gate", "trial", {"label": prefix + t.label, "verdict": to_data(t.verdict)}) for t in trials]
    return out


def mean(result: ReplayResult | None, metric: str) -> float | None:
    return result.evaluation().mean(metric) if result is not None else None


def task_scores(tasks, before: ReplayResult | None, after: ReplayResult | None, split: str, metric: str) -> list[TaskScore]:
    """Per-task rows of ``split``: the baseline's and the final documents' score."""
    if before is None or after is None:
        return []
    b = before.evaluation().item_metric(metric, 0.5)
    a = after.evaluation().item_metric(metric, 0.5)
    rows = []
    for t in tasks:
        if t.split != split:
            continue
        x, y = b.get(t.id), a.get(t.id)
        delta = (y - x) if x is not None and y is not None else None
        rows.append(TaskScore(id=t.id, split=split, intent=t.intent[:200], baseline=x, final=y, delta=delta))
    return rows
