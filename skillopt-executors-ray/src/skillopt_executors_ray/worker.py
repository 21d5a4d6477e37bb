"""The worker actor: one process of the cluster with the run's env and target backend.

Built once per actor from the run's :class:`~skillopt.api.WorkerSpec` (so an embedded
model loads once per worker, not per item); it runs several items at once (a threaded
actor) and returns each :class:`~skillopt.api.ItemOutcome` when it finishes.
"""

from __future__ import annotations

import os
import socket
from typing import Any

import attrs

from skillopt.api import EnvUnavailable, WorkerRuntime, WorkerSpec
from skillopt_executors_ray.gateway import GatewayLink


class RolloutWorker:
    """Ray actor around a :class:`~skillopt.api.WorkerRuntime`."""

    def __init__(self, spec: WorkerSpec, gateway: Any):
        self.where = f"Ray worker on {socket.gethostname()} (pid {os.getpid()})"
        self.runtime: WorkerRuntime | None = None
        self.problem: EnvUnavailable | None = None
        try:
            self.runtime = WorkerRuntime(spec, GatewayLink(gateway), where=self.where)
        except EnvUnavailable as exc:  # reported by ready(): a failed constructor would only say "actor died"
            self.problem = exc

    def ready(self) -> dict[str, Any]:
        """Where this worker runs; raises what kept it from building the run."""
        if self.problem is not None:
            raise self.problem
        return {"pid": os.getpid(), "host": socket.gethostname()}

    def run(self, item, skill: str):
        """One item (its skill travels once per skill as a shared object, not per item)."""
        assert self.runtime is not None
        return self.runtime.run(attrs.evolve(item, skill=skill))

    def cancel(self, ticket: int) -> None:
        if self.runtime is not None:
            self.runtime.cancel(ticket)

    def close(self) -> None:
        if self.runtime is not None:
            self.runtime.close()
