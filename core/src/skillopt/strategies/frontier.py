"""``frontier``: a pool of skills on the front of several objectives.

Accuracy is not the only thing a skill costs or earns: a skill is read on every call,
so its length is paid on every item, and a rule can make the target write more (or
less). This strategy measures every kept skill on ``search.objectives`` (val accuracy,
the skill's length in tokens, the target's tokens per val rollout) and keeps up to
``search.pool_size`` skills none of which another beats on all of them (at least as
good on each, better on one): a short skill that is nearly as accurate stays beside the
most accurate one. Each step branches from a front member drawn with the step's seed
(weighted by the val items it is best on, plus one), gates its child against it like
any step, and the most accurate member is the run's current skill. ``search.select``
then picks the final skill from the front by a named rule (see
:mod:`skillopt.engine.selection`).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from skillopt.hookspecs import hookimpl
from skillopt.strategies import PoolMember, Strategy
from skillopt.strategies.pareto import wins

if TYPE_CHECKING:
    from skillopt.hookspecs import Register
    from skillopt.strategies import PoolMember


#: objectives where more is better (the others are costs)
MAXIMISED = frozenset({"accuracy"})
_EPS = 1e-9


def value(member: PoolMember, objective: str) -> float:
    """The member's objective, as a quantity to maximise (costs negated); accuracy falls
    back to the mean score for members saved without objectives."""
    if objective == "accuracy":
        raw = member.objectives.get("accuracy", member.score)
    else:
        raw = member.objectives.get(objective, 0.0)
    return raw if objective in MAXIMISED else -raw


def dominates(a: PoolMember, b: PoolMember, objectives: tuple[str, ...]) -> bool:
    """``a`` is at least as good as ``b`` on every objective and better on one."""
    pairs = [(value(a, o), value(b, o)) for o in objectives]
    return all(x >= y - _EPS for x, y in pairs) and any(x > y + _EPS for x, y in pairs)


def front(pool: tuple[PoolMember, ...], objectives: tuple[str, ...]) -> tuple[PoolMember, ...]:
    """The members no other member dominates (pool order kept; equal members both stay)."""
    return tuple(m for m in pool if not any(dominates(o, m, objectives) for o in pool if o is not m))


class ObjectiveFrontier(Strategy):
    """A pool of skills on the front of accuracy, skill length and the target's tokens per rollout."""

    name = "frontier"
    summary = "a pool of up to search.pool_size skills on the front of search.objectives (accuracy, skill and rollout tokens)"

    @property
    def objectives(self) -> tuple[str, ...]:
        return tuple(self.settings.objectives)

    def parent(self, pool: tuple[PoolMember, ...], lead: PoolMember, seed: int) -> PoolMember:
        members = front(pool, self.objectives) or pool
        counts = wins(members)
        weights = [1 + counts[m.skill_hash] for m in members]
        return random.Random(seed).choices(members, weights=weights, k=1)[0]

    def admit(self, pool: tuple[PoolMember, ...], child: PoolMember) -> tuple[PoolMember, ...]:
        pool = tuple(m for m in pool if m.skill_hash != child.skill_hash) + (child,)
        kept = front(pool, self.objectives)
        size = max(1, self.settings.pool_size)
        while len(kept) > size:
            # the leader and the best member on each objective stay; of the rest, the least accurate (then older) goes
            keep = {self.lead(kept).skill_hash} | {max(kept, key=lambda m: (value(m, o), -m.step)).skill_hash
                                                   for o in self.objectives}
            rest = [m for m in kept if m.skill_hash not in keep] or [m for m in kept if m.skill_hash != self.lead(kept).skill_hash]
            drop = min(rest, key=lambda m: (value(m, "accuracy"), m.step))
            kept = tuple(m for m in kept if m is not drop)
        return kept


@hookimpl
def skillopt_register_strategies(register: Register[type[Strategy]]) -> None:
    register(ObjectiveFrontier)
