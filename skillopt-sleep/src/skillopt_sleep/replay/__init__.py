"""Replaying mined tasks under a set of documents, and scoring the answers.

The target model sees the documents (skill and memory, as the agent would) and the
developer's request, and answers in text: it never gets a shell or a file system,
tools are only named (``TOOL_CALL: name``, sanitised). Infrastructure failures and
empty replies are recorded as ``error`` — never as a score of 0 — so a flaky
endpoint cannot make a candidate look better or worse; a pending handoff prompt is
``pending``. A spent budget stops the replay and propagates.
"""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Sequence

import attrs

from skillopt.api import (
    BackendError,
    BudgetExceeded,
    Cancelled,
    CompletionRequest,
    Evaluation,
    Message,
    Score,
    SkillOptError,
    skill_hash,
)
from skillopt_sleep import prompts
from skillopt_sleep.documents import Doc
from skillopt_sleep.mine.tasks import SleepTask
from skillopt_sleep.options import in_sleep_terms
from skillopt_sleep.redaction import clip
from skillopt_sleep.replay.judging import score_checks, score_rubric
from skillopt_sleep.sentinel import mark

MAX_DOC_CHARS = 12000
ANSWER_EXCERPT = 600


@attrs.frozen(kw_only=True)
class Attempt:
    task_id: str
    repeat: int
    status: str  # ok | error | pending
    hard: float = 0.0
    soft: float = 0.0
    answer: str = ""
    feedback: str = ""


@attrs.frozen(kw_only=True)
class ReplayResult:
    phase: str
    docs_hash: str
    docs_text: str
    attempts: tuple[Attempt, ...] = ()

    @property
    def errors(self) -> int:
        return sum(1 for a in self.attempts if a.status == "error")

    @property
    def pending(self) -> int:
        return sum(1 for a in self.attempts if a.status == "pending")

    def by_task(self) -> dict[str, list[Attempt]]:
        out: dict[str, list[Attempt]] = {}
        for a in self.attempts:
            out.setdefault(a.task_id, []).append(a)
        return out

    def evaluation(self, split: str = "val", only: set[str] | None = None) -> Evaluation:
        """The gate's view: (hard, soft) per task over its *successful* attempts."""
        items: dict[str, list[tuple[float, float]]] = {}
        for a in self.attempts:
            if a.status != "ok" or (only is not None and a.task_id not in only):
                continue
            items.setdefault(a.task_id, []).append((a.hard, a.soft))
        return Evaluation(skill=self.docs_text, skill_hash=self.docs_hash, split=split, items=items)

    def failing(self) -> list[str]:
        return [tid for tid, runs in self.by_task().items() if any(a.status == "ok" and a.hard < 1.0 for a in runs)]


def docs_text(docs: Sequence[Doc]) -> str:
    return "\n\n".join(f"[{d.role}: {d.path.name}]\n{d.text}" for d in docs)


def attempt_request(task: SleepTask, docs: Sequence[Doc], *, project_name: str, seed: int) -> CompletionRequest:
    skill = next((d.text for d in docs if d.role == "skill"), "")
    memory = next((d.text for d in docs if d.role == "memory"), "")
    system = mark(
        prompts.render(
            "attempt_system",
            project=project_name or "(unnamed)",
            skill=clip(skill, MAX_DOC_CHARS) or "(empty)",
            memory=clip(memory, MAX_DOC_CHARS) or "(empty)",
        )
    )
    user = (
        f"## Request\n{task.intent}\n\n{task.context}\n\n"
        "You cannot run anything here. Answer with the exact shell commands you would run, in order "
        "(in a bash code block), then a short description of the changes you would make. "
        "To use a tool, write a line `TOOL_CALL: <name>`."
    )
    return CompletionRequest(
        messages=(Message(role="system", content=system), Message(role="user", content=user)),
        max_tokens=700,
        role="target",
        stage="sleep-replay",
        seed=seed,
    )


def both(checks: Score, rubric: Score) -> Score:
    """A task with checks and a rubric: it passes when both do; ``soft`` is their mean."""
    feedback = "; ".join(f for f in (checks.feedback if checks.hard < 1 else "", rubric.feedback if rubric.hard < 1 else "") if f)
    return Score(hard=min(checks.hard, rubric.hard), soft=(checks.soft + rubric.soft) / 2, feedback=feedback or "all checks pass")


class NoAnswer(BackendError):
    """The attempt got no scorable answer (an empty reply, or a task nothing can judge):
    an error, never a score of 0. A backend error, so the training engine records the
    item as *missing* (left out of both sides of a gate, retried once), not as a failed
    item scored 0."""


def attempt(task: SleepTask, docs, target, judge, *, project_name: str, seed: int) -> tuple[str, Score]:
    """One replay of ``task`` under ``docs`` and its score; raises what failed
    (:class:`NoAnswer`, a backend's error), so a caller decides what an error is."""
    completion = target.complete(attempt_request(task, docs, project_name=project_name, seed=seed))
    answer = completion.text or ""
    if not answer.strip():
        raise NoAnswer("empty reply")
    if task.checks and task.rubric and judge is not None:
        return answer, both(score_checks(task.checks, answer), score_rubric(judge, task.intent, task.rubric, answer))
    if task.checks:
        return answer, score_checks(task.checks, answer)
    if task.rubric and judge is not None:
        return answer, score_rubric(judge, task.intent, task.rubric, answer)
    raise NoAnswer("task has no checks and no judge")


def _one(task: SleepTask, docs, repeat: int, target, judge, project_name: str, seed: int) -> Attempt:
    from skillopt_sleep.replay.handoff import HandoffPending

    try:
        answer, score = attempt(task, docs, target, judge, project_name=project_name, seed=seed)
    except HandoffPending as exc:
        return Attempt(task_id=task.id, repeat=repeat, status="pending", feedback=str(exc)[:200])
    except (BudgetExceeded, Cancelled):
        raise
    except NoAnswer as exc:
        return Attempt(task_id=task.id, repeat=repeat, status="error", feedback=str(exc))
    except SkillOptError as exc:
        feedback = in_sleep_terms(f"{type(exc).__name__}: {exc}")
        return Attempt(task_id=task.id, repeat=repeat, status="error", feedback=clip(feedback, 300))
    return Attempt(
        task_id=task.id,
        repeat=repeat,
        status="ok",
        hard=score.hard,
        soft=score.soft,
        answer=clip(answer, ANSWER_EXCERPT),
        feedback=score.feedback,
    )


def replay(
    tasks: Sequence[SleepTask],
    docs: Sequence[Doc],
    target,
    judge=None,
    *,
    phase: str,
    repeats: int = 1,
    seed: int = 42,
    salt: int = 0,
    project_name: str = "",
    workers: int = 4,
    on_attempt=None,
) -> ReplayResult:
    """Every task ``repeats`` times under ``docs``; ``salt`` changes the sampling seed so
    a final check draws fresh (uncached) samples. ``on_attempt(done, total)`` is called as
    each attempt finishes (progress), in completion order."""
    text = docs_text(docs)
    jobs = [(task, r, seed + 1000 * salt + r) for task in tasks for r in range(max(1, repeats))]
    attempts: list[Attempt] = []
    stop: BaseException | None = None
    with cf.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(_one, task, docs, r, target, judge, project_name, s) for task, r, s in jobs]
        for done, fut in enumerate(cf.as_completed(futures), 1):
            try:
                attempts.append(fut.result())
            except (BudgetExceeded, Cancelled) as exc:
                stop = stop or exc
            if on_attempt is not None:
                on_attempt(done, len(futures))
    if stop is not None:
        raise stop
    attempts.sort(key=lambda a: (a.task_id, a.repeat))
    return ReplayResult(phase=phase, docs_hash=skill_hash(text), docs_text=text, attempts=tuple(attempts))
