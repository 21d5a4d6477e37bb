"""How sure a run is that its best skill beats the initial one on test.

A test lift of +0.05 on 40 items can be noise. The lift is reported with a percentile
bootstrap interval over the paired per-item differences (best minus initial on the same
item, same seeds), and, when several seeds were run, over seeds too: each resample
draws seeds with replacement and then items within each drawn seed, so the interval
carries both sources of variation. Pure functions, seeded: the same inputs give the
same interval.
"""

from __future__ import annotations

import random
from collections import defaultdict

from skillopt.records import Rollout
from skillopt.results import Lift

RESAMPLES = 2000
CONFIDENCE = 0.95


def item_differences(initial: list[Rollout], best: list[Rollout], metric: str = "hard") -> dict[str, float]:
    """Per item scored on both sides: best's mean score minus initial's (over repeats)."""

    def means(rollouts: list[Rollout]) -> dict[str, float]:
        scores: dict[str, list[float]] = defaultdict(list)
        for ro in rollouts:
            if not ro.missing:
                scores[ro.task_id].append(float(getattr(ro.score, metric)))
        return {k: sum(v) / len(v) for k, v in scores.items()}

    a, b = means(initial), means(best)
    return {item: b[item] - a[item] for item in sorted(a.keys() & b.keys())}


def bootstrap_lift(groups: list[list[float]], *, seed: int, metric: str = "hard", resamples: int = RESAMPLES,
                   confidence: float = CONFIDENCE) -> Lift | None:
    """The mean of per-item differences, and its bootstrap interval; ``groups`` holds one
    list of differences per seed (one group = the plain item bootstrap). None without items."""
    groups = [list(g) for g in groups if g]
    if not groups:
        return None
    delta = sum(sum(g) / len(g) for g in groups) / len(groups)
    rng = random.Random(seed)
    stats = []
    for _ in range(resamples):
        drawn = [groups[rng.randrange(len(groups))] for _ in groups] if len(groups) > 1 else groups
        stats.append(sum(sum(rng.choices(g, k=len(g))) / len(g) for g in drawn) / len(drawn))
    stats.sort()
    tail = (1.0 - confidence) / 2
    low = stats[int(tail * (resamples - 1))]
    high = stats[int(round((1.0 - tail) * (resamples - 1)))]
    return Lift(metric=metric, delta=round(delta, 6), low=round(low, 6), high=round(high, 6), confidence=confidence,
                n_items=sum(len(g) for g in groups), n_seeds=len(groups), resamples=resamples)


def describe(lift: Lift | None) -> str:
    """``lift +0.150 (95% CI +0.050 to +0.250, 40 items)``; '' without a lift."""
    if lift is None:
        return ""
    over = f"{lift.n_items} items" + (f" over {lift.n_seeds} seeds" if lift.n_seeds > 1 else "")
    verdict = "" if lift.low > 0 or lift.high < 0 else ", interval includes 0"
    return f"lift {lift.delta:+.3f} ({lift.confidence:.0%} CI {lift.low:+.3f} to {lift.high:+.3f}, {over}{verdict})"
