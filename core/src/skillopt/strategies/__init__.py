"""Search strategies: which skill each step starts from, and which skills are kept.

The paper's loop keeps one current skill and replaces it when a candidate passes the
gate (``hill``, the default). A strategy plugin may keep a pool of skills instead
(``pareto``): it picks the parent each step branches from, decides which gated children
stay in the pool, which member leads (the run's current skill, and the best), and may
propose a merge of two members at an epoch boundary. The engine does everything else
the same way (the six stages, the scheduled edit budget, the gate against the parent),
and it is the only writer of the run state: a strategy is a pure function of the pool,
the plan and the seed, so a resumed run picks exactly what an uninterrupted one would.
"""

from __future__ import annotations

import abc
from typing import ClassVar

import attrs


@attrs.frozen(kw_only=True)
class PoolMember:
    """A skill kept by the search, with its per-item val scores (the gate metric)."""

    #: ``skill_hash`` of the skill
    skill_hash: str
    #: its file, relative to the run directory
    path: str
    #: ``initial_skill``, ``step_NNNN``, ``merge_epoch_NN`` ...
    origin: str
    #: its mean val gate score
    score: float
    #: val item id -> its gate-metric score (repeats averaged)
    items: dict[str, float] = attrs.field(factory=dict)
    #: the member it was branched from ('' for the initial skill)
    parent_hash: str = ""
    #: the step that produced it (0 = the initial skill)
    step: int = 0


class Strategy(abc.ABC):
    """Base class of search-strategy plugins (``search.strategy``)."""

    #: the name it is registered and selected under
    name: ClassVar[str] = ""
    #: one line for ``skillopt plugins``
    summary: ClassVar[str] = ""
    #: keeps one skill (the engine then needs no per-item scores of pool members)
    single: ClassVar[bool] = False

    def __init__(self, settings=None):
        """``settings``: the ``[search]`` section (:class:`~skillopt.config.schema.SearchConfig`)."""
        from skillopt.config.schema import SearchConfig

        self.settings = settings or SearchConfig()

    @abc.abstractmethod
    def parent(self, pool: tuple[PoolMember, ...], lead: PoolMember, seed: int) -> PoolMember:
        """The member the next step branches from (``seed`` is the step's own)."""

    @abc.abstractmethod
    def admit(self, pool: tuple[PoolMember, ...], child: PoolMember) -> tuple[PoolMember, ...]:
        """The pool after a gated child joins it (at most ``search.pool_size`` members)."""

    def lead(self, pool: tuple[PoolMember, ...]) -> PoolMember:
        """The member that is the run's current skill: the best mean score (earliest on ties)."""
        return max(pool, key=lambda m: (m.score, -m.step))

    def merge_pair(self, pool: tuple[PoolMember, ...]) -> tuple[PoolMember, PoolMember] | None:
        """Two members to merge at an epoch boundary (the first receives the other's
        lines as bounded edits), or None."""
        return None
