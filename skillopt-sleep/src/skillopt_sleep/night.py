"""One night in progress: the stages (harvest, learn, final check) as methods.

:func:`skillopt_sleep.cycle.run_night` drives them (:mod:`skillopt_sleep.mine.gather`
makes the task list); keeping the stages here and the orchestration there keeps both
readable. Edits are tried one at a time against the current documents on the val
tasks and kept only when the gate accepts; :class:`Progress` records what the gate
validated as it goes, so a budget stop still knows what may be staged. What the night
found is kept in typed records and assembled into a
:class:`~skillopt_sleep.report.NightReport` at the end.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import attrs

from skillopt.api import EvaluationConfig, Verdict, to_data
from skillopt_sleep import documents
from skillopt_sleep.documents import Doc, DocEdit
from skillopt_sleep.evidence import EvidenceLog
from skillopt_sleep.harvest import HarvestRequest, harvest
from skillopt_sleep.learn import contrast, gating, reflect
from skillopt_sleep.mine.tasks import SleepTask
from skillopt_sleep.options import SleepOptions
from skillopt_sleep.redaction import clip
from skillopt_sleep.replay import ReplayResult, replay
from skillopt_sleep.replay.handoff import HandoffPending, handoff_backend
from skillopt_sleep.report import (
    ContrastRow,
    ContrastSummary,
    Gathered,
    HarvestSummary,
    NightReport,
    RejectedEdit,
    TaskScore,
    Trial,
)
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


@attrs.define
class Progress:
    """What the gate has validated so far: the documents with every accepted edit, and
    the val results they were accepted on."""

    docs: list[Doc] = attrs.field(factory=list)
    accepted: list[DocEdit] = attrs.field(factory=list)
    base_val: ReplayResult | None = None
    cur_val: ReplayResult | None = None


def apply_edits(docs: list[Doc], edits: list[DocEdit]) -> tuple[list[Doc], list[str]]:
    """``docs`` with ``edits`` applied to their learned blocks, and what could not be applied."""
    out, problems = [], []
    for doc in docs:
        mine = [e.edit for e in edits if e.doc == doc.role]
        if mine:
            doc, results = documents.with_rules(doc, mine)
            problems += [f"{r.edit.op} {r.status}: {r.detail}" for r in results if r.status != "applied"]
        out.append(doc)
    return out, problems


def rejected(edit: DocEdit, reason: str) -> RejectedEdit:
    return RejectedEdit(**{f.name: getattr(edit, f.name) for f in attrs.fields(DocEdit)}, reason=reason)


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
        self.gate = gating.make_gate(opts.gate, cfg)
        self.metric = opts.gate_metric
        self.progress = Progress()
        #: prefixed to replay phases and gate labels (a fan-out skill's evidence reads ``skill:NAME/...``)
        self.phase_prefix = ""

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

    def _llm_reflection(self) -> bool:  # the engine-night tests' name
        return self.llm_reflection()

    def llm_reflection(self) -> bool:
        return self.opts.reflector in ("llm", "auto") and self.llm_allowed("reflector")

    def _replay(self, tasks, docs, phase: str, salt: int = 0, repeats: int | None = None) -> ReplayResult:
        phase = self.phase_prefix + phase
        label = f"replay {phase}"
        self.reporter.phase("sleep")
        started = time.monotonic()
        result = replay(
            tasks,
            docs,
            self.clients.target,
            self.clients.optimizer,
            on_attempt=lambda done, total: self.reporter.items(label, done, total),
            phase=phase,
            repeats=repeats or self.opts.repeats,
            seed=self.opts.seed,
            salt=salt,
            project_name=self.project.name,
            workers=self.opts.workers,
        )
        failed = [a.feedback for a in result.attempts if a.status == "error"]
        judged = sum(1 for t in tasks if t.rubric) * (repeats or self.opts.repeats)
        self.say(
            f"{label}: {len(result.attempts)} attempt(s), {self.metric} {result.evaluation().mean(self.metric):.2f}"
            + (f", {judged} judged by the optimizer" if judged else "")
            + (f", {len(failed)} failed (first: {failed[0][:120]})" if failed else "")
            + f" ({time.monotonic() - started:.0f} s)"
        )
        for a in result.attempts:
            self.evidence.add(
                "replay",
                phase,
                task=a.task_id,
                repeat=a.repeat,
                status=a.status,
                hard=a.hard,
                soft=a.soft,
                feedback=a.feedback,
                answer=a.answer,
            )
        if result.pending:
            self.handoff_stop()
        return result

    def handoff_stop(self) -> None:
        backend = handoff_backend(self.clients)
        if backend is not None:
            index = backend.write_index()
            raise HandoffWaiting(index, len(backend.pending()))

    def _trial(self, label: str, current: ReplayResult, candidate: ReplayResult) -> Verdict:
        verdict = gating.decide(self.gate, current, candidate, min_items=self.opts.min_val_items)
        self.trials.append(Trial(label=label, verdict=verdict))
        label = self.phase_prefix + label
        shown = (label.splitlines() or [""])[0][:80]
        self.say(f"gate {shown}: {'accept' if verdict.accepted else 'reject'} ({verdict.reason})")
        self.evidence.add("gate", "trial", label=label, verdict=to_data(verdict))
        return verdict

    def learn(self, tasks: list[SleepTask], docs: list[Doc], editable: tuple[str, ...] = ("skill", "memory")) -> None:
        """Greedy gated edits to the documents whose role is ``editable``. Progress lives in
        ``self.progress`` so a budget stop mid-way still knows which edits the gate had
        already validated."""
        train = [t for t in tasks if t.split == "train"]
        val = [t for t in tasks if t.split == "val"]
        p = self.progress = Progress(docs=docs)  # the caller made sure both splits have tasks (gather.shortfall)
        p.base_val = p.cur_val = self._replay(val, docs, "baseline-val")
        # K > 1 rollouts: distinct seeds per attempt (distinct cache keys), for contrastive reflection
        rollouts = self.opts.dream_rollouts if self.llm_reflection() else 1
        if rollouts < self.opts.dream_rollouts:
            self.notes.append("--dream-rollouts ignored: contrastive reflection needs the LLM reflector")
        train_result = self._replay(train, docs, "train", repeats=max(rollouts, self.opts.repeats))
        proposals = []
        for proposal in self._propose(train, train_result, docs):
            if proposal.doc in editable:
                proposals.append(proposal)
            else:
                self.rejected.append(rejected(proposal, f"the {proposal.doc} document is read-only in this pass"))
        usable = []
        for n, proposal in enumerate(proposals, 1):
            candidate_docs, problems = apply_edits(p.docs, [proposal])
            if all(d.text == c.text for d, c in zip(p.docs, candidate_docs, strict=True)):
                self.rejected.append(rejected(proposal, "could not be applied: " + "; ".join(problems)))
                continue
            usable.append(proposal)
            cand_val = self._replay(val, candidate_docs, f"gate-{n}")
            verdict = self._trial(f"edit {n}: {proposal.edit.content[:80]}", p.cur_val, cand_val)
            if verdict.accepted:
                p.docs, p.cur_val, p.accepted = candidate_docs, cand_val, p.accepted + [proposal]
            else:
                self.rejected.append(rejected(proposal, verdict.reason))
        if not p.accepted and len(usable) > 1:
            bundle_docs, _ = apply_edits(docs, usable)
            cand_val = self._replay(val, bundle_docs, "gate-bundle")
            if self._trial("all usable edits together", p.base_val, cand_val).accepted:
                p.docs, p.cur_val, p.accepted = bundle_docs, cand_val, list(usable)
                kept = {(e.doc, e.edit.content) for e in usable}
                self.rejected = [r for r in self.rejected if (r.doc, r.edit.content) not in kept]

    def _propose(self, train, train_result, docs) -> list[DocEdit]:
        budget = self.opts.edit_budget
        unused = "--preferences unused: they are shown to a model reflector, and tonight's reflection used none"
        if self.opts.preferences and not self.llm_reflection() and unused not in self.notes:
            self.notes.append(unused)
        heur = []
        if self.opts.reflector in ("heuristic", "auto"):
            heur = reflect.heuristic_edits(train, train_result, docs, budget)
            alone = reflect.one_offs(train, train_result)
            if alone:
                self.notes.append(f"{len(alone)} lesson(s) taught by one session only, left alone: "
                                  + "; ".join(clip(lesson.text, 80) for lesson in alone[:3]))  # fmt: skip
        llm: list[DocEdit] = []
        if self.llm_reflection():
            try:
                if self.opts.dream_rollouts > 1:
                    llm = self._contrast(train, train_result, docs)
                if not llm:  # no task varied across its rollouts (or nothing came of it): the normal reflection
                    llm, note = reflect.llm_edits(
                        self.clients.optimizer, train, train_result, docs, budget, self.project.name, self.opts.preferences
                    )
                    if note:
                        self.notes.append(note)
            except HandoffPending:  # the reflection prompt waits for its answer: stop the round, resume on it
                self.handoff_stop()
                raise
        proposals = reflect.merge(heur, llm, budget)
        for p in proposals:
            self.evidence.add("reflect", "proposal", **to_data(p))
        return proposals

    def _contrast(self, train, train_result, docs) -> list[DocEdit]:
        edits, note, shown = contrast.contrastive_edits(
            self.clients.optimizer, train, train_result, docs, self.opts.edit_budget, self.project.name, self.metric,
            self.opts.preferences,
        )
        self.contrast = ContrastSummary(
            rollouts=self.opts.dream_rollouts,
            tasks=tuple(
                ContrastRow(id=c.task.id, spread=round(c.spread, 4), good=c.good.repeat, bad=c.bad.repeat) for c in shown
            ),
            edits=len(edits),
        )
        self.evidence.add("reflect", "contrast", **to_data(self.contrast))
        if note:
            self.notes.append(note)
        elif not shown:
            self.notes.append(f"no train task varied across its {self.opts.dream_rollouts} rollouts; normal reflection used")
        return edits

    def final_check(self, val, docs, final_docs) -> tuple[Verdict, ReplayResult, ReplayResult]:
        fresh_base = self._replay(val, docs, "final-baseline", salt=1)
        fresh_final = self._replay(val, final_docs, "final-val", salt=1)
        verdict = self._trial("final fresh check", fresh_base, fresh_final)
        return verdict, fresh_base, fresh_final

    def scores(self, tasks, before: ReplayResult | None, after: ReplayResult | None, split: str) -> list[TaskScore]:
        if before is None or after is None:
            return []
        b = gating.per_task(before, self.metric)
        a = gating.per_task(after, self.metric)
        rows = []
        for t in tasks:
            if t.split != split:
                continue
            x, y = b.get(t.id), a.get(t.id)
            delta = (y - x) if x is not None and y is not None else None
            rows.append(TaskScore(id=t.id, split=split, intent=t.intent[:200], baseline=x, final=y, delta=delta))
        return rows
