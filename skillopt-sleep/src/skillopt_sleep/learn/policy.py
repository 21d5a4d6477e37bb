"""``sleep-rules``: a night's reflection as an edit policy of the engine.

It turns a night's train replays into rules: the developer's repeated corrections
(:func:`skillopt_sleep.learn.reflect.heuristic_edits`, no model, the ranking is the
evidence), and with the LLM reflector the model's proposals interleaved with them —
or, with ``--dream-rollouts K`` and train tasks whose K attempts disagree, the
model's reading of GOOD vs BAD attempts (:mod:`skillopt_sleep.learn.contrast`). A
rule already in the documents or already put to the gate this night is not proposed
again. A night gives the engine one step per edit to try (``one-edit``). With
``once`` (``skillopt sleep run``) the night reflects at its first step, on train
replays made under its starting documents, and each later step hands the gate the
next proposal of that reflection, in order; without it each step reflects on its own
train failures. When no single edit passed and more than one could be applied, one
last step tries all of them together against the unchanged documents.

What it reads and keeps is in the run directory, so a resumed night (a handoff
round) continues where it stopped: the step's train rollouts (every attempt, the
passing ones included, which a contrast needs), the edits earlier steps selected
(tried) and merged (their first-proposed order), and its own record
(:mod:`skillopt_sleep.learn.record`: each proposal with its evidence, the contrast,
edits aimed at a read-only document).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from skillopt.api import Edit, EditPolicy, EditResult, Patch, Rollout, Task, apply_edits, hookimpl
from skillopt_sleep.learn import record
from skillopt_sleep.mine.tasks import SleepTask
from skillopt_sleep.nightenv import FILE_OF, rules_of, split_id


def replay_of(rollouts: Sequence[Rollout], phase: str = "train"):
    """The engine's scored rollouts as a night's replay result (what the reflector reads)."""
    from skillopt_sleep.replay import Attempt, ReplayResult

    attempts = []
    for r in rollouts:
        task_id, repeat = split_id(r.task_id)
        attempts.append(Attempt(task_id=task_id, repeat=repeat or r.repeat, status="error" if r.missing else "ok",
                                hard=r.score.hard, soft=r.score.soft, answer=r.prediction, feedback=r.score.feedback))
    return ReplayResult(phase=phase, docs_hash="", docs_text="", attempts=tuple(attempts))


def docs_for(skill: str):
    """Stand-in documents holding the folder skill's rules (what the reflector compares with)."""
    from skillopt_sleep import documents

    rules = rules_of(skill)
    return [documents.with_rules_text(documents.Doc(role=role, path=Path(f"{role}.md"), original=None, text=""), text)
            for role, text in rules.items()]


def summary_of(edit: Edit) -> str:
    """An edit's identity within a night (op, file, anchor, text)."""
    return f"{edit.op}\x1f{edit.target_file}\x1f{edit.target}\x1f{edit.content}"


class SleepRules(EditPolicy):
    """Rules from the developer's repeated corrections (skillopt sleep's reflection)."""

    name = "sleep-rules"
    summary = "rules from repeated corrections in your own sessions (no model; skillopt sleep)"
    edits_skill = True

    def __init__(self, settings=None, *, tasks: Sequence[SleepTask] = (), budget: int = 4,
                 reflectors: tuple[str, ...] = ("heuristic",), project_name: str = "", preferences: str = "",
                 rollouts: int = 1, metric: str = "mixed", editable: tuple[str, ...] = ("skill", "memory"),
                 once: bool = False):
        """``budget``: proposals a reflection makes (``--edit-budget``); ``reflectors``:
        ``heuristic`` and/or ``llm`` (the night's model reflector, asked through the
        optimizer client with the night's own prompt, its edits interleaved with the
        rules); ``rollouts``: train attempts per task (K > 1: contrastive reflection);
        ``editable``: the document roles this pass may change (a fan-out pass: the skill);
        ``once``: reflect at the first step only; later steps hand out its proposals in order."""
        super().__init__(settings)
        self.tasks = tuple(tasks)
        self.budget = budget
        self.reflectors = tuple(reflectors)
        self.project_name = project_name
        self.preferences = preferences
        self.rollouts = rollouts
        self.metric = metric
        self.editable = tuple(editable)
        self.once = once
        #: edits selected for a gate this night (an accepted one is in the documents, a rejected one is not tried again)
        self.tried: set[str] = set()
        #: every proposal in the order first proposed: a night tries its first reflection's proposals in their
        #: order (the rules and the model's interleaved), then what later reflections add
        self.order: dict[str, int] = {}
        self.bundled = False

    # ------------------------------------------------------------------ reflect

    def reflect(self, ctx, rollouts: list[Rollout], tasks: dict[str, Task], kind: str) -> Patch:
        from skillopt_sleep.learn.reflect import heuristic_edits, merge, one_offs
        from skillopt_sleep.redaction import clip

        run_dir = Path(ctx.config.out_dir)
        rollouts = record.train_rollouts(run_dir, ctx.skill) or rollouts  # every attempt of the step, passing ones too
        lead = "failure" if any(r.failed for r in rollouts if not r.missing) or not self.once else "success"
        if kind != lead or not self.tasks:  # one reflection a step, whichever minibatch kind the step has
            return Patch(source_type=kind, reasoning="reflected in the step's other minibatch" if self.tasks else
                         "no mined tasks given")
        earlier = record.merged_edits(run_dir)  # the night's queue: a proposal stays until the gate has seen it
        if self.once and record.reflected(run_dir):  # a night reflects once, on its train replays; later steps work through the queue
            return Patch(edits=tuple(earlier), source_type="failure", reasoning="the night's proposals not tried yet")
        n = self.budget + len(self.tried_in(run_dir))  # room for the proposals already tried, which select leaves out
        train = replay_of(rollouts)
        wanted = {a.task_id for a in train.attempts}
        tasks_, docs = [t for t in self.tasks if t.id in wanted], docs_for(ctx.skill)
        rules, notes = [], []
        if self.preferences and "llm" not in self.reflectors:
            notes.append("--preferences unused: they are shown to a model reflector, and tonight's reflection used none")
        if "heuristic" in self.reflectors:
            rules = heuristic_edits(tasks_, train, docs, n)
            alone = one_offs(tasks_, train)
            if alone:
                notes.append(f"{len(alone)} lesson(s) taught by one session only, left alone: "
                             + "; ".join(clip(lesson.text, 80) for lesson in alone[:3]))
        asked = self._ask(run_dir, ctx.client, tasks_, train, docs, n, notes) if "llm" in self.reflectors else []
        proposed = merge(rules, asked, n)
        editable = [p for p in proposed if p.doc in self.editable]
        record.add_proposals(run_dir, proposed, readonly=[p for p in proposed if p.doc not in self.editable])
        record.add_notes(run_dir, notes, reflected=True)
        edits = tuple(attrs.evolve(p.edit, target_file=FILE_OF[p.doc]) for p in editable)
        return Patch(edits=edits, source_type="failure", reasoning=f"{len(edits)} proposal(s): rules from repeated "
                     f"corrections{' and the model reflector' if asked else ''}")

    def _ask(self, run_dir: Path, client, tasks, train, docs, n: int, notes: list[str]) -> list:
        """The model's proposals: from contrasts when K rollouts disagree, else the normal reflection."""
        from skillopt_sleep.learn.contrast import contrastive_edits
        from skillopt_sleep.learn.reflect import llm_edits
        from skillopt_sleep.report import ContrastRow, ContrastSummary

        asked: list = []
        if self.rollouts > 1:
            asked, note, shown = contrastive_edits(client, tasks, train, docs, n, self.project_name, self.metric,
                                                   self.preferences)
            record.set_contrast(run_dir, ContrastSummary(
                rollouts=self.rollouts, edits=len(asked),
                tasks=tuple(ContrastRow(id=c.task.id, spread=round(c.spread, 4), good=c.good.repeat, bad=c.bad.repeat)
                            for c in shown)))
            if note:
                notes.append(note)
            elif not shown:
                notes.append(f"no train task varied across its {self.rollouts} rollouts; normal reflection used")
        if not asked:  # no task varied across its rollouts (or nothing came of it): the normal reflection
            asked, note = llm_edits(client, tasks, train, docs, n, self.project_name, self.preferences)
            if note:
                notes.append(note)
        return asked

    def merge(self, ctx, patches: list[Patch], kind: str) -> Patch:
        seen, edits = set(), []
        for edit in (e for p in patches for e in p.edits):
            if (edit.target_file, edit.content) not in seen:
                seen.add((edit.target_file, edit.content))
                edits.append(edit)
        return Patch(edits=tuple(edits), source_type="failure" if kind in ("failure", "final") else "success",
                     reasoning="no merge call needed", merge_level=max((p.merge_level for p in patches), default=0) + 1)

    # ------------------------------------------------------------------ select

    def tried_in(self, run_dir: Path) -> set[str]:
        """Edits this night already put to the gate (this process's and, on a resume, the run directory's)."""
        return self.tried | {summary_of(e) for e in record.selected_edits(run_dir)}

    def select(self, ctx, patch: Patch, budget: int | None) -> tuple[Patch, dict[str, Any]]:
        """The strongest edit not put to the gate yet; when none is left, nothing passed
        and more than one could be applied, all of those together (once)."""
        run_dir = Path(ctx.config.out_dir)
        done = self.tried_in(run_dir)
        for edit in (*record.merged_edits(run_dir), *patch.edits):
            self.order.setdefault(summary_of(edit), len(self.order))
        fresh = sorted((i for i, e in enumerate(patch.edits) if summary_of(e) not in done),
                       key=lambda i: self.order[summary_of(patch.edits[i])])
        kept = fresh[:budget] if budget is not None else fresh
        if not kept:
            bundle = self._bundle(ctx.skill, run_dir)
            if bundle:
                return attrs.evolve(patch, edits=tuple(bundle)), {"ranking": "all usable edits together",
                                                                   "bundle": len(bundle), "tried_before": len(patch.edits)}
        self.tried.update(summary_of(patch.edits[i]) for i in kept)
        details = {"ranking": "by evidence (no model)", "selected_indices": kept, "tried_before": len(patch.edits) - len(fresh)}
        return attrs.evolve(patch, edits=tuple(patch.edits[i] for i in kept)), details

    def _bundle(self, skill: str, run_dir: Path) -> list[Edit]:
        """The edits tried one by one this night, when none was kept and more than one changed the skill."""
        steps = record.selected_by_step(run_dir)
        if self.bundled or any(len(edits) > 1 for edits in steps.values()):
            return []  # tried already
        accepted = record.accepted_steps(run_dir)
        if accepted:
            return []
        usable = [e for edits in steps.values() for e in edits if apply_edits(skill, [e])[0] != skill]
        self.bundled = True
        return usable if len(usable) > 1 else []

    def apply(self, ctx, skill: str, patch: Patch) -> tuple[str, list[EditResult], dict[str, Any]]:
        new, results = apply_edits(skill, patch.edits)
        return new, results, {}


@hookimpl
def skillopt_register_edit_policies(register):
    register(SleepRules)
