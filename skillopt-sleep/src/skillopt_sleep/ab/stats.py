"""The statistics of a paired A/B comparison on binary outcomes.

Both arms run the *same* tasks with the same seeds, so the outcomes are paired, and
two questions are asked of them:

- **Is there a difference at all?** The exact McNemar test: only the discordant pairs
  carry information — ``b`` (A passed, B failed) and ``c`` (A failed, B passed). Under
  "no difference" each discordant pair is a fair coin, so the two-sided p-value is
  ``min(1, 2 · P(X ≤ min(b, c)))`` with ``X ~ Binomial(b + c, ½)``. It is exact (no
  χ² approximation), which matters on the handful of tasks a developer has.
- **How large is it?** The difference in success rate (B − A) with a paired bootstrap
  confidence interval whose resampling unit is the *task*: with several seeds, a task's
  outcomes are averaged over its seeds first, because the seeds of one task are not
  independent of each other. When the number of distinct resamples is small the
  bootstrap distribution is enumerated exactly (multinomial weights), so the interval
  is a number anyone can check by hand; otherwise ``resamples`` draws are made with a
  seeded generator, so the same inputs give the same interval.

The percentile interval at confidence ``1 − α`` runs from the smallest resampled mean
whose cumulative probability reaches ``α/2`` to the smallest whose cumulative
probability reaches ``1 − α/2``.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from fractions import Fraction

import attrs

#: enumerate the bootstrap distribution exactly when it has at most this many resample compositions
EXACT_LIMIT = 200_000
_TOLERANCE = 1e-12


@attrs.frozen(kw_only=True)
class McNemar:
    """The exact McNemar test on paired binary outcomes."""

    #: A passed, B failed
    b: int
    #: A failed, B passed
    c: int
    #: two-sided exact p-value (1.0 when there is no discordant pair)
    p_value: float

    @property
    def discordant(self) -> int:
        return self.b + self.c


@attrs.frozen(kw_only=True)
class BootstrapCI:
    """B − A success-rate difference with its paired (task-level) bootstrap interval."""

    difference: float
    low: float
    high: float
    confidence: float
    tasks: int
    #: ``exact`` (every resample composition weighed) or ``monte-carlo``
    method: str
    #: resample compositions enumerated (exact) or draws made (monte-carlo)
    resamples: int
    seed: int | None = None


def mcnemar_exact(b: int, c: int) -> McNemar:
    """Exact two-sided McNemar test for ``b`` and ``c`` discordant pairs."""
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be non-negative")
    n = b + c
    if n == 0:
        return McNemar(b=b, c=c, p_value=1.0)
    tail = sum(Fraction(math.comb(n, k), 2**n) for k in range(min(b, c) + 1))
    return McNemar(b=b, c=c, p_value=float(min(Fraction(1), 2 * tail)))


def discordant(pairs: Iterable[tuple[int, int]]) -> tuple[int, int]:
    """(b, c) of (A outcome, B outcome) pairs, each outcome 0 or 1."""
    b = c = 0
    for a_ok, b_ok in pairs:
        if a_ok and not b_ok:
            b += 1
        elif b_ok and not a_ok:
            c += 1
    return b, c


def _compositions(n: int, k: int) -> Iterator[tuple[int, ...]]:
    """Every way to put ``n`` draws into ``k`` bins."""
    if k == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in _compositions(n - first, k - 1):
            yield (first, *rest)


def _quantile(distribution: Sequence[tuple[float, float]], q: float) -> float:
    """Smallest value whose cumulative probability reaches ``q`` (values sorted)."""
    total = 0.0
    for value, weight in distribution:
        total += weight
        if total >= q - _TOLERANCE:
            return value
    return distribution[-1][0]


def _exact_distribution(differences: Sequence[float]) -> tuple[list[tuple[float, float]], int]:
    n = len(differences)
    counts = Counter(differences)
    values = sorted(counts)
    probs = [counts[v] / n for v in values]
    log_n = math.lgamma(n + 1)
    weights: Counter[float] = Counter()
    compositions = 0
    for comp in _compositions(n, len(values)):
        compositions += 1
        log_w = log_n + sum(c * math.log(p) - math.lgamma(c + 1) for c, p in zip(comp, probs, strict=True) if c)
        mean = round(sum(c * v for c, v in zip(comp, values, strict=True)) / n, 12)
        weights[mean] += math.exp(log_w)
    return sorted(weights.items()), compositions


def paired_bootstrap(
    outcomes: Sequence[tuple[Sequence[int], Sequence[int]]],
    *,
    confidence: float = 0.95,
    resamples: int = 10_000,
    seed: int = 0,
    exact_limit: int = EXACT_LIMIT,
) -> BootstrapCI:
    """The B − A success-rate difference and its percentile interval, resampling tasks.

    ``outcomes`` holds one ``(A outcomes, B outcomes)`` per task, each a sequence of 0/1
    over the seeds both arms answered (same length, at least one)."""
    if not 0 < confidence < 1:
        raise ValueError("confidence must be in (0, 1)")
    differences = []
    for a_runs, b_runs in outcomes:
        if not a_runs or len(a_runs) != len(b_runs):
            raise ValueError("each task needs the same number (>= 1) of A and B outcomes")
        differences.append(sum(b_runs) / len(b_runs) - sum(a_runs) / len(a_runs))
    if not differences:
        raise ValueError("no task has outcomes in both arms")
    n = len(differences)
    alpha = 1 - confidence
    observed = sum(differences) / n
    distinct = len(set(differences))
    if math.comb(n + distinct - 1, distinct - 1) <= exact_limit:
        distribution, count = _exact_distribution(differences)
        method, used_seed = "exact", None
    else:
        rng = random.Random(seed)
        means = Counter(round(sum(rng.choices(differences, k=n)) / n, 12) for _ in range(resamples))
        distribution = sorted((v, w / resamples) for v, w in means.items())
        method, count, used_seed = "monte-carlo", resamples, seed
    return BootstrapCI(
        difference=observed,
        low=_quantile(distribution, alpha / 2),
        high=_quantile(distribution, 1 - alpha / 2),
        confidence=confidence,
        tasks=n,
        method=method,
        resamples=count,
        seed=used_seed,
    )
