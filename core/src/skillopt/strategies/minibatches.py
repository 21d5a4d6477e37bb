"""``minibatches``: each proposal is merged from its own share of the analysts' minibatches.

One step's analysts each read a minibatch of trajectories; merging all their patches
into one candidate lets one bad edit sink the good ones with it. This sampler deals the
patches round-robin into ``search.proposals`` groups (in the analysts' order, so failure
and success minibatches spread over the groups) and merges each group on its own: K
independent candidates from disjoint evidence, at the cost of K smaller merges and no
extra rollout or analyst call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillopt.hookspecs import hookimpl
from skillopt.strategies import Sampler

if TYPE_CHECKING:
    from skillopt.hookspecs import Register
    from skillopt.records import Patch


class Minibatches(Sampler):
    """K proposals, each merged from a disjoint share of the step's analyst minibatches."""

    name = "minibatches"
    summary = "K proposals per step, each merged from its own share of the analysts' minibatches (independent evidence)"

    def groups(self, patches: tuple[Patch, ...], k: int, seed: int) -> tuple[tuple[int, ...], ...]:
        k = max(1, min(k, len(patches)))
        return tuple(tuple(range(g, len(patches), k)) for g in range(k)) if patches else ()


@hookimpl
def skillopt_register_strategies(register: Register[type[Sampler]]) -> None:
    register(Minibatches)
