"""Where rollouts run: the executor contract.

The engine decides *what* runs (which items, under which skill, with which seed, until
which deadline) and is the only writer of the run directory and of the usage journal.
An executor decides *where* each item runs: ``threads`` (built in, the default) runs it
on a thread of this process; a plugin such as ``ray`` ships it to another process or
machine. Either way it calls back with the item's :class:`ItemOutcome` as soon as the
item finishes, so progress, deadlines, missing-data handling and resume work the same.
"""

from __future__ import annotations

import abc
import itertools
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import attrs

from skillopt.records import Rollout, Task


@attrs.frozen(kw_only=True)
class WorkItem:
    """One rollout to run: everything that varies per item, as plain data a remote
    executor can ship (the env, its config and the run's model settings are the run's,
    given once in :class:`ExecutorJob`)."""

    #: unique per submission in this process: an executor keys its bookkeeping on it
    ticket: int
    #: the item's key in ``results.jsonl`` (``TASK_ID#rREPEAT``)
    key: str
    #: the task to run
    task: Task
    #: the skill in the target's prompt (a folder skill's canonical text: ``run_item`` renders it for the env)
    skill: str
    #: 0-based repeat of the item (the gate's repeats)
    repeat: int = 0
    #: the item's seed (pass on to the env's :class:`~skillopt.api.RolloutContext`)
    seed: int = 0
    #: a train-step rollout (True) or an evaluation
    training: bool = False
    #: the evaluation's split name (``val``, ``val_recheck``, ``test`` ...; '' for a train step)
    split: str = ""
    #: seconds the env should give the item (``env.exec_timeout``)
    timeout_s: float = 120.0
    #: the model role whose client runs the item's calls
    role: str = "target"
    #: the ledger label the item's calls are booked under ('' = each request's own stage)
    stage: str = ""
    #: the item's folder in the run directory, on the driver (a remote worker gives the env
    #: a temporary folder instead and returns its files in the outcome)
    workdir: str = ""


@attrs.frozen(kw_only=True)
class ItemOutcome:
    """What became of one item: its rollout, or the exception the env raised."""

    #: the env's result (None when it raised)
    rollout: Rollout | None = None
    #: what the env raised (provider errors, fatal errors, env bugs), or None
    error: BaseException | None = None
    #: seconds the item ran
    elapsed_s: float = 0.0
    #: files a remote worker's env wrote to its folder (relative path -> bytes); the engine
    #: writes them into the run directory, so the driver stays the only writer of run files
    files: dict[str, bytes] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class ExecutorJob:
    """What an executor is given once, before the first item: the run's env (built in this
    process), its resolved config (None for an engine driven without one, as in tests:
    only in-process executors accept that) and the run's cancel event."""

    #: the run's env instance (in-process executors run items on it)
    env: Any
    #: the resolved :class:`~skillopt.api.RunConfig` (remote executors rebuild env and models from it)
    config: Any = None
    #: set when the run is cancelled
    cancel: threading.Event = attrs.field(factory=threading.Event, eq=False)


Done = Callable[[ItemOutcome], None]

_TICKETS = itertools.count(1)


def new_ticket() -> int:
    """A ticket no other submission in this process has (a retry elsewhere takes a new one)."""
    return next(_TICKETS)


class Executor(abc.ABC):
    """Base class of executor plugins, selected by ``engine.executor``.

    The engine calls :meth:`start` once, then :meth:`submit` for each item while it has a
    free worker slot (``env.workers`` in all, shared by evaluations running side by
    side), and :meth:`close` at the end. ``submit`` must return at once and call ``done``
    exactly once, from any thread, when the item has an outcome; an executor never writes
    run files and never books model calls itself (see :mod:`skillopt.executors.remote`
    for running items in other processes)."""

    #: the name it is registered and selected under (``engine.executor``)
    name: ClassVar[str] = ""
    #: one line for ``skillopt plugins`` (default: the docstring's first line)
    summary: ClassVar[str] = ""
    #: typed ``[executors.NAME]`` keys (an attrs class), read as ``self.settings``
    Config: ClassVar[type | None] = None

    def __init__(self, settings: Any = None, *, engine: Any = None) -> None:
        """``settings``: an instance of ``Config`` (or None); ``engine``: the run's
        ``[engine]`` section (:class:`~skillopt.api.EngineConfig`; None = its defaults)."""
        from skillopt.config.schema import EngineConfig

        self.settings = settings
        self.engine = engine if engine is not None else EngineConfig()

    def start(self, job: ExecutorJob) -> None:
        """Prepare to run the job's items (connect, start workers). Raise a
        :class:`~skillopt.api.ConfigError` with one line saying what to fix."""
        self.job = job

    @abc.abstractmethod
    def submit(self, item: WorkItem, model: Any, done: Done) -> None:
        """Run ``item`` and call ``done(outcome)`` when it finishes. ``model`` is the client
        the engine would hand the env in this process (an in-process executor passes it
        to the env; a remote one routes the item's calls back to it instead)."""

    def abandon(self, item: WorkItem) -> None:
        """The engine gave up on ``item`` (past its deadline, or the run stopped): stop it
        if you can. Its outcome, if it still comes, is discarded."""

    def close(self) -> None:
        """Stop workers and release connections (called once, at the end of the run)."""


def run_item(env: Any, item: WorkItem, model: Any, *, cancel: threading.Event | None, workdir: Path | None) -> ItemOutcome:
    """Run one item on ``env`` in this thread: what every executor ends up doing where the
    item runs. Exceptions are captured in the outcome; the engine classifies them."""
    from skillopt.envs import RolloutContext
    from skillopt.skillfolder.target import for_target

    ctx = RolloutContext(seed=item.seed, training=item.training, split=item.split, workdir=workdir, timeout_s=item.timeout_s,
                         repeat=item.repeat, cancel=cancel)
    from skillopt.engine.agent_trace import TraceRecorder

    started = time.monotonic()
    try:
        skill, model = for_target(env, item.skill, model)  # a folder skill: what the env shows its target
        recorder = TraceRecorder(model)  # an agent target's steps join the trajectory
        rollout = recorder.into(env.rollout(item.task, skill, recorder, ctx))
    except BaseException as error:  # noqa: BLE001 - the engine reports it per item or stops the run
        return ItemOutcome(error=error, elapsed_s=time.monotonic() - started)
    return ItemOutcome(rollout=rollout, elapsed_s=time.monotonic() - started)


__all__ = ["Done", "Executor", "ExecutorJob", "ItemOutcome", "WorkItem", "new_ticket", "run_item"]
