"""One learning pass of a night through the engine, and what it adds to the night's report.

The pass is one engine run (:func:`skillopt_sleep.learn.engine.learn`) in its own
directory under the project's sleep state (``runs/night-NNNN``; a fan-out skill's
``runs/night-NNNN-skill-NAME``), kept so ``skillopt report``, ``skillopt ui`` and
``skillopt blame`` read a night like a run. The directory is chosen before mining and
holds tonight's tasks too (:data:`skillopt_sleep.mine.gather.TASKS_FILE`): a handoff
round that paused resumes the same directory, on the same tasks; any other night gets
a directory of its own. What the run decided is read back from it
(:mod:`skillopt_sleep.learn.outcome`) into the night's trials, rejected edits,
notes, contrast and evidence log.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import attrs

from skillopt_sleep.documents import Doc
from skillopt_sleep.learn.outcome import Outcome
from skillopt_sleep.mine.tasks import SleepTask
from skillopt_sleep.report import Scores, TaskScore


@attrs.frozen(kw_only=True)
class Learned:
    """A pass's outcome, with the documents it ends with and its report rows."""

    outcome: Outcome
    docs: list[Doc]
    scores: Scores
    per_task: tuple[TaskScore, ...]
    run_dir: Path


def _tell(night, got: Outcome, metric: str) -> None:
    """The night's lines on stderr: each replay (attempts, score, failures) and each gate decision."""
    for result in got.replays:
        failed = [a.feedback for a in result.attempts if a.status == "error"]
        night.say(f"replay {result.phase}: {len(result.attempts)} attempt(s), {metric} {result.evaluation().mean(metric):.2f}"
                  + (f", {len(failed)} failed (first: {failed[0][:120]})" if failed else ""))
    for trial in got.trials:
        shown = (trial.label.splitlines() or [""])[0][:80]
        verdict = trial.verdict
        night.say(f"gate {shown}: {'accept' if verdict.accepted else 'reject'} ({verdict.reason})")


def run_dir(night, suffix: str = "", *, resume: bool = False) -> Path:
    """The pass's run directory: ``resume`` (a pending handoff round) takes the latest
    one of this night, if any; otherwise a name no earlier run used."""
    from skillopt_sleep.state import project_state_dir

    root = project_state_dir(night.project) / "runs"
    stem = f"{'dryrun' if night.dry_run else 'night'}-{night.night:04d}{suffix}"
    names = [stem] + [f"{stem}-{n}" for n in range(2, 1000)]
    used = [root / name for name in names if (root / name).exists()]
    if resume and used:
        return used[-1]
    return next(root / name for name in names if not (root / name).exists())


def learn(night, tasks: Sequence[SleepTask], docs: Sequence[Doc], out: Path, *,
          editable: tuple[str, ...] = ("skill", "memory"), prefix: str = "") -> Learned:
    """Learn on ``tasks`` in the engine run ``out``; the night's report records are
    extended with what it decided. A pass waiting for handoff answers stops the round
    (:class:`~skillopt_sleep.replay.handoff.HandoffWaiting`); a spent budget is the outcome's
    ``budget_stop``."""
    from skillopt.api import RunStatus
    from skillopt_sleep.learn import engine, outcome
    from skillopt_sleep.nightenv import docs_of

    opts = night.opts
    llm = night.llm_reflection()
    reflectors = tuple(name for name, on in (("heuristic", opts.reflector in ("heuristic", "auto")), ("llm", llm)) if on)
    rollouts = opts.dream_rollouts if llm else 1
    if rollouts < opts.dream_rollouts:
        night.note("--dream-rollouts ignored: contrastive reflection needs the LLM reflector")
    summary = engine.learn(opts, tasks, docs, night.clients, out, reflectors=reflectors, reporter=night.reporter,
                           rollouts=rollouts, editable=editable, once=True)
    if summary.status is RunStatus.AWAITING_ANSWERS:
        night.handoff_stop()
    got = outcome.read(out, summary, gate=opts.gate, prefix=prefix, metric=opts.gate_metric)
    _tell(night, got, opts.gate_metric)
    for text in got.notes:
        night.note(text)
    night.trials += list(got.trials)
    night.rejected += list(got.rejected)
    if got.contrast is not None:
        night.contrast = got.contrast
    for stage, event, fields in got.events:
        night.evidence.add(stage, event, **fields)
    final = docs_of(docs, got.skill) if got.accepted else list(docs)
    metric = opts.gate_metric
    scores = Scores(metric=metric, baseline_val=outcome.mean(got.base_val, metric), final_val=outcome.mean(got.cur_val, metric),
                    baseline_test=outcome.mean(got.test_before, metric), final_test=outcome.mean(got.test_after, metric))
    rows = outcome.task_scores(tasks, got.base_val, got.cur_val, "val", metric)
    rows += outcome.task_scores(tasks, got.test_before, got.test_after, "test", metric)
    return Learned(outcome=got, docs=final, scores=scores, per_task=tuple(rows), run_dir=out)
