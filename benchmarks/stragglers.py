"""Stragglers: what hedged requests and a gate that stops at its decision would buy, and cost.

Why: with a provider's long-tailed latency a wave of parallel calls lasts as long as its
slowest call. Two remedies are often proposed: *hedging* (a call still out after the
p-th percentile of latency is sent again; the first answer wins) and *racing* the gate
(stop waiting once the answers in hand decide it). This simulation puts numbers on
both under the upstream kit's latency model (lognormal per call kind, median seconds and
sigma: target 1.0 / 0.6, optimizer 6 / 0.5), for the waves of the kit's workload
(20 target calls, 4 analysts), without running a model: for each setting, the median
wave time over ``--trials`` seeded draws and the extra calls hedging sends.

Racing is simulated for the strict gate (accept iff the candidate's val mean is strictly
higher) on the kit's two gates (9 of 20 correct for the current skill, 15 for the
candidate; then 15 against 16): the decision is known once the answers in hand settle
it whatever the rest say. The rest must still be answered (the candidate's val score is
recorded, and the next step's analysts are shown it), so racing moves them off the
critical path rather than saving them.

    python benchmarks/stragglers.py [--trials 20000]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics

KIT = {"target": (1.0, 0.6), "optimizer": (6.0, 0.5)}


def draw(rng: random.Random, kind: str) -> float:
    median, sigma = KIT[kind]
    return median * math.exp(sigma * rng.gauss(0.0, 1.0))


def percentile(kind: str, p: float) -> float:
    median, sigma = KIT[kind]
    return median * math.exp(sigma * statistics.NormalDist().inv_cdf(p))


def wave(rng: random.Random, kind: str, n: int, hedge_at: float | None) -> tuple[float, int]:
    """(seconds until every call of the wave has an answer, duplicates sent)."""
    longest, extra = 0.0, 0
    for _ in range(n):
        first = draw(rng, kind)
        if hedge_at is not None and first > hedge_at:
            extra += 1
            first = min(first, hedge_at + draw(rng, kind))
        longest = max(longest, first)
    return longest, extra


def race(rng: random.Random, n: int, current: int, candidate: int) -> tuple[float, float]:
    """(seconds until the strict gate's decision is settled, seconds until every answer is in)."""
    outcomes = [1] * candidate + [0] * (n - candidate)
    rng.shuffle(outcomes)
    arrivals = sorted((draw(rng, "target"), ok) for ok in outcomes)
    right, decided = 0, arrivals[-1][0]
    for seen, (t, ok) in enumerate(arrivals, start=1):
        right += ok
        left = n - seen
        if right > current or right + left <= current:  # accepted whatever the rest say / can no longer win
            decided = t
            break
    return decided, arrivals[-1][0]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--trials", type=int, default=20000)
    a = p.parse_args()
    rng = random.Random(0)
    out: dict = {"latency_model": KIT, "hedging": [], "racing": []}
    for kind, n in (("target", 20), ("optimizer", 4)):
        for q in (None, 0.75, 0.9, 0.95):
            at = percentile(kind, q) if q else None
            runs = [wave(rng, kind, n, at) for _ in range(a.trials)]
            out["hedging"].append({"wave": f"{n} {kind} calls", "hedge_after": f"p{int(q * 100)} ({at:.2f} s)" if q else "never",
                                   "median_wave_s": round(statistics.median(r[0] for r in runs), 2),
                                   "extra_calls_per_wave": round(statistics.mean(r[1] for r in runs), 2)})
    for current, candidate in ((9, 15), (15, 16)):
        runs = [race(rng, 20, current, candidate) for _ in range(a.trials)]
        out["racing"].append({"gate": f"current {current}/20, candidate {candidate}/20",
                              "median_decided_s": round(statistics.median(r[0] for r in runs), 2),
                              "median_all_answers_s": round(statistics.median(r[1] for r in runs), 2)})
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
