"""``threads``: every item on a daemon thread of this process (the built-in default)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, TYPE_CHECKING

from skillopt.executors import Done, Executor, WorkItem, run_item
from skillopt.hookspecs import hookimpl

if TYPE_CHECKING:
    from skillopt.hookspecs import Register


class ThreadExecutor(Executor):
    """Rollouts on threads of this process (one per item in flight, up to env.workers)."""

    name = "threads"

    def submit(self, item: WorkItem, model: Any, done: Done) -> None:
        job = self.job

        def work() -> None:
            done(run_item(job.env, item, model, cancel=job.cancel, workdir=Path(item.workdir) if item.workdir else None))

        threading.Thread(target=work, daemon=True, name=f"rollout-{item.key}").start()


@hookimpl
def skillopt_register_executors(register: Register[type[Executor]]) -> None:
    register(ThreadExecutor)
