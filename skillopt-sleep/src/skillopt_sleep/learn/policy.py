"""``sleep-rules``: the no-model reflector as an edit policy of the engine.

It turns a night's failing train replays into rules the developer's repeated
corrections support (:func:`skillopt_sleep.learn.reflect.heuristic_edits`): no model is
asked, the ranking is the evidence (most failing tasks and sessions first), and a
rule already in the documents or rejected by the gate earlier this night is not
proposed again. A night gives the engine one step per edit to try (``train.num_epochs``,
one step an epoch, ``optimizer.learning_rate = 1``): each step re-replays train under
the current documents, proposes, and the gate decides on the strongest edit not tried
yet. The mined tasks (their lessons) are what it reads, so it is built with them; the skill is a night's folder skill (:mod:`skillopt_sleep.nightenv`), each edit
aimed at its document's file with ``target_file``. Reflect over all failures at once
(``gradient.minibatch_size`` at least the train replays): a lesson's support is pooled
across tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from skillopt.api import Edit, EditPolicy, EditResult, Patch, Rollout, Task, apply_edits, hookimpl
from skillopt_sleep.mine.tasks import SleepTask

#: the engine's step history line of an edit the gate rejected (``skillopt.engine.buffer``)
REJECTED_LINE = "- rejected edit: "


def replay_of(rollouts: Sequence[Rollout]):
    """The engine's scored rollouts as a night's replay result (what the reflector reads)."""
    from skillopt_sleep.replay import Attempt, ReplayResult

    attempts = tuple(
        Attempt(task_id=r.task_id, repeat=r.repeat, status="error" if r.missing else "ok", hard=r.score.hard,
                soft=r.score.soft, answer=r.prediction, feedback=r.score.feedback)
        for r in rollouts
    )
    return ReplayResult(phase="train", docs_hash="", docs_text="", attempts=attempts)


def docs_for(skill: str):
    """Stand-in documents holding the folder skill's rules (what the reflector compares with)."""
    from skillopt_sleep import documents
    from skillopt_sleep.nightenv import rules_of

    rules = rules_of(skill)
    return [documents.with_rules_text(documents.Doc(role=role, path=Path(f"{role}.md"), original=None, text=""), text)
            for role, text in rules.items()]


def summary_of(edit: Edit) -> str:
    """How the engine's step history names an edit (``skillopt.engine.buffer.summarise_edit``)."""
    target = f" @ {edit.target[:80]!r}" if edit.target else ""
    where = f" [{edit.target_file}]" if edit.target_file else ""
    return f"{edit.op}{where}{target}: {edit.content[:160]!r}"


def rejected_in(history: str) -> set[str]:
    return {line[len(REJECTED_LINE):] for line in history.splitlines() if line.startswith(REJECTED_LINE)}


class SleepRules(EditPolicy):
    """Rules from the developer's repeated corrections (skillopt sleep's no-model reflector)."""

    name = "sleep-rules"
    summary = "rules from repeated corrections in your own sessions (no model; skillopt sleep)"
    edits_skill = True

    def __init__(self, settings=None, *, tasks: Sequence[SleepTask] = (), tried: Sequence[Edit] = (), budget: int = 4,
                 reflectors: tuple[str, ...] = ("heuristic",), project_name: str = "", preferences: str = ""):
        """``tried``: edits an earlier process of the same night already put to the gate;
        ``budget``: proposals a reflection makes (``--edit-budget``); ``reflectors``:
        ``heuristic`` and/or ``llm`` (the night's model reflector, asked through the
        optimizer client with the night's own prompt, its edits interleaved with the rules)."""
        super().__init__(settings)
        self.tasks = tuple(tasks)
        self.budget = budget
        self.reflectors = tuple(reflectors)
        self.project_name = project_name
        self.preferences = preferences
        #: edits selected for a gate this night (an accepted one is in the documents, a rejected one is not tried again)
        self.tried: set[str] = {summary_of(e) for e in tried}
        #: every proposal in the order first proposed: a night tries its first reflection's proposals in their
        #: order (the rules and the model's interleaved), then what later reflections add
        self.order: dict[str, int] = {summary_of(e): i for i, e in enumerate(tried)}

    def reflect(self, ctx, rollouts: list[Rollout], tasks: dict[str, Task], kind: str) -> Patch:
        from skillopt_sleep.learn.reflect import heuristic_edits, llm_edits, merge
        from skillopt_sleep.nightenv import FILE_OF

        if kind != "failure" or not self.tasks:
            return Patch(source_type=kind, reasoning="nothing to learn from" if self.tasks else "no mined tasks given")
        n = self.budget + len(self.tried)  # room for the proposals already tried, which select leaves out
        wanted = {r.task_id for r in rollouts}
        tasks, train, docs = [t for t in self.tasks if t.id in wanted], replay_of(rollouts), docs_for(ctx.skill)
        rules = heuristic_edits(tasks, train, docs, n) if "heuristic" in self.reflectors else []
        asked: list = []
        if "llm" in self.reflectors:
            asked, note = llm_edits(ctx.client, tasks, train, docs, n, self.project_name, self.preferences)
            if note:
                ctx.note(note)
        proposed = merge(rules, asked, n)
        edits = tuple(attrs.evolve(p.edit, target_file=FILE_OF[p.doc]) for p in proposed)
        return Patch(edits=edits, source_type="failure", reasoning=f"{len(edits)} proposal(s): rules from repeated "
                     f"corrections{' and the model reflector' if asked else ''}")

    def merge(self, ctx, patches: list[Patch], kind: str) -> Patch:
        seen, edits = set(), []
        for edit in (e for p in patches for e in p.edits):
            if (edit.target_file, edit.content) not in seen:
                seen.add((edit.target_file, edit.content))
                edits.append(edit)
        return Patch(edits=tuple(edits), source_type="failure" if kind in ("failure", "final") else "success",
                     reasoning="no merge call needed", merge_level=max((p.merge_level for p in patches), default=0) + 1)

    def select(self, ctx, patch: Patch, budget: int | None) -> tuple[Patch, dict[str, Any]]:
        """The strongest edits first, leaving out the ones already put to the gate this night."""
        done = self.tried | rejected_in(ctx.step_history)
        for edit in patch.edits:
            self.order.setdefault(summary_of(edit), len(self.order))
        fresh = sorted((i for i, e in enumerate(patch.edits) if summary_of(e) not in done),
                       key=lambda i: self.order[summary_of(patch.edits[i])])
        kept = fresh[:budget] if budget is not None else fresh
        self.tried.update(summary_of(patch.edits[i]) for i in kept)
        details = {"ranking": "by evidence (no model)", "selected_indices": kept, "tried_before": len(patch.edits) - len(fresh)}
        return attrs.evolve(patch, edits=tuple(patch.edits[i] for i in kept)), details

    def apply(self, ctx, skill: str, patch: Patch) -> tuple[str, list[EditResult], dict[str, Any]]:
        new, results = apply_edits(skill, patch.edits)
        return new, results, {}


@hookimpl
def skillopt_register_edit_policies(register):
    register(SleepRules)
