"""Contrastive reflection: what the agent did when it got a task right, and not when wrong.

With ``--dream-rollouts K`` (K > 1) every train task is replayed K times with distinct
sampling seeds (distinct cache keys, so the attempts are real samples, not one cached
answer). A task whose attempts disagree under the gate metric holds the most useful
evidence a night can have: the same request, the same rules, one attempt that passed
and one that did not. The tasks with the largest spread (one per real task, so a
family of dream variants cannot crowd out the others) are shown to the optimizer as
GOOD vs BAD attempts, clipped, and it proposes rules that explain the difference.
Nothing here is random: ties break by task id and repeat number. When no task varies,
the caller falls back to the normal failure reflection.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from skillopt_sleep import prompts
from skillopt_sleep.documents import Doc, DocEdit
from skillopt_sleep.learn.reflect import ask_edits, edits_request, rules_text
from skillopt_sleep.mine.tasks import SleepTask
from skillopt_sleep.redaction import clip
from skillopt_sleep.replay import Attempt, ReplayResult

MAX_CONTRASTS = 6
EXCERPT = 300
STAGE = "sleep-reflect-contrast"


@attrs.frozen(kw_only=True)
class Contrast:
    task: SleepTask
    good: Attempt
    bad: Attempt
    good_score: float
    bad_score: float
    attempts: int

    @property
    def spread(self) -> float:
        return self.good_score - self.bad_score


def attempt_score(attempt: Attempt, metric: str, weight: float = 0.5) -> float:
    """One attempt under the gate metric (mixed = the gate's (1-w)·hard + w·soft)."""
    if metric == "hard":
        return attempt.hard
    if metric == "soft":
        return attempt.soft
    return (1 - weight) * attempt.hard + weight * attempt.soft


def pick(tasks: Sequence[SleepTask], train: ReplayResult, metric: str, limit: int = MAX_CONTRASTS) -> list[Contrast]:
    """The ``limit`` train tasks whose successful attempts disagree the most."""
    by_id = {t.id: t for t in tasks}
    found: list[Contrast] = []
    for tid, attempts in train.by_task().items():
        ok = [a for a in attempts if a.status == "ok"]
        if len(ok) < 2 or tid not in by_id:
            continue
        bad = min(ok, key=lambda a: (attempt_score(a, metric), a.repeat))
        good = max(ok, key=lambda a: (attempt_score(a, metric), -a.repeat))
        hi, lo = attempt_score(good, metric), attempt_score(bad, metric)
        if hi - lo > 1e-9:
            found.append(Contrast(task=by_id[tid], good=good, bad=bad, good_score=hi, bad_score=lo, attempts=len(ok)))
    found.sort(key=lambda c: (-c.spread, c.task.id))
    picked: list[Contrast] = []
    families: set[str] = set()
    for c in found:
        family = c.task.parent or c.task.id
        if family not in families:
            families.add(family)
            picked.append(c)
        if len(picked) >= limit:
            break
    return picked


def contrast_request(contrasts: Sequence[Contrast], docs: Sequence[Doc], budget: int, project_name: str, preferences: str = ""):
    blocks = [
        f"### Request (attempt scores {c.good_score:.2f} vs {c.bad_score:.2f} over {c.attempts} attempts)\n"
        f"{clip(c.task.intent, 300)}\n"
        f"GOOD attempt (score {c.good_score:.2f}):\n{clip(c.good.answer, EXCERPT)}\n"
        f"BAD attempt (score {c.bad_score:.2f}; {clip(c.bad.feedback, 160)}):\n{clip(c.bad.answer, EXCERPT)}"
        for c in contrasts
    ]
    user = prompts.render(
        "contrast_user",
        project=project_name,
        rules=rules_text(docs),
        attempts="\n\n".join(blocks),
        preferences=prompts.preferences_text(preferences),
    )
    return edits_request(prompts.render("contrast_system"), user, budget, stage=STAGE)


def contrastive_edits(
    client, tasks: Sequence[SleepTask], train: ReplayResult, docs: Sequence[Doc], budget: int, project_name: str, metric: str,
    preferences: str = "",
) -> tuple[list[DocEdit], str, list[Contrast]]:
    """(edits, a note when the call failed, the contrasts shown); no contrast, no call."""
    contrasts = pick(tasks, train, metric)
    if not contrasts:
        return [], "", []
    request = contrast_request(contrasts, docs, budget, project_name, preferences)
    edits, note = ask_edits(client, request, budget, origin="contrast")
    return edits, note, contrasts
