"""``pareto``: a pool of skills on the per-item Pareto front of the val split.

One skill rarely wins on every item: a rule that fixes dates may cost names. Hill
climbing keeps only the best mean and forgets the skill that was best on the names.
This strategy keeps up to ``search.pool_size`` skills none of which is beaten on every
item by another (the per-item Pareto front), branches each step from a member drawn in
proportion to the items it is best on (seeded), gates each child against its parent
with the same bounded, scheduled edits, and at an epoch boundary merges the leader with
the member that beats it on the most items, as bounded edits. The leader (best mean)
is the run's current and best skill.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from skillopt.hookspecs import hookimpl
from skillopt.strategies import PoolMember, Strategy

if TYPE_CHECKING:
    from skillopt.hookspecs import Register
    from skillopt.strategies import PoolMember


def dominates(a: PoolMember, b: PoolMember) -> bool:
    """``a`` is at least as good as ``b`` on every shared item and better on one."""
    shared = a.items.keys() & b.items.keys()
    if not shared:
        return False
    at_least = all(a.items[i] >= b.items[i] - 1e-12 for i in shared)
    return at_least and any(a.items[i] > b.items[i] + 1e-12 for i in shared)


def front(pool: tuple[PoolMember, ...]) -> tuple[PoolMember, ...]:
    """The members no other member dominates (pool order kept)."""
    return tuple(m for m in pool if not any(dominates(o, m) for o in pool if o is not m))


def wins(pool: tuple[PoolMember, ...]) -> dict[str, int]:
    """Per member (by hash): the val items on which it has the best score (ties shared)."""
    counts = {m.skill_hash: 0 for m in pool}
    items = set().union(*(m.items.keys() for m in pool)) if pool else set()
    for item in sorted(items):
        scored = [m for m in pool if item in m.items]
        if not scored:
            continue
        top = max(m.items[item] for m in scored)
        for m in scored:
            if m.items[item] >= top - 1e-12:
                counts[m.skill_hash] += 1
    return counts


class ParetoPool(Strategy):
    """A pool of skills on the per-item Pareto front; parents drawn by the items they win."""

    name = "pareto"
    summary = "a pool of up to search.pool_size skills on the per-item Pareto front of val; merges at epoch ends"

    def parent(self, pool: tuple[PoolMember, ...], lead: PoolMember, seed: int) -> PoolMember:
        members = front(pool) or pool
        counts = wins(members)
        weights = [counts[m.skill_hash] for m in members]
        if not any(weights):
            return lead
        return random.Random(seed).choices(members, weights=weights, k=1)[0]

    def admit(self, pool: tuple[PoolMember, ...], child: PoolMember) -> tuple[PoolMember, ...]:
        pool = tuple(m for m in pool if m.skill_hash != child.skill_hash) + (child,)
        kept = front(pool)
        size = max(1, self.settings.pool_size)
        while len(kept) > size:  # the member best on the fewest items goes (then the lower mean, the older)
            counts = wins(kept)
            leader = self.lead(kept).skill_hash
            drop = min((m for m in kept if m.skill_hash != leader), key=lambda m: (counts[m.skill_hash], m.score, m.step))
            kept = tuple(m for m in kept if m is not drop)
        return kept

    def merge_pair(self, pool: tuple[PoolMember, ...]) -> tuple[PoolMember, PoolMember] | None:
        members = front(pool)
        if len(members) < 2:
            return None
        leader = self.lead(members)
        others = [m for m in members if m is not leader]

        def beats(m: PoolMember) -> int:
            return sum(1 for i, v in m.items.items() if v > leader.items.get(i, 0.0) + 1e-12)

        partner = max(others, key=lambda m: (beats(m), m.score, -m.step))
        return (leader, partner) if beats(partner) else None


@hookimpl
def skillopt_register_strategies(register: Register[type[Strategy]]) -> None:
    register(ParetoPool)
