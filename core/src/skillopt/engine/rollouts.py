"""Running the target on many tasks: threads, deadlines, per-item resume.

Each finished item is appended to ``results.jsonl`` with the hash of the skill it ran
under, so a resumed run redoes only missing items *of the same skill*. An item whose
provider failed (5xx, rate limit or timeout after the client's retries) or that passed
its deadline is *missing data*: it is reported, never written as a result and never
scored, so the next evaluation (or the resumed run) asks again. Items run where the
run's executor puts them (``threads``: daemon threads of this process); each outcome
comes back here and is written by this process only; an item past its deadline is
abandoned and its late result discarded.
"""

from __future__ import annotations

import functools
import json
import queue
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import attrs

from skillopt.engine.resumable import ItemLog
from skillopt.engine.rundir import safe_name, write_text
from skillopt.engine.seeds import derive_seed
from skillopt.engine.slots import Lane, WorkerSlots
from skillopt.envs import Env
from skillopt.errors import (
    AuthError,
    AwaitingAnswer,
    BackendError,
    BadRequestError,
    BudgetExceeded,
    CacheMiss,
    Cancelled,
    ContextLengthError,
    EnvUnavailable,
    SchemaError,
    SkillOptError,
)
from skillopt.executors import Executor, ExecutorJob, ItemOutcome, WorkItem, new_ticket
from skillopt.fsio import write_atomic
from skillopt.records import Rollout, Score, Task, skill_hash
from skillopt.redact import redact_data, redact_text
from skillopt.serde import to_data

if TYPE_CHECKING:
    from skillopt.config.schema import RunConfig
    from skillopt.engine.progress import NullReporter

#: shown a batch's results in hand each time one arrives (see :meth:`RolloutRunner.run`)
Watch = Callable[[dict[str, Rollout]], None]

FATAL = (AuthError, BadRequestError, BudgetExceeded, CacheMiss, Cancelled, EnvUnavailable)


def item_key(task_id: str, repeat: int) -> str:
    return f"{task_id}#r{repeat}"


def item_seed(seed: int, task_id: str, repeat: int) -> int:
    return derive_seed(seed, "item", task_id, repeat)


def is_missing_error(exc: BaseException) -> bool:
    """A provider failure (no answer obtained), as opposed to a failure of the item."""
    return isinstance(exc, BackendError) and not isinstance(exc, (ContextLengthError, SchemaError, *FATAL))


class SystemicFailure(SkillOptError):
    """Every call of a stage failed for provider reasons: the run stops (resumable)
    instead of scoring the outage. ``role`` names the model that failed."""

    def __init__(self, message: str, *, role: str = "target") -> None:
        super().__init__(message)
        self.role = role


class AnswersPending(SkillOptError):
    """Calls of a stage were handed to someone who answers later (``AwaitingAnswer``).
    Every call of the stage is asked first, so one round collects all of its questions;
    then the run pauses (``awaiting_answers``) and re-running it resumes with the answers."""

    def __init__(self, count: int, label: str):
        super().__init__(f"{count} call(s) of '{label}' wait for answers; answer them and re-run the same command to resume")
        self.count = count
        self.label = label


def missing_summary(rollouts: list[Rollout]) -> str:
    """``"3 of 20 items failed: HTTP 503"`` style reasons of the missing items."""
    missing = [ro for ro in rollouts if ro.missing]
    if not missing:
        return ""
    reasons = Counter(short_reason(ro.error or ro.status) for ro in missing)
    top = "; ".join(f"{text} ×{n}" if n > 1 else text for text, n in reasons.most_common(3))
    return f"{len(missing)} of {len(rollouts)} items failed ({top})"


def model_route(model: Any) -> tuple[str, str]:
    """(role, ledger label) of the client the engine hands an env: a remote executor
    rebuilds that client where the item runs and books its calls the same way."""
    return getattr(model, "role", "") or "target", getattr(model, "label", "") or ""


def short_reason(error: str) -> str:
    first = error.strip().splitlines()[0] if error.strip() else "error"
    return first[:160]


class RolloutRunner:
    def __init__(
        self, env: Env, client: Any, *, workers: int, timeout_s: float, deadline_s: float | None = None,
        cancel: threading.Event | None = None, reporter: NullReporter | None = None, heal_rounds: int = 1, heal_pause_s: float = 2.0,
        executor: Executor | None = None, config: RunConfig | None = None,
    ) -> None:
        """``executor``: where items run (started here; its owner closes it), by default
        threads of this process; ``config``: the run's config, which a remote executor
        rebuilds the env and the models from."""
        from skillopt.executors.threads import ThreadExecutor

        self.env = env
        self.client = client
        self.workers = max(1, workers)
        #: what the env is told (code execution limits and the like)
        self.timeout_s = timeout_s
        #: when the engine gives up on an item: above timeout_s so the client's retries fit
        self.deadline_s = deadline_s if deadline_s is not None else timeout_s
        self.cancel = cancel or threading.Event()
        self.reporter = reporter
        self.heal_rounds = heal_rounds
        self.heal_pause_s = heal_pause_s
        #: ``workers`` is the runner's budget, shared by evaluations that run side by side
        #: (a final evaluation's val and test, work run ahead of its turn), so together
        #: they never exceed it; the critical path goes first (see :mod:`skillopt.engine.slots`)
        self.slots = WorkerSlots(self.workers)
        self._waiting: set[queue.Queue[_Done | None]] = set()
        self._waiting_lock = threading.Lock()
        self.executor = executor if executor is not None else ThreadExecutor()
        self.executor.start(ExecutorJob(env=env, config=config, cancel=self.cancel))

    def run(
        self,
        tasks: list[Task],
        skill: str,
        out_dir: Path,
        *,
        training: bool,
        seed: int,
        repeats: int = 1,
        label: str = "rollout",
        client: Any = None,
        split: str = "",
        watch: Watch | None = None,
    ) -> list[Rollout]:
        """One rollout per (task, repeat), in that order; missing ones have status
        ``error`` or ``timeout``. Raises :class:`SystemicFailure` when every one is missing.
        ``client`` may carry a lane priority (``priority``: 0 = the critical path); ``split``: the
        evaluation's split name the env sees in its context ('' for train steps); ``watch`` is
        shown the results in hand (item key -> rollout, those saved before included) each time
        one arrives, on the thread that collects them (the gate decides from it whether the
        answers still out can change its decision: :mod:`skillopt.engine.stages.gate`)."""
        model = client if client is not None else self.client
        lane = Lane(getattr(model, "priority", 0))
        with self.slots.folder(str(Path(out_dir).absolute()), lane):  # one batch per folder at a time
            return self._run(tasks, skill, out_dir, training=training, seed=seed, repeats=repeats, label=label, model=model,
                             lane=lane, split=split, watch=watch)

    def _run(self, tasks: list[Task], skill: str, out_dir: Path, *, training: bool, seed: int, repeats: int, label: str,
             model: Any, lane: Lane, split: str = "", watch: Watch | None = None) -> list[Rollout]:
        h = skill_hash(skill)
        log = ItemLog(out_dir / "results.jsonl")
        results: dict[str, Rollout] = log.finished(h, Rollout, "rollout")
        if watch is not None:
            watch(results)
        wanted = [(t, r) for t in tasks for r in range(repeats)]
        total = len(wanted)
        awaiting: set[str] = set()  # waiting for an out-of-band answer: healing would only ask again
        for round_no in range(self.heal_rounds + 1):
            jobs = [(t, r) for t, r in wanted if item_key(t.id, r) not in awaiting
                    and (item_key(t.id, r) not in results or results[item_key(t.id, r)].missing)]
            if not jobs:
                break
            got_any = any(not results[item_key(t.id, r)].missing for t, r in wanted if item_key(t.id, r) in results)
            if round_no and not got_any:
                break  # nothing answered: healing would only wait
            if round_no:
                if self.cancel.wait(self.heal_pause_s):
                    raise Cancelled("run cancelled")
            self._progress(label, total - len(jobs), total)
            awaiting |= self._execute(jobs, skill, h, out_dir, log, training=training, seed=seed, results=results,
                                      label=label, total=total, model=model, lane=lane, split=split, watch=watch)
        ordered = [results[item_key(t.id, r)] for t, r in wanted]
        if awaiting:
            raise AnswersPending(len(awaiting), label)
        missing = [ro for ro in ordered if ro.missing]
        if ordered and len(missing) == len(ordered):
            raise SystemicFailure(
                f"all {len(ordered)} rollouts of '{label}' failed before the target answered "
                f"(first error: {short_reason(missing[0].error or missing[0].status)}); fix the backend and re-run to resume"
            )
        return ordered

    # ------------------------------------------------------------------ internals

    def _progress(self, label: str, done: int, total: int) -> None:
        if self.reporter is not None:
            self.reporter.items(label, done, total)

    def _execute(self, jobs: list[tuple[Task, int]], skill: str, h: str, out_dir: Path, log: ItemLog, *, training: bool,
                 seed: int, results: dict[str, Rollout], label: str, total: int, model: Any, lane: Lane,
                 split: str = "", watch: Watch | None = None) -> set[str]:
        """Run ``jobs``; returns the keys of the items that wait for an out-of-band answer."""
        batch = _Batch(self, jobs, skill, h, out_dir, log, training=training, seed=seed, results=results, label=label,
                       total=total, model=model, lane=lane, split=split, watch=watch)
        with self._waiting_lock:
            self._waiting.add(batch.done_q)
        try:
            with self.slots.queued(lane):
                batch.drive()
            return batch.awaiting
        finally:
            lane.pending = 0
            with self._waiting_lock:
                self._waiting.discard(batch.done_q)
            for _ in batch.running:  # abandoned by a fatal error or a cancel: their slots are free again
                self._release(lane)

    def lend(self, optimizer_in_flight: int) -> None:
        """The optimizer's calls in flight changed: while any are out, the critical path
        needs no rollout worker, so background lanes may use them (see :mod:`skillopt.engine.slots`)."""
        if self.slots.lend(optimizer_in_flight > 0):
            self._wake()

    def _acquire(self, lane: Lane) -> bool:
        return self.slots.acquire(lane)

    def _release(self, lane: Lane) -> None:
        """Give a worker slot back and wake every batch waiting for one."""
        self.slots.release(lane)
        self._wake()

    def _wake(self) -> None:
        with self._waiting_lock:
            waiting = list(self._waiting)
        for q in waiting:
            q.put(None)

    def _finish(self, task: Task, repeat: int, h: str, rollout: Rollout | None, exc: BaseException | None, elapsed: float) -> Rollout:
        if exc is not None:
            message = redact_text(f"{type(exc).__name__}: {exc}")
            if not isinstance(exc, SkillOptError):  # a bug: where it happened (on a worker: its own traceback)
                trace = getattr(exc, "remote_traceback", "") or "".join(traceback.format_exception(exc))
                message += "\n" + redact_text(trace[-1500:])
            status = "error" if is_missing_error(exc) else "failed"
            return Rollout(
                task_id=task.id, task_type=task.task_type, status=status, error=message, skill_hash=h, repeat=repeat,
                duration_s=elapsed, score=Score(hard=0.0, soft=0.0, feedback=f"rollout failed: {message[:300]}"),
            )
        assert rollout is not None
        return attrs.evolve(
            rollout, task_id=task.id, task_type=rollout.task_type if rollout.task_type != "default" else task.task_type,
            skill_hash=h, repeat=repeat, duration_s=rollout.duration_s or elapsed,
        )

    @staticmethod
    def _folder(task_id: str, repeat: int) -> str:
        return safe_name(task_id) + (f"_r{repeat}" if repeat else "")

    def _save(self, out_dir: Path, log: ItemLog, key: str, h: str, task: Task, repeat: int, rollout: Rollout,
              files: dict[str, bytes] | None = None) -> None:
        if rollout.missing:
            return  # missing data is reported, never saved as a result
        folder = out_dir / "predictions" / self._folder(task.id, repeat)
        worker_files = [(folder.joinpath(*_inside(name)), data) for name, data in (files or {}).items()]
        for path, data in worker_files:  # what the env wrote on a remote worker (every name checked first)
            write_atomic(path, data)
        # serialised and scrubbed once for both files (compact JSON: the C encoder)
        encoded = json.dumps(redact_data(to_data(rollout)), ensure_ascii=False, default=str)
        write_text(folder / "conversation.json", encoded + "\n")
        log.append_encoded(key, h, "rollout", encoded)


def _inside(name: str) -> tuple[str, ...]:
    """The parts of a worker file's relative path; one that would leave the item's folder
    is refused (it comes from another process)."""
    parts = PurePosixPath(name).parts
    if not parts or PurePosixPath(name).is_absolute() or any(p in ("..", "") for p in parts):
        raise ValueError(f"a worker returned a file outside its item folder: {name!r}")
    return parts


#: what a finished item posts to its batch's driver: its key, its record (None when the
#: error was fatal) and the error; a freed slot posts None
_Done = tuple[str, Any, BaseException | None]


class _Batch:
    """One ``run`` call's items in flight: submitted to the executor while the runner has a
    free slot, collected as they finish, abandoned past their deadline."""

    def __init__(self, runner: RolloutRunner, jobs: list[tuple[Task, int]], skill: str, h: str, out_dir: Path, log: ItemLog, *,
                 training: bool, seed: int, results: dict[str, Rollout], label: str, total: int, model: Any,
                 lane: Lane, split: str = "", watch: Watch | None = None) -> None:
        self.runner, self.skill, self.h, self.out_dir, self.log, self.lane = runner, skill, h, out_dir, log, lane
        self.split, self.watch = split, watch
        self.training, self.seed, self.results, self.label, self.total, self.model = training, seed, results, label, total, model
        self.role, self.stage = model_route(model)
        self.done_q: queue.Queue[_Done | None] = queue.Queue()
        self.pending = list(jobs)
        lane.pending = len(self.pending)
        self.running: dict[str, float] = {}
        self.items: dict[str, WorkItem] = {}
        self.claim = threading.Lock()
        self.abandoned: set[str] = set()
        self.saving: set[str] = set()
        self.by_key = {item_key(t.id, r): (t, r) for t, r in jobs}
        self.answered = sum(1 for ro in results.values() if not ro.missing)
        #: items whose call waits for an out-of-band answer (``AwaitingAnswer``)
        self.awaiting: set[str] = set()

    def item(self, task: Task, repeat: int, key: str) -> WorkItem:
        runner = self.runner
        return WorkItem(
            ticket=new_ticket(), key=key, task=task, skill=self.skill, repeat=repeat,
            seed=item_seed(self.seed, task.id, repeat), training=self.training, split=self.split, timeout_s=runner.timeout_s,
            role=self.role, stage=self.stage, workdir=str(self.out_dir / "predictions" / runner._folder(task.id, repeat)),
        )

    def finished(self, item: WorkItem, outcome: ItemOutcome) -> None:
        """The executor's callback (any thread): record and save the item, then wake the driver."""
        runner, key, task, repeat = self.runner, item.key, item.task, item.repeat
        exc = outcome.error
        record = None
        if exc is None or not isinstance(exc, FATAL):
            record = runner._finish(task, repeat, self.h, outcome.rollout, exc, outcome.elapsed_s)
            with self.claim:  # a timed-out item's late result must never overwrite its record
                if key in self.abandoned:
                    return
                self.saving.add(key)
            try:
                runner._save(self.out_dir, self.log, key, self.h, task, repeat, record, outcome.files)
            except ValueError as bad:  # a worker's file outside its folder: the item failed, nothing written
                record = runner._finish(task, repeat, self.h, None, bad, outcome.elapsed_s)
        self.done_q.put((key, record, exc))

    def drive(self) -> None:
        runner, running = self.runner, self.running
        fatal: BaseException | None = None
        key: str | None
        while self.pending or running:
            while self.pending and fatal is None and not runner.cancel.is_set() and runner._acquire(self.lane):
                task, repeat = self.pending.pop(0)
                self.lane.pending = len(self.pending)
                if not self.pending:
                    runner._wake()  # lanes behind this one may take the slots left
                key = item_key(task.id, repeat)
                running[key] = time.monotonic()
                item = self.items[key] = self.item(task, repeat, key)
                runner.executor.submit(item, self.model, functools.partial(self.finished, item))
            if fatal is not None or runner.cancel.is_set():
                break
            try:
                got = self.done_q.get(timeout=0.2)
            except queue.Empty:
                got = None  # also what a freed slot posts
            key, record, exc = got if got is not None else (None, None, None)
            if key is not None and key in running:
                runner.slots.observe_item(time.monotonic() - running.pop(key))
                runner._release(self.lane)
                if exc is not None and isinstance(exc, FATAL):
                    fatal = exc
                    break
                if isinstance(exc, AwaitingAnswer):
                    self.awaiting.add(key)
                assert record is not None  # only a fatal error posts no record
                self.answered += 0 if record.missing else 1
                self.results[key] = record
                runner._progress(self.label, self.answered, self.total)
                if self.watch is not None:
                    self.watch(self.results)
            self._abandon_late()
        for key in running:  # stopped by a fatal error or a cancel: the executor may stop them
            runner.executor.abandon(self.items[key])
        if fatal is not None:
            raise fatal
        if runner.cancel.is_set():
            raise Cancelled("run cancelled")

    def _abandon_late(self) -> None:
        now = time.monotonic()
        deadline = self.runner.deadline_s
        for k, started in list(self.running.items()):
            if now - started <= deadline:
                continue
            with self.claim:
                if k in self.saving:  # it finished just now; its result is on its way
                    continue
                self.abandoned.add(k)
            del self.running[k]
            self.runner._release(self.lane)
            self.runner.executor.abandon(self.items[k])
            task, repeat = self.by_key[k]
            message = f"timed out after {deadline:.0f}s"
            self.results[k] = Rollout(
                task_id=task.id, task_type=task.task_type, status="timeout", skill_hash=self.h, repeat=repeat,
                error=message, duration_s=now - started, score=Score(hard=0.0, soft=0.0, feedback=message),
            )
