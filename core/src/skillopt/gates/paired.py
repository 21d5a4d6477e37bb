"""``paired``: a statistically honest gate.

It compares the two skills item by item on the same validation items (averaging
repeats for stochastic targets), and accepts only when the mean paired difference
exceeds ``gate_min_margin`` *and* a one-sided sign-flip permutation test says the
improvement is unlikely to be noise at ``gate_confidence``. With
``gate_no_regression`` any item that gets worse blocks the candidate.
"""

from __future__ import annotations

import itertools
import random

from skillopt.gates import Evaluation, Gate
from skillopt.hookspecs import hookimpl
from skillopt.records import Verdict

EXACT_LIMIT = 16
MC_SAMPLES = 20000


def sign_flip_p_value(diffs: list[float], *, seed: int = 0) -> float:
    """One-sided p-value of mean(diffs) > 0 under random sign flips (exact for n <= 16)."""
    nonzero = [d for d in diffs if abs(d) > 1e-12]
    if not nonzero:
        return 1.0
    observed = sum(nonzero)
    if len(nonzero) <= EXACT_LIMIT:
        total = hits = 0
        for signs in itertools.product((1, -1), repeat=len(nonzero)):
            total += 1
            if sum(s * d for s, d in zip(signs, nonzero, strict=True)) >= observed - 1e-12:
                hits += 1
        return hits / total
    rng = random.Random(seed)
    hits = 0
    for _ in range(MC_SAMPLES):
        if sum(d if rng.random() < 0.5 else -d for d in nonzero) >= observed - 1e-12:
            hits += 1
    return (hits + 1) / (MC_SAMPLES + 1)


class PairedGate(Gate):
    """Per-item paired comparison with a permutation test, margin and no-regression guard."""

    name = "paired"
    summary = "paired per-item test on the same val items: margin, confidence, no-regression"

    def decide(self, current: Evaluation, candidate: Evaluation) -> Verdict:
        c = self.config
        cur_items = current.item_metric(c.gate_metric, c.gate_mixed_weight)
        cand_items = candidate.item_metric(c.gate_metric, c.gate_mixed_weight)
        shared = sorted(set(cur_items) & set(cand_items))
        diffs = [cand_items[i] - cur_items[i] for i in shared]
        mean_diff = sum(diffs) / len(diffs) if diffs else 0.0
        p_value = sign_flip_p_value(diffs)
        confidence = 1.0 - p_value
        improved = sum(1 for d in diffs if d > 1e-9)
        regressed = [i for i, d in zip(shared, diffs, strict=True) if d < -1e-9]
        cur_score, cand_score = self.score(current), self.score(candidate)
        reasons = []
        if mean_diff <= c.gate_min_margin:
            reasons.append(f"mean paired gain {mean_diff:+.4f} is not above the margin {c.gate_min_margin}")
        if confidence < c.gate_confidence:
            reasons.append(f"confidence {confidence:.3f} is below {c.gate_confidence}")
        if c.gate_no_regression and regressed:
            reasons.append(f"{len(regressed)} item(s) regressed")
        accepted = not reasons
        return Verdict(
            accepted=accepted,
            action="accept" if accepted else "reject",
            metric=c.gate_metric,
            current_score=cur_score,
            candidate_score=cand_score,
            reason="; ".join(reasons) if reasons else
            f"gain {mean_diff:+.4f} on {len(shared)} paired items, confidence {confidence:.3f}",
            n_items=len(shared),
            confidence=confidence,
            details={
                "mean_diff": mean_diff,
                "p_value": p_value,
                "improved": improved,
                "regressed": len(regressed),
                "regressed_items": regressed[:50],
                "repeats": max((len(r) for r in candidate.items.values()), default=0),
            },
        )


@hookimpl
def skillopt_register_gates(register):
    register(PairedGate)
