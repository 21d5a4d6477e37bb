"""``reflect``: analysts read minibatches of failed and successful trajectories.

One optimizer call per minibatch, in parallel, each saved as it completes (a kill
loses only the calls in flight). A reply that is unusable (schema broken after the
re-asks, cut at the token cap) is a completed outcome, counted and named in the step
record; a call that got no reply at all (provider errors after the retries) is not:
it is retried once within the stage, then left out and reported, and a resumed run
asks again.
"""

from __future__ import annotations

import hashlib
import random
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from skillopt.engine.context import Current, RunContext, StepPlan
from skillopt.engine.resumable import resumable
from skillopt.engine.rollouts import FATAL, AnswersPending, SystemicFailure, is_missing_error, short_reason
from skillopt.engine.stages.records import MinibatchResult, ReflectResult, RolloutResult
from skillopt.errors import AwaitingAnswer, ContextLengthError, SchemaError
from skillopt.records import Rollout

if TYPE_CHECKING:
    from pathlib import Path

    from skillopt.records import Rollout

STAGE = "reflect"


def chunks(items: list[Any], size: int) -> list[list[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def failure_reason(exc: BaseException) -> str:
    """Why an analyst reply was unusable, naming the setting that would help."""
    text = str(exc)
    if "cut off at max_tokens" in text:
        return "reply cut at its token cap (raise model.optimizer.max_tokens)"
    if isinstance(exc, ContextLengthError):
        return "prompt too long for the optimizer's context (lower gradient.minibatch_size or gradient.max_trajectory_chars)"
    return f"reply broke the JSON schema after the re-asks ({short_reason(text)}; try a stronger model.optimizer.model)"


def _key(current: Current, plan: StepPlan, chunk: list[Rollout], kind: str) -> str:
    text = "\x1f".join([current.skill_hash, str(plan.told), kind, current.step_history, current.meta_skill,
                        *(f"{ro.task_id}#{ro.repeat}:{ro.skill_hash}" for ro in chunk)])
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def reflect(run: RunContext, plan: StepPlan, current: Current, rolled: RolloutResult) -> ReflectResult:
    g = run.cfg.gradient
    stage_dir = run.step_dir(plan) / STAGE
    ctx = run.optimizer_context(current, stage=STAGE, budget=plan.told, seed=run.step_seed(plan, "optimizer"))
    jobs = []
    for a, group in enumerate(rolled.groups):
        usable = [ro for ro in group.rollouts if not ro.missing]
        failures = [ro for ro in usable if ro.failed]
        successes = [] if g.failure_only else [ro for ro in usable if not ro.failed]
        random.Random(run.step_seed(plan, STAGE, a, "failure")).shuffle(failures)
        random.Random(run.step_seed(plan, STAGE, a, "success")).shuffle(successes)
        folder = stage_dir if len(rolled.groups) == 1 else stage_dir / f"batch_{a}"
        for kind, rows, tag in (("failure", failures, "fail"), ("success", successes, "succ")):
            for i, chunk in enumerate(chunks(rows, g.minibatch_size)):
                jobs.append((folder / f"minibatch_{tag}_{i:03d}.json", kind, chunk))
    if not jobs:
        return ReflectResult(patches=(), minibatches=0)

    def one(job: tuple[Path, str, list[Rollout]]) -> MinibatchResult:
        path, kind, chunk = job

        def compute() -> MinibatchResult:
            try:
                return MinibatchResult(kind=kind, items=len(chunk), patch=run.policy.reflect(ctx, chunk, run.data.index, kind))
            except FATAL:
                raise
            except (SchemaError, ContextLengthError) as exc:
                return MinibatchResult(kind=kind, items=len(chunk), failure=failure_reason(exc))

        return resumable(path, MinibatchResult, _key(current, plan, chunk, kind), compute)

    results: dict[int, MinibatchResult] = {}
    missing: dict[int, str] = {}
    awaiting: set[int] = set()  # handed to someone who answers later: asked once per run, never healed
    pending = list(range(len(jobs)))
    for round_no in range(2):  # one heal round for calls the provider failed
        if round_no:
            if not pending or not results:
                break
            time.sleep(run.runner.heal_pause_s)
        with ThreadPoolExecutor(max_workers=min(g.analyst_workers, len(pending))) as pool:
            futures = {i: pool.submit(one, jobs[i]) for i in pending}
            for i, future in futures.items():
                try:
                    results[i] = future.result()
                    missing.pop(i, None)
                except Exception as exc:
                    if not is_missing_error(exc):
                        raise
                    missing[i] = short_reason(f"{type(exc).__name__}: {exc}")
                    if isinstance(exc, AwaitingAnswer):
                        awaiting.add(i)
        pending = sorted(set(missing) - awaiting)
    if awaiting:
        raise AnswersPending(len(awaiting), f"reflect, step {plan.step}")
    if missing and not results:
        first = next(iter(missing.values()))
        raise SystemicFailure(f"every analyst call of step {plan.step} failed before the optimizer answered ({first}); "
                              "fix the optimizer backend and re-run to resume", role="optimizer")
    done = [results[i] for i in sorted(results)]
    return ReflectResult(
        patches=tuple(r.patch for r in done if r.patch is not None),
        minibatches=len(jobs),
        failures=tuple(f"{r.kind} minibatch: {r.failure}" for r in done if r.failure),
        missing=tuple(missing.values()),
    )
