"""The workers' line to the driver's books, over Ray alone.

Workers cannot call the driver process directly (a Ray driver hosts no actors, and with
Ray Client it may sit outside the cluster's network), so calls meet in a small async
actor: a worker's call parks there until the driver, which long-polls the actor from one
thread, has served it with the run's :class:`~skillopt.api.CallHost` and posted the
answer. Everything crosses Ray's own connections; nothing else must be reachable.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from typing import Any

from skillopt.api import CallHost, SkillOptError, WorkerLost

#: seconds one long poll of the driver waits for work before asking again
POLL_S = 0.5


class CallGateway:
    """Async actor: workers' calls wait here for the driver's answers."""

    def __init__(self):
        self._pending: asyncio.Queue = asyncio.Queue()
        self._answers: dict[int, asyncio.Future] = {}
        self._ids = itertools.count()

    async def call(self, op: str, ticket: int, args: tuple) -> tuple[str, Any]:
        """A worker's call: ``("ok", value)`` or ``("err", exception)`` once the driver answered."""
        future = asyncio.get_running_loop().create_future()
        call_id = next(self._ids)
        self._answers[call_id] = future
        self._pending.put_nowait((call_id, op, ticket, args))
        return await future

    async def post(self, op: str, ticket: int, args: tuple) -> None:
        """A worker's one-way message (nobody waits for its answer)."""
        self._pending.put_nowait((None, op, ticket, args))

    async def take(self, wait_s: float) -> list[tuple]:
        """The driver's long poll: every call waiting, after at most ``wait_s`` seconds."""
        try:
            first = await asyncio.wait_for(self._pending.get(), wait_s)
        except TimeoutError:
            return []
        batch = [first]
        while not self._pending.empty():
            batch.append(self._pending.get_nowait())
        return batch

    async def answer(self, replies: list[tuple[int, tuple[str, Any]]]) -> None:
        for call_id, reply in replies:
            future = self._answers.pop(call_id, None)
            if future is not None and not future.done():
                future.set_result(reply)


class GatewayLink:
    """A worker's link (see :class:`skillopt.api.CallHost`) through the gateway actor."""

    def __init__(self, gateway):
        self.gateway = gateway

    def call(self, op: str, ticket: int, *args: Any) -> Any:
        import ray

        try:
            status, value = ray.get(self.gateway.call.remote(op, ticket, args))
        except ray.exceptions.RayError as exc:  # the driver's side is gone: no answer, never a wrong one
            raise WorkerLost(f"lost the line to the driver ({type(exc).__name__})") from None
        if status == "err":
            raise value
        return value

    def post(self, op: str, ticket: int, *args: Any) -> None:
        self.gateway.post.remote(op, ticket, args)


def _answer(host: CallHost, op: str, ticket: int, args: tuple) -> tuple[str, Any]:
    try:
        return "ok", host.handle(op, ticket, *args)
    except SkillOptError as exc:  # budget spent, item abandoned: the worker's pipeline raises it
        return "err", exc
    except Exception as exc:  # noqa: BLE001 - a driver-side bug reaches the worker as a plain error
        return "err", RuntimeError(f"the driver could not serve {op}: {type(exc).__name__}: {exc}")


class GatewayServer:
    """The driver's side: one thread long-polls the gateway and answers with ``host``."""

    def __init__(self, ray, host: CallHost):
        self.ray, self.host = ray, host
        # on the head node: the cluster does not outlive it, while any worker node may go
        self.actor = ray.remote(CallGateway).options(num_cpus=0, max_concurrency=10_000,
                                                     resources={"node:__internal_head__": 0.001}).remote()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="ray-gateway", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                batch = self.ray.get(self.actor.take.remote(POLL_S))
            except Exception:  # noqa: BLE001 - shutting down, or the actor was lost with its node
                if self._stop.wait(0.2):
                    return
                continue
            replies = []
            for call_id, op, ticket, args in batch:
                if op in CallHost.BLOCKING:  # may wait for a slot: never on the polling thread
                    threading.Thread(target=self._answer_later, args=(call_id, op, ticket, args), daemon=True).start()
                    continue
                reply = _answer(self.host, op, ticket, args)
                if call_id is not None:
                    replies.append((call_id, reply))
            if replies:
                self.actor.answer.remote(replies)

    def _answer_later(self, call_id: int | None, op: str, ticket: int, args: tuple) -> None:
        reply = _answer(self.host, op, ticket, args)
        if call_id is not None and not self._stop.is_set():
            self.actor.answer.remote([(call_id, reply)])

    def close(self) -> None:
        self._stop.set()
        self._thread.join(POLL_S + 2)
        try:
            self.ray.kill(self.actor)
        except Exception:  # noqa: BLE001 - already gone with the cluster
            pass
