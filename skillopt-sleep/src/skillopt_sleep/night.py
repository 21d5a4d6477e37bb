"""One night in progress: what it harvested and gathered, what it decided, its notes.

:func:`skillopt_sleep.cycle.run_night` drives a night: harvest (:meth:`Night.harvest`),
tonight's tasks (:mod:`skillopt_sleep.mine.gather`), the learning pass through the
training engine (:mod:`skillopt_sleep.learn.tonight`), then staging. A :class:`Night`
holds what those stages found, in typed records, and assembles the
:class:`~skillopt_sleep.report.NightReport` at the end.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import attrs

from skillopt.api import EvaluationConfig
from skillopt_sleep.evidence import EvidenceLog
from skillopt_sleep.harvest import HarvestRequest, harvest
from skillopt_sleep.learn import gating
from skillopt_sleep.options import SleepOptions
from skillopt_sleep.replay.handoff import handoff_backend
from skillopt_sleep.report import ContrastSummary, Gathered, HarvestSummary, NightReport, RejectedEdit, Trial
from skillopt_sleep.state import SleepState


class HandoffWaiting(Exception):
    """Prompts were written for the handoff agent; re-run to resume."""

    def __init__(self, index: Path, count: int):
        super().__init__(f"{count} prompt(s) waiting for answers: see {index}")
        self.index = index
        self.count = count


@attrs.frozen(kw_only=True)
class NightResult:
    status: str
    reason: str
    report: NightReport
    staging: Path | None = None
    adopted: bool = False


class Night:
    """The state of one night in progress (kept small: each stage is a method)."""

    def __init__(self, opts: SleepOptions, clients, *, dry_run: bool, now: datetime | None = None, reporter=None):
        from skillopt.api import NullReporter

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
        cfg = EvaluationConfig(
            gate=opts.gate,
            gate_metric=opts.gate_metric,
            gate_no_regression=opts.no_regression,
            gate_min_margin=opts.min_margin,
            gate_confidence=opts.confidence,
            gate_repeats=opts.repeats,
        )
        gating.make_gate(opts.gate, cfg)  # an unknown --gate stops the night here, with one line
        self.metric = opts.gate_metric

    def say(self, text: str) -> None:
        """One progress line on stderr; session text is shown literally (no rich markup)."""
        from rich.markup import escape

        self.reporter.line(escape(text))

    def report(self, **fields) -> NightReport:
        """The report of the night so far (``fields`` are the ones only the end knows)."""
        g = self.gathered
        return NightReport(
            night=self.night,
            project=str(self.project),
            started=self.now.isoformat(timespec="seconds"),
            dry_run=self.dry_run,
            agent=g.agent,
            sources=g.sources,
            backends=dict(self.clients.names),
            call_timeout_s=getattr(self.clients, "call_timeout_s", None),
            harvest=g.harvest,
            mining=g.mining,
            tasks=g.tasks,
            dreams=g.dreams,
            contrast=self.contrast,
            trials=tuple(self.trials),
            rejected_edits=tuple(self.rejected),
            notes=tuple(self.notes),
            **fields,
        )

    # ---------------------------------------------------------------- stages

    def harvest(self):
        since = None if self.opts.lookback_hours <= 0 else self.now - timedelta(hours=self.opts.lookback_hours)
        result = harvest(
            HarvestRequest(
                sources=self.opts.sources,
                roots=self.opts.roots,
                project=self.project,
                scope=self.opts.scope,
                since=since,
                max_sessions=self.opts.max_sessions,
            )
        )
        self.notes.extend(result.warnings)
        per_source = ", ".join(f"{n} {source}" for source, n in sorted(result.per_source.items()) if n)
        self.say(f"harvest: {len(result.sessions)} session(s)" + (f" ({per_source})" if per_source else ""))
        for line in result.left_out():
            self.say(f"harvest: {line}")
        summary = HarvestSummary(
            sessions=len(result.sessions),
            per_source=result.per_source,
            sources_tried=result.sources_tried,
            out_of_scope=result.out_of_scope,
            dropped=result.dropped,
            skipped_lines=result.skipped_lines,
            unreadable=result.unreadable,
            since=since.isoformat(timespec="seconds") if since else None,
        )
        self.gathered = attrs.evolve(self.gathered, harvest=summary)
        for s in result.sessions:
            self.evidence.add(
                "harvest",
                "session",
                id=s.id,
                source=s.source,
                turns=len(s.turns),
                ended=s.ended_at,
                first_prompt=next((t.content[:300] for t in s.turns if t.role == "user"), ""),
            )
        return result

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
        backend = handoff_backend(self.clients)
        if backend is not None:
            index = backend.write_index()
            raise HandoffWaiting(index, len(backend.pending()))
