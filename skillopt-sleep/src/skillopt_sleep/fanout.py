"""Multi-skill fan-out (``--fan-out``): every skill tonight's sessions used gets its
own pass of the night's learning, on its own.

For each skill a task used (:mod:`skillopt_sleep.skills`), the tasks that used it are
replayed under *that skill's* live ``SKILL.md`` (and the project memory, read-only),
edits are proposed and gated on the group's own val tasks, and the survivors are
re-checked on fresh samples — the same stages as the night's main pass, run through
the same :class:`~skillopt_sleep.night.Night`, with replay phases and gate labels
prefixed ``skill:NAME/`` in the evidence. Each skill ends as its own
:class:`~skillopt_sleep.report.SkillResult` and, when accepted, its own staged
proposal, adopted (``adopt --skill NAME``) and rolled back independently.

A spent budget stops the fan-out cleanly: edits the gate already validated for the
skill in progress are kept, later skills are reported as not tried.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from skillopt.api import BudgetExceeded
from skillopt_sleep import documents, skills
from skillopt_sleep.documents import Doc, DocTarget
from skillopt_sleep.mine.tasks import SleepTask
from skillopt_sleep.report import Scores, SkillResult


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
    """One skill's pass through the night's stages: (result, final documents, why the
    budget stopped it or ''). The main pass's state on ``night`` is left as it was."""
    from skillopt_sleep.night import Progress, rejected

    saved = (night.progress, night.trials, night.rejected, night.contrast, night.phase_prefix)
    night.progress, night.trials, night.rejected, night.phase_prefix = Progress(docs=docs), [], [], f"skill:{name}/"
    spent = ""
    try:
        try:
            night.learn(group, docs, editable=("skill",))
            p = night.progress
            if p.accepted:
                val = [t for t in group if t.split == "val"]
                verdict, p.base_val, p.cur_val = night.final_check(val, docs, p.docs)
                if verdict.accepted:
                    status = "accepted"
                    reason = f"{len(p.accepted)} edit(s) passed the {night.opts.gate} gate and the fresh final check"
                else:
                    night.rejected += [rejected(e, "final fresh check failed: " + verdict.reason) for e in p.accepted]
                    p.docs, p.accepted = docs, []
                    status, reason = "rejected", "the fresh final check did not confirm the gain: " + verdict.reason
            else:
                status = "nothing_learned"
                reason = "no proposed edit passed the gate" if night.trials else "no edit was proposed"
        except BudgetExceeded as exc:
            spent = f"budget spent ({exc})"
            validated = night.progress.accepted
            status = "accepted" if validated else "budget_stopped"
            reason = spent + (
                f"; staging {len(validated)} edit(s) the gate already validated (fresh final check skipped)"
                if validated
                else "; nothing was validated"
            )
        return _result(night, name, status, reason, group), night.progress.docs, spent
    finally:
        night.progress, night.trials, night.rejected, night.contrast, night.phase_prefix = saved


def _result(night, name: str, status: str, reason: str, group: Sequence[SleepTask]) -> SkillResult:
    p = night.progress
    metric = night.metric
    scores = Scores(
        metric=metric,
        baseline_val=p.base_val.evaluation().mean(metric) if p.base_val else None,
        final_val=p.cur_val.evaluation().mean(metric) if p.cur_val else None,
    )
    return SkillResult(
        name=name,
        status=status,
        reason=reason,
        scores=scores,
        per_task=tuple(night.scores(list(group), p.base_val, p.cur_val, "val")),
        trials=tuple(night.trials),
        accepted_edits=tuple(p.accepted),
        rejected_edits=tuple(night.rejected),
    )
