"""``ray``: rollouts on a pool of worker actors of a Ray cluster.

The engine keeps every decision and every file; this executor only moves items. Each
item goes to the least busy worker actor as a :class:`~skillopt.api.WorkItem` (the skill
as a shared object, put once per skill), and its outcome is handed back to the engine as
soon as Ray has it (a collector thread waits on the items in flight), so progress,
deadlines and the engine's worker slots behave as with threads. Model calls made on the
workers are booked by the driver through :mod:`skillopt_executors_ray.gateway`.

A worker that dies mid-item (its process or its node is lost) never produces a score:
the item is sent again to another worker under a new ticket (the lost attempt's
reservations stay counted: they may have been paid), and the dead actor is replaced in
the background. After ``item_attempts`` lost attempts the item is missing data
(:class:`~skillopt.api.WorkerLost`), retried by the engine like a provider failure.
"""

from __future__ import annotations

import collections
import math
import threading
from collections.abc import Callable
from typing import Any

import attrs
from attrs import validators as v

from skillopt.api import (
    CallHost,
    Cancelled,
    ConfigError,
    Executor,
    ItemOutcome,
    WorkerLost,
    WorkerSpec,
    WorkItem,
    new_ticket,
    skill_hash,
    warn,
)
from skillopt_executors_ray.cluster import connect, disconnect, import_ray
from skillopt_executors_ray.gateway import GatewayServer
from skillopt_executors_ray.worker import RolloutWorker

#: seconds a replacement worker may take to build the env and the backend
REPLACE_TIMEOUT_S = 300.0
#: shared skill objects kept (the skills of the evaluations running side by side)
SKILLS_KEPT = 16


@attrs.frozen(kw_only=True)
class RayConfig:
    """``[executors.ray]``: the worker pool (the cluster is ``engine.ray_address``)."""

    #: worker actors (0 = one per ``cpus_per_actor`` CPUs of the cluster, at most ``env.workers``)
    actors: int = attrs.field(default=0, validator=v.ge(0))
    #: CPUs Ray reserves for each actor (an embedded model's threads want more than one)
    cpus_per_actor: float = attrs.field(default=1.0, validator=v.gt(0))
    #: CPUs of the local Ray started when ``engine.ray_address`` is '' (0 = all of this machine's)
    local_cpus: int = attrs.field(default=0, validator=v.ge(0))
    #: attempts of an item whose worker died, before it is reported missing (never scored)
    item_attempts: int = attrs.field(default=3, validator=v.ge(1))


@attrs.define
class _Worker:
    """One actor of the pool."""

    index: int
    handle: Any
    host: str = ""
    pid: int = 0
    up: bool = True
    replacing: bool = False
    load: int = 0


@attrs.define
class _Attempt:
    """One attempt of one engine item (a retry is a new attempt with a new ticket)."""

    item: WorkItem
    origin: int
    model: Any
    done: Callable[[ItemOutcome], None]
    number: int = 1
    tried: frozenset[int] = frozenset()
    worker: _Worker | None = None


class RayExecutor(Executor):
    """Rollouts on worker actors of a Ray cluster (engine.ray_address; docs/ray.md)."""

    name = "ray"
    Config = RayConfig

    def start(self, job) -> None:
        super().start(job)
        if job.config is None:
            raise ConfigError("the ray executor rebuilds the env and the model on each worker from the run's config; none was given")
        self.options = self.settings or RayConfig()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._attempts: dict[Any, _Attempt] = {}  # ObjectRef -> attempt in flight
        self._by_origin: dict[int, _Attempt] = {}
        self._parked: list[_Attempt] = []  # waiting for a worker (every one was down)
        self._skills: collections.OrderedDict[str, Any] = collections.OrderedDict()
        self.workers: list[_Worker] = []
        self.gateway = None
        self.connected = False
        self.spec = WorkerSpec.for_run(job.config)
        self.ray = import_ray()
        self.connected = connect(self.engine.ray_address, local_cpus=self.options.local_cpus)
        try:
            self.host = CallHost(job.config)
            self.gateway = GatewayServer(self.ray, self.host)
            count = self._pool_size(job.config.env.workers)
            self.per_actor = math.ceil(job.config.env.workers / count)
            self.workers = [_Worker(index=i, handle=self._new_actor()) for i in range(count)]
            for worker, info in zip(self.workers, self.ray.get([w.handle.ready.remote() for w in self.workers])):
                worker.host, worker.pid = info["host"], info["pid"]
        except BaseException as exc:
            self.close()
            cause = getattr(exc, "cause", None)  # a worker's own error, not Ray's wrapping of it
            if isinstance(cause, Exception):
                raise cause from None
            raise
        self._collector = threading.Thread(target=self._collect_forever, name="ray-collector", daemon=True)
        self._collector.start()

    # ------------------------------------------------------------------ the pool

    def _pool_size(self, slots: int) -> int:
        if self.options.actors:
            return self.options.actors
        cpus = float(self.ray.cluster_resources().get("CPU", 1.0))
        return max(1, min(slots, int(cpus // self.options.cpus_per_actor)))

    def _new_actor(self):
        remote = self.ray.remote(RolloutWorker).options(
            num_cpus=self.options.cpus_per_actor, max_concurrency=self.per_actor + 2, scheduling_strategy="SPREAD",
        )
        return remote.remote(self.spec, self.gateway.actor)

    def describe(self) -> list[dict]:
        """The pool as it is now: index, host, pid, whether up, items in flight."""
        with self._lock:
            return [{"index": w.index, "host": w.host, "pid": w.pid, "up": w.up, "load": w.load} for w in self.workers]

    # ------------------------------------------------------------------ submitting

    def submit(self, item: WorkItem, model: Any, done: Callable[[ItemOutcome], None]) -> None:
        attempt = _Attempt(item=item, origin=item.ticket, model=model, done=done)
        self.host.route(item.ticket, model)
        with self._lock:
            self._by_origin[item.ticket] = attempt
            self._dispatch(attempt)

    def _dispatch(self, attempt: _Attempt) -> None:
        """Send an attempt to the least busy worker it has not died on (caller holds the lock)."""
        up = [w for w in self.workers if w.up]
        fresh = [w for w in up if w.index not in attempt.tried] or up
        if not fresh:
            self._parked.append(attempt)
            return
        worker = min(fresh, key=lambda w: (w.load, w.index))
        shipped = attrs.evolve(attempt.item, skill="")
        ref = worker.handle.run.options(name=f"rollout {attempt.item.key}").remote(shipped, self._skill_ref(attempt.item.skill))
        worker.load += 1
        attempt.worker = worker
        self._attempts[ref] = attempt

    def _skill_ref(self, skill: str):
        h = skill_hash(skill)
        ref = self._skills.get(h)
        if ref is None:
            ref = self._skills[h] = self.ray.put(skill)
            while len(self._skills) > SKILLS_KEPT:
                self._skills.popitem(last=False)
        self._skills.move_to_end(h)
        return ref

    def abandon(self, item: WorkItem) -> None:
        with self._lock:
            attempt = self._by_origin.pop(item.ticket, None)
            if attempt in self._parked:
                self._parked.remove(attempt)
        if attempt is None:
            return
        self.host.forget(attempt.item.ticket)
        if attempt.worker is not None:
            try:
                attempt.worker.handle.cancel.remote(attempt.item.ticket)
            except Exception:  # noqa: BLE001 - the worker is gone: nothing left to stop
                pass

    # ------------------------------------------------------------------ collecting

    def _collect_forever(self) -> None:
        ray = self.ray
        while not self._closing.is_set():
            with self._lock:
                refs = list(self._attempts)
            if not refs:
                self._closing.wait(0.02)
                continue
            try:
                ready, rest = ray.wait(refs, num_returns=1, timeout=0.1)
                if ready and rest:
                    more, _ = ray.wait(rest, num_returns=len(rest), timeout=0)
                    ready += more
            except Exception:  # noqa: BLE001 - Ray is shutting down
                if self._closing.wait(0.2):
                    return
                continue
            for ref in ready:
                self._collect(ref)

    def _collect(self, ref) -> None:
        ray = self.ray
        with self._lock:
            attempt = self._attempts.pop(ref, None)
            if attempt is None:
                return
            attempt.worker.load = max(0, attempt.worker.load - 1)
        try:
            outcome = ray.get(ref)
        except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                ray.exceptions.ObjectLostError, ray.exceptions.LocalRayletDiedError) as exc:
            self._lost(attempt, exc)
            return
        except ray.exceptions.TaskCancelledError:
            outcome = ItemOutcome(error=Cancelled("the item was cancelled on its worker"))
        except ray.exceptions.RayTaskError as exc:  # the actor method itself failed (not the env: run() returns those)
            cause = getattr(exc, "cause", None)
            outcome = ItemOutcome(error=cause if isinstance(cause, BaseException) else RuntimeError(str(exc)))
        self._finish(attempt, outcome)

    def _finish(self, attempt: _Attempt, outcome: ItemOutcome) -> None:
        self.host.forget(attempt.item.ticket)
        with self._lock:
            if self._by_origin.get(attempt.origin) is attempt:
                del self._by_origin[attempt.origin]
        attempt.done(outcome)

    def _lost(self, attempt: _Attempt, exc: BaseException) -> None:
        """The attempt's worker died: retry the item elsewhere (never score it)."""
        worker = attempt.worker
        self.host.forget(attempt.item.ticket)  # its slots are free; its reservations stay counted
        reason = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        with self._lock:
            replace = worker.up and not worker.replacing and not self._closing.is_set()
            worker.up = False
            worker.replacing = worker.replacing or replace
            current = self._by_origin.get(attempt.origin) is attempt
        if replace:
            threading.Thread(target=self._replace, args=(worker,), name=f"ray-replace-{worker.index}", daemon=True).start()
        if not current:
            return  # the engine gave up on the item meanwhile
        where = f"the Ray worker on {worker.host} (pid {worker.pid})"
        if attempt.number >= self.options.item_attempts:
            self._finish(attempt, ItemOutcome(error=WorkerLost(
                f"{where} died while running {attempt.item.key}, the item's attempt {attempt.number} of "
                f"{self.options.item_attempts} ({reason})")))
            return
        warn(f"{where} died while running {attempt.item.key} ({reason}); retrying the item on another worker")
        retry = attrs.evolve(attempt, item=attrs.evolve(attempt.item, ticket=new_ticket()), number=attempt.number + 1,
                             tried=attempt.tried | {worker.index}, worker=None)
        self.host.route(retry.item.ticket, attempt.model)
        with self._lock:
            self._by_origin[attempt.origin] = retry
            self._dispatch(retry)

    def _replace(self, worker: _Worker) -> None:
        """A fresh actor in a dead one's place (Ray may place it on another node)."""
        ray = self.ray
        try:
            ray.kill(worker.handle, no_restart=True)
        except Exception:  # noqa: BLE001 - already gone
            pass
        try:
            handle = self._new_actor()
            info = ray.get(handle.ready.remote(), timeout=REPLACE_TIMEOUT_S)
        except Exception as exc:  # noqa: BLE001 - no replacement: the others carry on
            warn(f"could not replace the lost Ray worker {worker.index} ({type(exc).__name__}: {exc}); carrying on without it")
            with self._lock:
                worker.replacing = False
                orphans = self._parked if not any(w.up for w in self.workers) else []
                self._parked = [a for a in self._parked if a not in orphans]
            for attempt in orphans:
                self._finish(attempt, ItemOutcome(error=WorkerLost(f"no Ray worker is left to run {attempt.item.key}")))
            return
        with self._lock:
            worker.handle, worker.host, worker.pid = handle, info["host"], info["pid"]
            worker.up, worker.replacing = True, False
            parked, self._parked = self._parked, []
            for attempt in parked:
                self._dispatch(attempt)

    # ------------------------------------------------------------------ the end

    def close(self) -> None:
        closing = getattr(self, "_closing", None)
        if closing is None:
            return
        closing.set()
        collector = getattr(self, "_collector", None)
        if collector is not None:
            collector.join(2)
        host = getattr(self, "host", None)
        if host is not None:
            host.close()
        if self.gateway is not None:
            self.gateway.close()
        for worker in self.workers:
            try:
                self.ray.kill(worker.handle, no_restart=True)
            except Exception:  # noqa: BLE001 - gone with the cluster
                pass
        if self.connected:
            disconnect()
            self.connected = False
