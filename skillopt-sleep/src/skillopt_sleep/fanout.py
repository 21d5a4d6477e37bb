"""Multi-skill fan-out (``--fan-out``): every skill tonight's sessions used gets its
own pass of the night's learning, on its own.

For each skill a task used (:mod:`skillopt_sleep.skills`), the tasks that used it are
replayed under *that skill's* live ``SKILL.md`` (and the project memory, read-only),
edits are proposed and gated on the group's own val tasks, and the survivors are
re-checked on fresh samples — the same stages as the night's main pass, run through
the same :class:`~skillopt_sleep.cycle.Night`, with replay phases and gate labels
prefixed ``skill:NAME/`` in the evidence. Each skill ends as its own
:class:`~skillopt_sleep.report.SkillResult` and, when accepted, its own staged
proposal, adopted (``adopt --skill NAME``) and rolled back independently.

A spent budget stops the fan-out cleanly: edits the gate already validated for the
skill in progress are kept, later skills are reported as not tried.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from skillopt_sleep import documents, skills
from skillopt_sleep.documents import Doc, DocTarget
from skillopt_sleep.mine.tasks import SleepTask
from skillopt_sleep.report import SkillResult


@attrs.frozen(kw_only=True)
class SkillProposal:
    """A skill's accepted proposal: its live baseline and the proposed document."""

    name: str
    before: Doc
    after: Doc


def groups(tasks: Sequence[SleepTask]) -> dict[str, list[SleepTask]]:
    """Tasks by the skills they used (a task used by two skills is in both groups)."""
    out: dict[str, list[SleepTask]] = {}
    for task in tasks:
        for name in task.skills:
            out.setdefault(name, []).append(task)
    return dict(sorted(out.items()))


def _shortfall(group: Sequence[SleepTask], min_val: int) -> str:
    val = sum(1 for t in group if t.split == "val")
    train = sum(1 for t in group if t.split == "train")
    if val >= min_val and train:
        return ""
    return (
        f"{train} train and {val} val task(s) used this skill; the gate needs at least 1 train and {min_val} val task(s)"
    )


def consolidate_skills(night, tasks: Sequence[SleepTask], docs: Sequence[Doc]) -> tuple[list[SkillResult], list[SkillProposal]]:
    """Every skill's pass; (results for the report, accepted proposals to stage)."""
    results: list[SkillResult] = []
    proposals: list[SkillProposal] = []
    memory = [d for d in docs if d.role == "memory"]
    main_skill = {d.path.resolve() for d in docs if d.role == "skill"}
    by_skill = groups(tasks)
    if not by_skill:
        night.notes.append("--fan-out: no task's sessions used a skill; nothing to fan out")
        return results, proposals
    spent = ""
    for name, group in by_skill.items():
        ids = tuple(t.id for t in group)
        if spent:
            results.append(SkillResult(name=name, status="skipped", reason=f"not tried: {spent}", tasks=ids))
            continue
        found = skills.locate(night.project, night.gathered.agent, name)
        if found.path is None:
            results.append(SkillResult(name=name, status="skipped", reason=found.problem, tasks=ids))
            continue
        if found.path.resolve() in main_skill:
            reason = "it is the night's main skill target (--target-skill-path): the main proposal covers it"
            results.append(SkillResult(name=name, path=str(found.path), status="skipped", reason=reason, tasks=ids))
            continue
        notes = tuple(f"another copy of this skill was not touched: {p}" for p in found.others)
        missing = _shortfall(group, night.opts.min_val_items)
        if missing:
            results.append(
                SkillResult(name=name, path=str(found.path), status="too_few_tasks", reason=missing, tasks=ids, notes=notes)
            )
            continue
        night.say(f"fan-out: skill {name} ({found.path}), {len(group)} task(s)")
        baseline = documents.load(DocTarget(role="skill", path=found.path))
        result, final, spent = _one_skill(night, name, list(group), [baseline, *memory])
        result = attrs.evolve(result, path=str(found.path), tasks=ids, notes=notes)
        results.append(result)
        if result.status == "accepted":
            after = next(d for d in final if d.role == "skill")
            proposals.append(SkillProposal(name=name, before=baseline, after=after))
    return results, proposals


def _one_skill(night, name: str, group: list[SleepTask], docs: list[Doc]) -> tuple[SkillResult, list[Doc], str]:
    """One skill's pass through the engine (its own run, ``runs/night-NNNN-skill-NAME``):
    (result, final documents, why the budget stopped it or ''). The main pass's records
    on ``night`` are left as they were."""
    from skillopt_sleep.learn import tonight

    saved = (night.trials, night.rejected, night.contrast)
    night.trials, night.rejected = [], []
    try:
        out = tonight.run_dir(night, f"-skill-{name}", resume=night.handoff_dir is not None)
        learned = tonight.learn(night, [t for t in group if t.split != "test"], docs, out, editable=("skill",), prefix=f"skill:{name}/")
        o = learned.outcome
        spent = f"budget spent ({o.budget_stop})" if o.budget_stop else ""
        result = SkillResult(name=name, status=o.status, reason=o.reason, scores=attrs.evolve(learned.scores, baseline_test=None, final_test=None),
                             per_task=tuple(r for r in learned.per_task if r.split == "val"), trials=tuple(night.trials),
                             accepted_edits=o.accepted, rejected_edits=tuple(night.rejected))
        return result, learned.docs, spent
    finally:
        night.trials, night.rejected, night.contrast = saved
