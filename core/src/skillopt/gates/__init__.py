"""The gate contract: keep a candidate skill only if it beats the current one.

A gate sees both skills' per-item validation scores on the *same* items (with
repeats for stochastic targets) and returns a :class:`~skillopt.records.Verdict`.
"""

from __future__ import annotations

import abc
import re
from typing import ClassVar

import attrs

from skillopt.config.schema import EvaluationConfig
from skillopt.records import Verdict


@attrs.frozen(kw_only=True)
class Evaluation:
    """One skill's scores on a split: ``items[item_id]`` lists (hard, soft) per repeat."""

    skill: str
    skill_hash: str
    split: str
    items: dict[str, list[tuple[float, float]]]

    @property
    def n(self) -> int:
        return len(self.items)

    def item_metric(self, metric: str, weight: float = 0.5) -> dict[str, float]:
        out = {}
        for item_id, runs in self.items.items():
            vals = [metric_of(hard, soft, metric, weight) for hard, soft in runs]
            out[item_id] = sum(vals) / len(vals) if vals else 0.0
        return out

    def mean(self, metric: str = "hard", weight: float = 0.5) -> float:
        per_item = self.item_metric(metric, weight)
        return sum(per_item.values()) / len(per_item) if per_item else 0.0

    @property
    def hard(self) -> float:
        return self.mean("hard")

    @property
    def soft(self) -> float:
        return self.mean("soft")


def metric_of(hard: float, soft: float, metric: str, weight: float = 0.5) -> float:
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


class Gate(abc.ABC):
    """Base class of gate plugins."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""

    def __init__(self, config: EvaluationConfig):
        self.config = config

    def score(self, evaluation: Evaluation) -> float:
        """The gate score of one evaluation: the metric mean plus the optional density bonus."""
        c = self.config
        value = evaluation.mean(c.gate_metric, c.gate_mixed_weight)
        if c.use_semantic_density:
            value += c.semantic_density_weight * semantic_density(evaluation.skill, c.leading_words)
        return value

    @abc.abstractmethod
    def decide(self, current: Evaluation, candidate: Evaluation) -> Verdict:
        """Accept or reject ``candidate`` against ``current`` (same items)."""
