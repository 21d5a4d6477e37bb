"""Running the target on many tasks: threads, deadlines, per-item resume.

Each finished item is appended to ``results.jsonl`` with the hash of the skill it ran
under, so a resumed run redoes only missing items *of the same skill* (upstream keys
the log by directory, so a regenerated candidate inherits stale results). Items run on
daemon threads with a deadline; an item past its deadline is recorded as a timeout and
its late result is discarded, never written over the record.
"""

from __future__ import annotations

import hashlib
import queue
import threading
import time
import traceback
from pathlib import Path

import attrs

from skillopt.envs import Env, RolloutContext
from skillopt.errors import AuthError, BadRequestError, BudgetExceeded, CacheMiss, Cancelled, SkillOptError
from skillopt.records import Rollout, Score, Task, skill_hash
from skillopt.redact import redact_text
from skillopt.serde import from_data, to_data
from skillopt.engine.rundir import append_jsonl, read_jsonl, safe_name, write_json

FATAL = (AuthError, BadRequestError, BudgetExceeded, CacheMiss, Cancelled)


def item_key(task_id: str, repeat: int) -> str:
    return f"{task_id}#r{repeat}"


def item_seed(seed: int, task_id: str, repeat: int) -> int:
    digest = hashlib.sha256(f"{seed}:{task_id}:{repeat}".encode()).hexdigest()
    return int(digest[:8], 16)


class SystemicFailure(SkillOptError):
    """Every rollout failed for infrastructure reasons: the run stops instead of scoring 0."""


class RolloutRunner:
    def __init__(self, env: Env, client, *, workers: int, timeout_s: float, cancel: threading.Event | None = None, reporter=None):
        self.env = env
        self.client = client
        self.workers = max(1, workers)
        self.timeout_s = timeout_s
        self.cancel = cancel or threading.Event()
        self.reporter = reporter

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
    ) -> list[Rollout]:
        h = skill_hash(skill)
        log = out_dir / "results.jsonl"
        results: dict[str, Rollout] = {}
        for rec in read_jsonl(log):
            if rec.get("skill_hash") == h and "rollout" in rec:
                results[rec["key"]] = from_data(rec["rollout"], Rollout)
        wanted = [(t, r) for t in tasks for r in range(repeats)]
        jobs = [(t, r) for t, r in wanted if item_key(t.id, r) not in results]
        total = len(wanted)
        self._progress(label, total - len(jobs), total)
        if jobs:
            self._execute(jobs, skill, h, out_dir, log, training=training, seed=seed, results=results, label=label, total=total)
        ordered = [results[item_key(t.id, r)] for t, r in wanted]
        failed = [ro for ro in ordered if ro.status != "ok"]
        if ordered and len(failed) == len(ordered):
            raise SystemicFailure(
                f"all {len(ordered)} rollouts of '{label}' failed before the target answered "
                f"(first error: {failed[0].error or failed[0].status}); fix the backend and re-run to resume"
            )
        return ordered

    # ------------------------------------------------------------------ internals

    def _progress(self, label: str, done: int, total: int) -> None:
        if self.reporter is not None:
            self.reporter.items(label, done, total)

    def _execute(self, jobs, skill, h, out_dir, log, *, training, seed, results, label, total) -> None:
        done_q: queue.Queue = queue.Queue()
        pending = list(jobs)
        running: dict[str, float] = {}
        fatal: BaseException | None = None
        claim = threading.Lock()
        abandoned: set[str] = set()
        saving: set[str] = set()

        def work(task: Task, repeat: int, key: str) -> None:
            ctx = RolloutContext(
                seed=item_seed(seed, task.id, repeat),
                training=training,
                workdir=out_dir / "predictions" / self._folder(task.id, repeat),
                timeout_s=self.timeout_s,
                repeat=repeat,
                cancel=self.cancel,
            )
            started = time.monotonic()
            try:
                rollout = self.env.rollout(task, skill, self.client, ctx)
                exc = None
            except BaseException as error:  # noqa: BLE001 - reported per item or re-raised as fatal
                rollout, exc = None, error
            record = None
            if exc is None or not isinstance(exc, FATAL):
                record = self._finish(task, repeat, h, rollout, exc, time.monotonic() - started)
                with claim:  # a timed-out item's late result must never overwrite its record
                    if key in abandoned:
                        return
                    saving.add(key)
                self._save(out_dir, log, key, h, task, repeat, record)
            done_q.put((key, record, exc))

        while pending or running:
            while pending and len(running) < self.workers and fatal is None and not self.cancel.is_set():
                task, repeat = pending.pop(0)
                key = item_key(task.id, repeat)
                running[key] = time.monotonic()
                threading.Thread(target=work, args=(task, repeat, key), daemon=True, name=f"rollout-{key}").start()
            if fatal is not None or self.cancel.is_set():
                break
            try:
                key, record, exc = done_q.get(timeout=0.2)
            except queue.Empty:
                key = None
            if key is not None and key in running:
                del running[key]
                if exc is not None and isinstance(exc, FATAL):
                    fatal = exc
                    break
                results[key] = record
                self._progress(label, len(results), total)
            now = time.monotonic()
            for k, started in list(running.items()):
                if now - started > self.timeout_s:
                    with claim:
                        if k in saving:  # it finished just now; its result is on its way
                            continue
                        abandoned.add(k)
                    del running[k]
                    task, repeat = self._job_of(jobs, k)
                    record = Rollout(
                        task_id=task.id, task_type=task.task_type, status="timeout", skill_hash=h, repeat=repeat,
                        error=f"timed out after {self.timeout_s:.0f}s", duration_s=now - started,
                        score=Score(hard=0.0, soft=0.0, feedback=f"timed out after {self.timeout_s:.0f}s"),
                    )
                    self._save(out_dir, log, k, h, task, repeat, record)
                    results[k] = record
                    self._progress(label, len(results), total)
        if fatal is not None:
            raise fatal
        if self.cancel.is_set():
            raise Cancelled("run cancelled")

    @staticmethod
    def _job_of(jobs, key):
        for task, repeat in jobs:
            if item_key(task.id, repeat) == key:
                return task, repeat
        raise KeyError(key)

    def _finish(self, task: Task, repeat: int, h: str, rollout: Rollout | None, exc, elapsed: float) -> Rollout:
        if exc is not None:
            message = redact_text(f"{type(exc).__name__}: {exc}")
            if not isinstance(exc, SkillOptError):
                message += "\n" + redact_text("".join(traceback.format_exception(exc))[-1500:])
            return Rollout(
                task_id=task.id, task_type=task.task_type, status="error", error=message, skill_hash=h, repeat=repeat,
                duration_s=elapsed, score=Score(hard=0.0, soft=0.0, feedback=f"rollout error: {message[:300]}"),
            )
        assert rollout is not None
        return attrs.evolve(
            rollout, task_id=task.id, task_type=rollout.task_type if rollout.task_type != "default" else task.task_type,
            skill_hash=h, repeat=repeat, duration_s=rollout.duration_s or elapsed,
        )

    @staticmethod
    def _folder(task_id: str, repeat: int) -> str:
        return safe_name(task_id) + (f"_r{repeat}" if repeat else "")

    def _save(self, out_dir: Path, log: Path, key: str, h: str, task: Task, repeat: int, rollout: Rollout) -> None:
        folder = out_dir / "predictions" / self._folder(task.id, repeat)
        write_json(folder / "conversation.json", to_data(rollout))
        append_jsonl(log, {"key": key, "skill_hash": h, "rollout": to_data(rollout)})
