"""The gate contract: keep a candidate skill only if it beats the current one.

A gate sees both skills' per-item validation scores on the *same* items (with
repeats for stochastic targets) and returns a :class:`~skillopt.records.Verdict`.
The engine pairs the two evaluations before a gate sees them: an item with no valid
result on either side (a provider error) is left out of both, so a gate never
compares a skill's answers with another skill's outages. A *sequential* gate is
shown the evidence in looks with more repeats per item and may answer ``more``
until its last look (racing: a clear loser is rejected after one pass).
"""

from __future__ import annotations

import abc
import re
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from skillopt.config.schema import EvaluationConfig, RunConfig
from skillopt.records import Verdict

if TYPE_CHECKING:
    from collections.abc import Iterable


@attrs.frozen(kw_only=True)
class Evaluation:
    """One skill's scores on a split: ``items[item_id]`` lists (hard, soft) per valid
    repeat; ``missing[item_id]`` says why an item has no valid repeat at all."""

    #: the evaluated skill text
    skill: str
    #: its ``skill_hash``
    skill_hash: str
    #: ``val`` or ``test``
    split: str
    #: item id -> (hard, soft) of each valid repeat
    items: dict[str, list[tuple[float, float]]]
    #: item id -> why it has no valid repeat (the first line of the provider error)
    missing: dict[str, str] = attrs.field(factory=dict)
    #: task type of each item (gates may weigh or guard by type)
    task_types: dict[str, str] = attrs.field(factory=dict)

    @property
    def n(self) -> int:
        """Items with at least one valid repeat."""
        return len(self.items)

    def only(self, item_ids: Iterable[str]) -> Evaluation:
        """The same evaluation restricted to ``item_ids``."""
        keep = set(item_ids)
        return attrs.evolve(self, items={k: v for k, v in self.items.items() if k in keep}, missing={})

    def item_metric(self, metric: str, weight: float = 0.5) -> dict[str, float]:
        """Item id -> ``metric`` (``hard``, ``soft`` or ``mixed``) averaged over its repeats."""
        out = {}
        for item_id, runs in self.items.items():
            vals = [metric_of(hard, soft, metric, weight) for hard, soft in runs]
            out[item_id] = sum(vals) / len(vals) if vals else 0.0
        return out

    def mean(self, metric: str = "hard", weight: float = 0.5) -> float:
        """``metric`` averaged over items (each item's repeats averaged first); 0.0 with no items."""
        per_item = self.item_metric(metric, weight)
        return sum(per_item.values()) / len(per_item) if per_item else 0.0

    @property
    def hard(self) -> float:
        """Mean hard score over items."""
        return self.mean("hard")

    @property
    def soft(self) -> float:
        """Mean soft score over items."""
        return self.mean("soft")


def metric_of(hard: float, soft: float, metric: str, weight: float = 0.5) -> float:
    """One result's ``metric``: ``hard``, ``soft``, or ``mixed`` (``weight`` on soft)."""
    if metric == "hard":
        return hard
    if metric == "soft":
        return soft
    return (1.0 - weight) * hard + weight * soft


_PROTECTED = re.compile(r"<!-- (SLOW_UPDATE|APPENDIX)_START -->.*?<!-- \1_END -->", re.DOTALL)


def semantic_density(skill: str, leading_words: tuple[str, ...]) -> float:
    """Share of lines using a leading word (MUST, NEVER ...), protected blocks excluded."""
    body = _PROTECTED.sub("", skill)
    lines = [line for line in body.splitlines() if line.strip()]
    if not lines:
        return 0.0
    words = [w.upper() for w in leading_words]
    hits = sum(1 for line in lines if any(re.search(rf"\b{re.escape(w)}\b", line.upper()) for w in words))
    return hits / len(lines)


@attrs.frozen(kw_only=True)
class Look:
    """Which look at the evidence a sequential gate is given (1-based)."""

    #: 1-based number of this look
    index: int = 1
    #: repeats per item in this look's evidence
    repeats: int = 1
    #: no further look: the gate must decide (a ``more`` is taken as ``reject``)
    last: bool = True
    #: share of the val items in this look's evidence: below 1 in a race's early rounds,
    #: where a gate may stop a clear loser or a clear winner before every item is run
    fraction: float = 1.0
    #: rounds the candidate's first pass was raced in (1 = no race); they count as looks
    race_rounds: int = 1


def pair(current: Evaluation, candidate: Evaluation) -> tuple[Evaluation, Evaluation, dict[str, str]]:
    """Both evaluations restricted to the items valid on both sides, and why the others
    were left out."""
    shared = [i for i in current.items if i in candidate.items]
    excluded: dict[str, str] = {}
    for item in {*current.items, *candidate.items, *current.missing, *candidate.missing}:
        if item in current.items and item in candidate.items:
            continue
        reason = candidate.missing.get(item) or current.missing.get(item) or "no result"
        side = "candidate" if item not in candidate.items else "current"
        excluded[item] = f"{side}: {reason}"
    return current.only(shared), candidate.only(shared), dict(sorted(excluded.items()))


def build_gate(cfg: RunConfig) -> Gate:
    """The run's gate (``evaluation.gate``) with its typed ``[gates.NAME]`` settings."""
    from skillopt.plugin_config import settings_for
    from skillopt.registry import get

    comp = get("gates", cfg.evaluation.gate)
    built: Gate = comp.obj(cfg.evaluation, settings=settings_for(cfg, "gates", cfg.evaluation.gate, comp.obj.Config))
    return built


#: evaluation keys that do not change what the gate decides on val
NOT_GATE_SETTINGS = ("eval_test", "test_env_num", "attribution_rollouts", "sel_env_num")


def settings_fingerprint(cfg: RunConfig, val_ids: Iterable[str]) -> str:
    """The one fingerprint of a gate's decision: its items (``val_ids``), the
    ``[evaluation]`` settings that change a verdict (the gate's name among them) and the
    gate plugin's own ``[gates.NAME]`` settings. A gate stage's saved result, a race's and
    the rejected-edit ledger's gate context are all keyed by it, so a changed setting
    never reuses a verdict taken under another."""
    import hashlib
    import json

    from skillopt.serde import to_data

    e = cfg.evaluation
    settings = {k: v for k, v in to_data(e).items() if k not in NOT_GATE_SETTINGS}
    data = {"gate": settings, "plugin": cfg.gates.get(e.gate, {}), "val": list(val_ids)}
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]


class Gate(abc.ABC):
    """Base class of gate plugins."""

    #: the name it is registered and selected under (``evaluation.gate``)
    name: ClassVar[str] = ""
    #: one line for ``skillopt list`` (default: the docstring's first line)
    summary: ClassVar[str] = ""
    #: shown the evidence in looks (``decide(current, candidate, look)``), may answer ``more``
    sequential: ClassVar[bool] = False
    #: typed ``[gates.NAME]`` keys of this gate (an attrs class), read as ``self.settings``
    Config: ClassVar[type | None] = None

    def __init__(self, config: EvaluationConfig, settings: Any = None) -> None:
        """``config``: the ``[evaluation]`` section; ``settings``: ``[gates.NAME]`` (None = ``Config()``)."""
        self.config = config
        self.settings = settings if settings is not None else (self.Config() if self.Config is not None else None)

    def score(self, evaluation: Evaluation) -> float:
        """The gate score of one evaluation: the metric mean plus the optional density bonus."""
        c = self.config
        value = evaluation.mean(c.gate_metric, c.gate_mixed_weight)
        if c.use_semantic_density:
            value += c.semantic_density_weight * semantic_density(evaluation.skill, c.leading_words)
        return value

    def repeat_plan(self) -> tuple[int, int]:
        """(repeats per item of the first look, the most repeats a look may reach): the
        engine plans the gate's val rollouts and the estimate's worst case from it. A
        gate that decides at once looks only once (``evaluation.gate_repeats`` each)."""
        return self.config.gate_repeats, self.config.gate_repeats

    def max_race_rounds(self) -> int:
        """The most rounds a candidate's first pass may be raced in (1 = no race: only a
        sequential gate can stop a pass early)."""
        return 1

    def planned_looks(self, race_rounds: int = 1) -> int:
        """Looks it may take at one candidate (1 for a gate that decides at once)."""
        return 1

    def min_items_to_accept(self, race_rounds: int = 1) -> int | None:
        """The fewest paired val items on which this gate can accept a candidate at all
        (one better on every item, by as much as a score can be), from the gate's own
        statistics; None when any number can (the default: a mean comparison). The run's
        first lines and ``skillopt check`` say when val is smaller. ``race_rounds``: the
        rounds the engine races the first pass in (they count as looks)."""
        return None

    @abc.abstractmethod
    def decide(self, current: Evaluation, candidate: Evaluation) -> Verdict:
        """Accept or reject ``candidate`` against ``current`` (same items).

        A sequential gate's signature is ``decide(current, candidate, look=Look())``."""
