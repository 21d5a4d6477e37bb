"""``threads``: every item on a daemon thread of this process (the built-in default)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillopt.executors import Done, Executor, WorkItem, run_item
from skillopt.hookspecs import hookimpl

if TYPE_CHECKING:
    from skillopt.hookspecs import Register


class SpareThreads:
    """Daemon threads kept for the next task: starting a thread per item costs about ten
    times a hand-off to one that waits, and the submitting thread (the batch driving the
    critical path) waits for each start. An idle thread exits after ``idle_s``; a thread
    whose item outlives its deadline is simply not idle, so a new one takes the next item."""

    def __init__(self, name: str, idle_s: float = 30.0):
        self.name, self.idle_s = name, idle_s
        self._idle: list[queue.SimpleQueue[Callable[[], None] | None]] = []
        self._lock = threading.Lock()

    def run(self, task: Callable[[], None]) -> None:
        """Run ``task`` on a spare thread (a new one when none is idle); returns at once."""
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
        if inbox is not None:
            inbox.put(task)
            return
        threading.Thread(target=self._serve, args=(queue.SimpleQueue(), task), daemon=True, name=self.name).start()

    def _serve(self, inbox: queue.SimpleQueue[Callable[[], None] | None], task: Callable[[], None] | None) -> None:
        while task is not None:
            task()
            task = None
            with self._lock:
                self._idle.append(inbox)
            try:
                task = inbox.get(timeout=self.idle_s)
            except queue.Empty:
                with self._lock:
                    if inbox in self._idle:  # nobody picked this thread meanwhile: it ends
                        self._idle.remove(inbox)
                        return
                task = inbox.get()  # picked just now: its task is on the way


class ThreadExecutor(Executor):
    """Rollouts on threads of this process (one per item in flight, up to env.workers)."""

    name = "threads"

    def submit(self, item: WorkItem, model: Any, done: Done) -> None:
        job = self.job

        def work() -> None:
            done(run_item(job.env, item, model, cancel=job.cancel, workdir=Path(item.workdir) if item.workdir else None))

        _THREADS.run(work)


#: shared by every run of the process (a thread waits for its next item, whichever run's)
_THREADS = SpareThreads("rollout")


@hookimpl
def skillopt_register_executors(register: Register[type[Executor]]) -> None:
    register(ThreadExecutor)
