"""One night: harvest → mine → split → the training engine → stage.

Nothing live is written during a night. The learning is one run of the training
engine (:mod:`skillopt_sleep.learn.tonight`) in the project's sleep state
(``runs/night-NNNN``): the night's single reflection proposes rules, the ``one-edit``
search puts them to the gate one at a time against the current documents on the val
tasks (then all usable ones together when none passed alone), and the survivors are
re-checked on *fresh* samples against a fresh baseline. The test split, when
configured, is scored before and after and only reported. A spent budget stops the
night cleanly: edits already validated by the gate are staged, nothing else is. The
report is read from the run's records.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime

import attrs

from skillopt.api import BudgetExceeded, to_data
from skillopt_sleep import documents
from skillopt_sleep.learn import tonight
from skillopt_sleep.mine import gather
from skillopt_sleep.mine.tasks import SleepTask
from skillopt_sleep.night import HandoffWaiting, Night, NightResult
from skillopt_sleep.options import SleepOptions
from skillopt_sleep.replay import pin
from skillopt_sleep.report import HarvestSummary, NightReport, NightUsage, Scores, TargetRow, history_row

__all__ = ["HandoffWaiting", "Night", "NightResult", "run_night"]


def run_night(
    opts: SleepOptions, *, clients=None, dry_run: bool = False, now: datetime | None = None, tasks: list[SleepTask] | None = None,
    progress: bool = False,
) -> NightResult:
    """Run one night and (unless ``dry_run``) stage an accepted proposal and save state.
    ``tasks`` (a reviewed tasks file) replaces harvesting and mining; ``progress`` shows
    the stages, the backends and each replay's items on stderr (rich)."""
    from skillopt_sleep import clients as client_mod
    from skillopt_sleep.replay.handoff import handoff_backend

    project = opts.project_path
    if not project.is_dir():
        from skillopt.api import ConfigError

        raise ConfigError(f"--project: {project} is not a directory")
    from skillopt_sleep import prompts

    prompts.overrides()  # a broken prompt file stops the night here, with one line, not mid-replay
    if clients is None:
        from skillopt_sleep.stage.layout import sleep_dir

        handoff_dir = sleep_dir(project) / "handoff" if "handoff" in (opts.backend, opts.optimizer_backend) else None
        clients = client_mod.build(opts, handoff_dir=handoff_dir)
    reporter = None
    if progress:
        from skillopt.api import RichReporter

        reporter = RichReporter(clients.ledger)
    night = Night(opts, clients, dry_run=dry_run, now=now, reporter=reporter)
    night.say("backends: " + clients.describe())
    try:
        result = _run(night, tasks)
    finally:
        night.reporter.close()
    backend = handoff_backend(clients)
    if backend is not None and backend.dir.is_dir():
        if dry_run:
            pin.clear(backend.dir)  # the night is over: the next run harvests afresh
        else:  # answered prompts (and the pinned tasks) stay reviewable; the next night starts clean
            from skillopt_sleep.replay.handoff import archive

            archive(backend.dir, night.night)
    return result


def _run(night: Night, given: list[SleepTask] | None = None) -> NightResult:
    opts = night.opts
    pinned = pin.load(night.handoff_dir, opts, given) if night.handoff_dir is not None else None
    sessions = []
    if pinned is not None:  # a pending handoff round: same tasks, no re-harvest
        night.gathered = pinned.gathered
        night.notes.append(f"resuming the handoff round pinned in {pinned.path} ({len(pinned.tasks)} task(s))")
    elif given is not None:
        night.gathered = attrs.evolve(night.gathered, harvest=HarvestSummary(tasks_file=True))
    else:
        sessions = list(night.harvest().sessions)
    if pinned is not None:
        agent = opts.agent or night.gathered.agent or "claude-code"
    else:
        agent = opts.agent or (Counter(s.source for s in sessions).most_common(1)[0][0] if sessions else "claude-code")
        night.gathered = attrs.evolve(night.gathered, sources=tuple(sorted({s.source for s in sessions})))
    night.gathered = attrs.evolve(night.gathered, agent=agent)
    targets = documents.resolve_targets(night.project, agent, skill_path=opts.target_skill_path, memory=opts.memory)
    docs = [documents.load(t) for t in targets]
    if night.state.last_model_key and night.state.last_model_key != night.clients.model_key:
        night.notes.append(
            f"models changed since last night ({night.state.last_model_key} → {night.clients.model_key}); "
            "scores are not comparable"
        )
    status, reason = "nothing_learned", ""
    tasks: list[SleepTask] = []
    learned = None
    try:
        if not sessions and given is None and pinned is None:
            status, reason = "no_sessions", "no sessions found for this project in the harvest window"
        else:
            tasks = gather.tonight(night, sessions, given, pinned)
            splits = Counter(t.split for t in tasks)
            night.say(f"tasks: {len(tasks)} (" + ", ".join(f"{k} {splits[k]}" for k in ("train", "val", "test") if splits[k]) + ")")
            missing = gather.shortfall(tasks, opts.min_val_items, night.gathered.mining)
            if missing:
                night.say(missing)
                status, reason = "too_few_tasks", missing
            else:
                learned = tonight.learn(night, tasks, docs, tonight.run_dir(night, resume=pinned is not None))
                status, reason = learned.outcome.status, learned.outcome.reason
                if learned.outcome.budget_stop:
                    night.note(f"budget stop: {learned.outcome.budget_stop}")
    except BudgetExceeded as exc:  # spent before the engine ran (mining, dreams)
        night.note(f"budget stop: {exc}")
        status, reason = "budget_stopped", f"budget spent ({exc}); nothing was validated"
    stopped = status == "budget_stopped" or (learned is not None and bool(learned.outcome.budget_stop))
    skill_results, skill_proposals = [], []
    if opts.fan_out and tasks and not stopped:
        from skillopt_sleep import fanout

        skill_results, skill_proposals = fanout.consolidate_skills(night, tasks, docs)
    report = night.report(
        status=status,
        reason=reason,
        targets=tuple(TargetRow(role=d.role, path=str(d.path), exists=d.original is not None) for d in docs),
        scores=learned.scores if learned is not None else Scores(metric=night.metric),
        per_task=learned.per_task if learned is not None else (),
        accepted_edits=learned.outcome.accepted if learned is not None else (),
        usage=NightUsage.of(night.clients.ledger.totals()),
        finished=datetime.now(UTC).isoformat(timespec="seconds"),
        skills=tuple(skill_results),
    )
    return _finish(night, report, docs, learned.docs if learned is not None else docs, skill_proposals)


def _finish(night: Night, report: NightReport, docs, final_docs, skill_proposals=()) -> NightResult:
    from skillopt_sleep.fsutil import ensure_dir
    from skillopt_sleep.state import project_state_dir

    staging = None
    adopted = False
    night.evidence.add("cycle", "end", status=report.status, reason=report.reason)
    if night.dry_run:
        night.evidence.write(
            ensure_dir(project_state_dir(night.project) / "evidence") / f"dryrun-{night.now:%Y%m%d-%H%M%S}.jsonl"
        )
        return NightResult(status=report.status, reason=report.reason, report=report)
    if report.accepted_edits or skill_proposals:
        from skillopt_sleep.stage.writer import stage

        staging = stage(
            night.project, night=night.night, report=report, evidence=night.evidence, before=docs,
            after=final_docs if report.accepted_edits else docs, skills=skill_proposals, now=night.now,
        )  # fmt: skip
        report = attrs.evolve(report, staging=str(staging))
        if night.opts.auto_adopt and report.accepted_edits:  # per-skill proposals are always adopted by hand
            from skillopt_sleep.adopt.adopt import adopt

            adopt(night.project, staging.name)
            adopted = True
    else:
        night.evidence.write(ensure_dir(project_state_dir(night.project) / "evidence") / f"night-{night.night:04d}.jsonl")
    st = night.state
    st.nights = night.night
    st.last_harvest["*"] = night.now.isoformat(timespec="seconds")
    st.last_model_key = night.clients.model_key
    st.history.append(history_row(report))
    st.task_archive.extend(  # recalled rows are archived already; dreams are never real tasks
        to_data(row) for row in report.tasks if not row.id.startswith(("recall:", "dream:"))
    )
    st.save()
    return NightResult(status=report.status, reason=report.reason, report=report, staging=staging, adopted=adopted)
