"""Search strategies: which skill each step starts from, and which skills are kept.

The paper's loop keeps one current skill and replaces it when a candidate passes the
gate (``hill``, the default). A strategy plugin may keep a pool of skills instead
(``pareto``): it picks the parent each step branches from, decides which gated children
stay in the pool, which member leads (the run's current skill, and the best), and may
propose a merge of two members at an epoch boundary. The engine does everything else
the same way (the six stages, the scheduled edit budget, the gate against the parent),
and it is the only writer of the run state: a strategy is a pure function of the pool,
the plan and the seed, so a resumed run picks exactly what an uninterrupted one would.

A step may also propose several candidates (``search.proposals`` > 1). How they differ
is a *proposal sampler*, a plugin of the same kind (``search.sampler``):
``minibatches`` merges each proposal from its own share of the analysts' minibatches,
``edit-subsets`` merges once and applies different subsets of the merged edits. The
engine races the candidates on the gate's val items with the paired test and gates the
winner; a sampler, too, is a pure function of what it is handed and the step's seed.
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

if TYPE_CHECKING:
    from skillopt.config.schema import SearchConfig
    from skillopt.records import Patch


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
    #: what it is measured on (``search.objectives``): ``accuracy`` (= ``score``), ``skill_tokens`` (its length,
    #: estimated), ``rollout_tokens`` (the target's mean tokens per val rollout); {} in pools saved by older versions
    objectives: dict[str, float] = attrs.field(factory=dict)


class Strategy(abc.ABC):
    """Base class of search-strategy plugins (``search.strategy``)."""

    #: the name it is registered and selected under
    name: ClassVar[str] = ""
    #: one line for ``skillopt plugins``
    summary: ClassVar[str] = ""
    #: keeps one skill (the engine then needs no per-item scores of pool members)
    single: ClassVar[bool] = False
    #: edits a step may apply at most, whatever the learning-rate schedule says (None = the schedule's):
    #: ``1`` puts one edit at a time to the gate (Sleep's search)
    edit_budget: ClassVar[int | None] = None

    def __init__(self, settings: Any = None) -> None:
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


class Sampler(abc.ABC):  # noqa: B024 - both methods have defaults: a sampler overrides the one it needs
    """Base class of proposal samplers (``search.sampler``): how one step's analyst
    patches become up to ``search.proposals`` candidate edit sets.

    The engine merges each group of patches :meth:`groups` returns (one merge tree per
    group), ranks and clips each merge to the step's edit budget as usual, asks
    :meth:`variants` for the edit sets that merge's proposals apply, and keeps the first
    ``search.proposals`` of them in order. Both methods are pure: the same inputs and
    seed give the same proposals, so a resumed step proposes what it proposed before."""

    #: the name it is registered and selected under
    name: ClassVar[str] = ""
    #: one line for ``skillopt plugins``
    summary: ClassVar[str] = ""

    def __init__(self, settings: Any = None) -> None:
        """``settings``: the ``[search]`` section (:class:`~skillopt.config.schema.SearchConfig`)."""
        from skillopt.config.schema import SearchConfig

        self.settings = settings or SearchConfig()

    def groups(self, patches: tuple[Patch, ...], k: int, seed: int) -> tuple[tuple[int, ...], ...]:
        """Indices of the analysts' patches each merge gets (default: all of them, one merge)."""
        return (tuple(range(len(patches))),) if patches else ()

    def variants(self, merged: Patch, selected: Patch, budget: int | None, k: int, seed: int) -> tuple[Patch, ...]:
        """Up to ``k`` edit sets one merge's proposals apply, the first being ``selected``
        (what the edit policy ranked and clipped from ``merged``; default: it alone)."""
        return (selected,)


def is_sampler(obj: object) -> bool:
    return isinstance(obj, type) and issubclass(obj, Sampler)


def is_strategy(obj: object) -> bool:
    return isinstance(obj, type) and issubclass(obj, Strategy)


def check_settings(settings: SearchConfig) -> None:
    """A ConfigError naming the key when ``search.strategy`` is not a strategy plugin or
    ``search.sampler`` not a sampler (both are components of the strategies kind)."""
    import difflib

    from skillopt.errors import ConfigError, PluginError
    from skillopt.registry import get, get_registry

    for key, name, wanted, label in (("strategy", settings.strategy, is_strategy, "search strategies"),
                                     ("sampler", settings.sampler, is_sampler, "proposal samplers")):
        try:
            obj = get("strategies", name).obj
        except PluginError:
            obj = None
        if not wanted(obj):
            names = sorted(c.name for c in get_registry().load_all("strategies") if wanted(c.obj))
            close = difflib.get_close_matches(name, names, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"search.{key}={name!r} is not one of the installed {label}: {', '.join(names)}.{hint}")
