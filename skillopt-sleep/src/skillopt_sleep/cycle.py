"""One night: harvest → mine → the training engine → stage → adopt.

Nothing live is written during a night. :func:`run_night` reads as those five stages:

- **harvest** (:meth:`Night.harvest`): the project's sessions in the lookback window;
- **mine** (:mod:`skillopt_sleep.mine.gather`): tonight's tasks, kept in the night's
  engine run directory (``runs/night-NNNN`` in the project's sleep state) as soon as
  they are known, so a handoff round that stops resumes on the same tasks;
- **engine** (:mod:`skillopt_sleep.learn.tonight`): one run of the training engine in
  that directory: the night's single reflection proposes rules, the ``one-edit``
  search puts them to the gate one at a time against the current documents on the val
  tasks (then all usable ones together when none passed alone), and the survivors are
  re-checked on *fresh* samples against a fresh baseline. The test split, when
  configured, is scored before and after and only reported. A spent budget stops the
  night cleanly: edits already validated by the gate are staged, nothing else is;
- **stage** and **adopt** (:func:`stage_and_save`): the accepted documents become a
  proposal (adopted at once only with ``auto_adopt``), and the project's state moves
  to the next night.

A :class:`Night` holds what the stages found, as :mod:`skillopt.engine.step`'s run
context holds a step's; the report is read from the run's records.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import attrs

from skillopt.api import BudgetExceeded, to_data
from skillopt_sleep import documents
from skillopt_sleep.evidence import EvidenceLog
from skillopt_sleep.learn import tonight
from skillopt_sleep.mine import gather
from skillopt_sleep.mine.tasks import SleepTask
from skillopt_sleep.options import SleepOptions
from skillopt_sleep.replay.handoff import HandoffWaiting, handoff_backend
from skillopt_sleep.report import (
    ContrastSummary,
    Gathered,
    HarvestSummary,
    NightReport,
    NightResult,
    NightUsage,
    RejectedEdit,
    Scores,
    TargetRow,
    Trial,
    history_row,
)
from skillopt_sleep.state import SleepState

__all__ = ["HandoffWaiting", "Night", "NightResult", "run_night"]


class Night:
    """The state of one night in progress: its options and models, what the stages
    found (``gathered``), what the engine decided (``trials``, ``rejected``,
    ``contrast``), its notes, evidence log and run directory."""

    def __init__(self, opts: SleepOptions, clients, *, dry_run: bool, now: datetime | None = None, reporter=None):
        from skillopt.api import NullReporter
        from skillopt_sleep.learn.engine import check_gate

        check_gate(opts)  # an unknown --gate stops the night here, with one line
        self.opts = opts
        self.clients = clients
        self.reporter = reporter or NullReporter()  # progress on stderr; stdout stays for --json
        self.dry_run = dry_run
        self.now = now or datetime.now(UTC)
        self.project = opts.project_path
        handoff = handoff_backend(clients)
        self.handoff_dir: Path | None = handoff.dir if handoff is not None else None
        self.state = SleepState.load(self.project)
        self.night = self.state.nights + 1
        self.evidence = EvidenceLog()
        self.notes: list[str] = []
        self.gathered = Gathered()
        self.contrast: ContrastSummary | None = None
        self.trials: list[Trial] = []
        self.rejected: list[RejectedEdit] = []
        self.metric = opts.gate_metric
        #: the engine run directory holding tonight's tasks and learning (set once known)
        self.run_dir: Path | None = None

    def say(self, text: str) -> None:
        """One progress line on stderr; session text is shown literally (no rich markup)."""
        from rich.markup import escape

        self.reporter.line(escape(text))

    def note(self, text: str) -> None:
        """A note for the report (once)."""
        if text not in self.notes:
            self.notes.append(text)

    def llm_allowed(self, what: str) -> bool:
        from skillopt_sleep.clients import backend_name

        name = backend_name(self.clients, "optimizer")
        if getattr(self.opts, what) == "auto" and name in ("local",):
            return False  # a 135M model invents tasks and rules; the heuristic path is better there
        return True

    def llm_reflection(self) -> bool:
        return self.opts.reflector in ("llm", "auto") and self.llm_allowed("reflector")

    def handoff_stop(self) -> None:
        """Stop the round: the handoff agent has prompts to answer (:class:`HandoffWaiting`)."""
        backend = handoff_backend(self.clients)
        if backend is not None:
            index = backend.write_index()
            raise HandoffWaiting(index, len(backend.pending()))

    def harvest(self):
        """Stage one: the night's sessions (:func:`skillopt_sleep.harvest.harvest` over
        its window), summarised into ``gathered`` and the evidence log."""
        from skillopt_sleep.harvest import HarvestRequest, harvest as read_sessions

        opts = self.opts
        since = None if opts.lookback_hours <= 0 else self.now - timedelta(hours=opts.lookback_hours)
        result = read_sessions(HarvestRequest(sources=opts.sources, roots=opts.roots, project=self.project, scope=opts.scope,
                                              since=since, max_sessions=opts.max_sessions))
        self.notes.extend(result.warnings)
        per_source = ", ".join(f"{n} {source}" for source, n in sorted(result.per_source.items()) if n)
        self.say(f"harvest: {len(result.sessions)} session(s)" + (f" ({per_source})" if per_source else ""))
        for line in result.left_out():
            self.say(f"harvest: {line}")
        summary = HarvestSummary(
            sessions=len(result.sessions), per_source=result.per_source, sources_tried=result.sources_tried,
            out_of_scope=result.out_of_scope, dropped=result.dropped, skipped_lines=result.skipped_lines,
            unreadable=result.unreadable, since=since.isoformat(timespec="seconds") if since else None,
        )  # fmt: skip
        self.gathered = attrs.evolve(self.gathered, harvest=summary)
        for s in result.sessions:
            self.evidence.add("harvest", "session", id=s.id, source=s.source, turns=len(s.turns), ended=s.ended_at,
                               first_prompt=next((t.content[:300] for t in s.turns if t.role == "user"), ""))
        return result

    def report(self, **fields) -> NightReport:
        """The report of the night so far (``fields`` are the ones only the end knows)."""
        g = self.gathered
        return NightReport(
            night=self.night, project=str(self.project), started=self.now.isoformat(timespec="seconds"),
            dry_run=self.dry_run, agent=g.agent, sources=g.sources, backends=dict(self.clients.names),
            call_timeout_s=getattr(self.clients, "call_timeout_s", None), harvest=g.harvest, mining=g.mining,
            tasks=g.tasks, dreams=g.dreams, contrast=self.contrast, trials=tuple(self.trials),
            rejected_edits=tuple(self.rejected), notes=tuple(self.notes), **fields,
        )  # fmt: skip


def run_night(
    opts: SleepOptions, *, clients=None, dry_run: bool = False, now: datetime | None = None, tasks: list[SleepTask] | None = None,
    progress: bool = False,
) -> NightResult:
    """Run one night and (unless ``dry_run``) stage an accepted proposal and save state.
    ``tasks`` (a reviewed tasks file) replaces harvesting and mining; ``progress`` shows
    the stages, the backends and each replay's items on stderr (rich)."""
    night = _start(opts, clients, dry_run=dry_run, now=now, progress=progress)
    try:
        result = _run(night, tasks)
    finally:
        night.reporter.close()
    _settle(night)
    return result


def _start(opts: SleepOptions, clients, *, dry_run: bool, now: datetime | None, progress: bool) -> Night:
    """The night's checks (project, prompt files, gate), its models and its state."""
    from skillopt_sleep import clients as client_mod, prompts

    if not opts.project_path.is_dir():
        from skillopt.api import ConfigError

        raise ConfigError(f"--project: {opts.project_path} is not a directory")
    prompts.overrides()  # a broken prompt file stops the night here, with one line, not mid-replay
    if clients is None:
        from skillopt_sleep.stage.layout import sleep_dir

        handoff_dir = sleep_dir(opts.project_path) / "handoff" if "handoff" in (opts.backend, opts.optimizer_backend) else None
        clients = client_mod.build(opts, handoff_dir=handoff_dir)
    reporter = None
    if progress:
        from skillopt.api import RichReporter

        reporter = RichReporter(clients.ledger)
    night = Night(opts, clients, dry_run=dry_run, now=now, reporter=reporter)
    night.say("backends: " + clients.describe())
    return night


def _run(night: Night, given: list[SleepTask] | None = None) -> NightResult:
    opts = night.opts
    night.run_dir, resumed = _run_dir(night, given)
    sessions = []
    if resumed is not None:  # a pending handoff round: same tasks, no re-harvest
        night.gathered = resumed.gathered
        night.notes.append(f"resuming the handoff round pinned in {resumed.path} ({len(resumed.tasks)} task(s))")
        agent = opts.agent or night.gathered.agent or "claude-code"
    else:
        if given is not None:
            night.gathered = attrs.evolve(night.gathered, harvest=HarvestSummary(tasks_file=True))
        else:
            sessions = list(night.harvest().sessions)
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
        if not sessions and given is None and resumed is None:
            status, reason = "no_sessions", "no sessions found for this project in the harvest window"
        else:
            tasks = gather.tonight(night, sessions, given, resumed, night.run_dir)
            splits = Counter(t.split for t in tasks)
            night.say(f"tasks: {len(tasks)} (" + ", ".join(f"{k} {splits[k]}" for k in ("train", "val", "test") if splits[k]) + ")")
            missing = gather.shortfall(tasks, opts.min_val_items, night.gathered.mining)
            if missing:
                night.say(missing)
                status, reason = "too_few_tasks", missing
            else:
                learned = tonight.learn(night, tasks, docs, night.run_dir)
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
    return stage_and_save(night, report, docs, learned.docs if learned is not None else docs, skill_proposals)


def _run_dir(night: Night, given: list[SleepTask] | None) -> tuple[Path, gather.Kept | None]:
    """Tonight's engine run directory, and the tasks kept in it when it is a pending
    handoff round's (the engine then resumes its run there); otherwise a new one."""
    if night.handoff_dir is not None:
        latest = tonight.run_dir(night, resume=True)
        resumed = gather.kept(latest, night.opts, given)
        if resumed is not None:
            return latest, resumed
    return tonight.run_dir(night), None


def stage_and_save(night: Night, report: NightReport, docs, final_docs, skill_proposals=()) -> NightResult:
    """Stage what the night accepted (and adopt it with ``auto_adopt``), then move the
    project's state to the next night; a dry run only writes its evidence log."""
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


def _settle(night: Night) -> None:
    """The night is over (it did not stop for answers): a handoff night's answered
    prompts, with its task list, stay reviewable under ``handoff-done/``, and the next
    night starts clean (a dry run's task list is removed)."""
    from skillopt_sleep.replay.handoff import archive

    backend = handoff_backend(night.clients)
    into = backend.dir if backend is not None and not night.dry_run else None
    if night.run_dir is not None:
        gather.settle(night.run_dir, into=into)
    if into is not None and into.is_dir():
        archive(into, night.night)
