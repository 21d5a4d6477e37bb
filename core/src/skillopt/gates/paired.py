"""``paired``: the default gate, statistically honest and sequential.

It compares the two skills item by item on the same validation items (averaging
repeats for stochastic targets) and accepts only when the mean paired difference
exceeds ``gate_min_margin`` *and* a one-sided sign-flip permutation test says the
gain is unlikely to be noise at ``gate_confidence``. With ``gate_no_regression`` any
item that gets worse blocks the candidate.

It decides in looks (racing). The candidate's first pass runs in
``gate_race_rounds`` rounds of items: after an early round a clear winner is accepted
(at an interim share of the error rate) and a clear loser rejected (worse with a
one-sided p-value of at most ``gate_race_futility`` times the share of items seen),
which can only lower the accept rate. After the full pass a candidate that is not better is rejected, one that is
clearly better accepted, and an undecided one is shown again with one more repeat per
item, up to ``gate_max_repeats``. The error rate is split over the looks (the earlier looks share
a quarter of it, the last gets what remains), so looking more often never raises the
false-accept rate above ``1 - gate_confidence``; ``benchmarks/gate_calibration.py``
measures it. On binary scores the test is exact
at any size (the null distribution is counted, not sampled).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import TYPE_CHECKING

from skillopt.gates import Evaluation, Gate, Look
from skillopt.hookspecs import hookimpl
from skillopt.records import GateAction, Verdict

if TYPE_CHECKING:
    from skillopt.hookspecs import Register


MC_SAMPLES = 20000
#: denominators tried to put paired differences on an integer grid (exact test)
_SCALES = (1, 2, 3, 4, 5, 6, 8, 10, 12, 20, 24, 60)


def _integer_grid(values: list[float]) -> tuple[int, list[int]] | None:
    for scale in _SCALES:
        scaled = [v * scale for v in values]
        if all(abs(x - round(x)) < 1e-9 for x in scaled):
            return scale, [int(round(x)) for x in scaled]
    return None


def sign_flip_p_value(diffs: list[float], *, seed: int = 0) -> float:
    """One-sided p-value of mean(diffs) > 0 under random sign flips.

    Exact when the differences sit on a small rational grid (binary scores averaged
    over a few repeats): the distribution of the signed sum is counted by
    convolution. Otherwise a seeded Monte-Carlo estimate.
    """
    nonzero = [d for d in diffs if abs(d) > 1e-12]
    if not nonzero:
        return 1.0
    grid = _integer_grid([abs(d) for d in nonzero])
    if grid is not None:
        scale, magnitudes = grid
        observed = round(sum(nonzero) * scale)
        counts: Counter[int] = Counter({0: 1})
        for m in magnitudes:
            nxt: Counter[int] = Counter()
            for total, ways in counts.items():
                nxt[total + m] += ways
                nxt[total - m] += ways
            counts = nxt
        hits = sum(ways for total, ways in counts.items() if total >= observed)
        return hits / float(2 ** len(magnitudes))
    observed_f = sum(nonzero)
    rng = random.Random(seed)
    hits = 0
    for _ in range(MC_SAMPLES):
        if sum(d if rng.random() < 0.5 else -d for d in nonzero) >= observed_f - 1e-12:
            hits += 1
    return (hits + 1) / (MC_SAMPLES + 1)


#: the part of the error rate the earlier looks share (the last look keeps the rest)
INTERIM_SHARE = 0.25


def look_alpha(alpha: float, look: Look, planned: int) -> float:
    """The error share of one look: ``alpha * INTERIM_SHARE / (K-1)`` for each earlier
    look of K, and whatever the earlier looks left for the last one (Bonferroni over the
    looks, so the total false-accept rate stays at most ``alpha``)."""
    if planned <= 1:
        return alpha
    interim = alpha * INTERIM_SHARE / (planned - 1)
    return interim if not look.last else alpha - interim * (look.index - 1)


def futility(level: float, fraction: float) -> float:
    """The p(worse) at or below which an early round rejects: ``level`` scaled by the share
    of items seen, so the noisiest rounds need the clearest evidence (measured:
    ``benchmarks/gate_racing.py``)."""
    return level * fraction


class PairedGate(Gate):
    """Per-item paired comparison with a permutation test, margin and no-regression guard."""

    name = "paired"
    summary = "default: paired per-item test on the same val items, in looks with repeats; margin, confidence, no-regression"
    sequential = True

    def repeat_plan(self) -> tuple[int, int]:
        """One more repeat per item per undecided look, up to ``gate_max_repeats``."""
        c = self.config
        return c.gate_repeats, max(c.gate_repeats, c.gate_max_repeats)

    def max_race_rounds(self) -> int:
        """``gate_race_rounds``: the first pass is raced in up to this many rounds."""
        return self.config.gate_race_rounds

    def planned_looks(self, race_rounds: int = 1) -> int:
        """Looks it may take: a race's early rounds, then one per repeat level."""
        c = self.config
        return max(1, c.gate_max_repeats - c.gate_repeats + 1) + max(0, race_rounds - 1)

    def best_look_alpha(self, race_rounds: int = 1) -> float:
        """The largest error share any look may accept at: an early look's share, or a last
        look's rest (the last look is the second when a deterministic target's repeats
        agree, else the last planned one)."""
        planned = self.planned_looks(race_rounds)
        alpha = 1.0 - self.config.gate_confidence
        levels = [look_alpha(alpha, Look(index=i, last=False), planned) for i in range(1, planned)]
        levels += [look_alpha(alpha, Look(index=i, last=True), planned) for i in range(min(2, planned), planned + 1)]
        return max(levels)

    def min_items_to_accept(self, race_rounds: int = 1) -> int | None:
        """The fewest items whose best case (every paired difference +1) has a sign-flip
        p-value within :meth:`best_look_alpha`: with fewer, no candidate can be accepted."""
        if self.config.gate_min_margin >= 1.0:
            return None  # no mean gain can exceed it: the margin, not the item count, is the limit
        level = self.best_look_alpha(race_rounds)
        for n in range(1, 64):
            if sign_flip_p_value([1.0] * n) <= level:
                return n
        return None

    def decide(self, current: Evaluation, candidate: Evaluation, look: Look | None = None) -> Verdict:
        c = self.config
        look = look or Look()
        cur_items = current.item_metric(c.gate_metric, c.gate_mixed_weight)
        cand_items = candidate.item_metric(c.gate_metric, c.gate_mixed_weight)
        shared = sorted(set(cur_items) & set(cand_items))
        diffs = [cand_items[i] - cur_items[i] for i in shared]
        mean_diff = sum(diffs) / len(diffs) if diffs else 0.0
        p_value = sign_flip_p_value(diffs)
        racing = look.fraction < 1.0
        alpha = look_alpha(1.0 - c.gate_confidence, look, self.planned_looks(look.race_rounds))
        improved = sum(1 for d in diffs if d > 1e-9)
        regressed = [i for i, d in zip(shared, diffs, strict=True) if d < -1e-9]
        blockers = []
        if mean_diff <= c.gate_min_margin:
            blockers.append(f"mean paired gain {mean_diff:+.4f} is not above the margin {c.gate_min_margin}")
        if c.gate_no_regression and regressed:
            blockers.append(f"{len(regressed)} item(s) regressed")
        significant = p_value <= alpha
        worse_p = sign_flip_p_value([-d for d in diffs])
        if racing:  # an early round: only a clear winner or a clear loser stops here
            blockers = blockers[1:] if blockers and blockers[0].startswith("mean paired gain") else blockers
            if not blockers and significant:
                action, reason = GateAction.ACCEPT, (f"gain {mean_diff:+.4f} on the first {len(shared)} items, "
                                                     f"p={p_value:.4f} <= {alpha:.4f} (raced)")
            elif blockers or worse_p <= futility(c.gate_race_futility, look.fraction):
                action = GateAction.REJECT
                reason = "; ".join(blockers) or (f"worse on the first {len(shared)} items: gain {mean_diff:+.4f}, "
                                                 f"p(worse)={worse_p:.4f} <= {futility(c.gate_race_futility, look.fraction):.3f} (raced)")
            else:
                action, reason = GateAction.MORE, f"undecided on the first {len(shared)} items (p={p_value:.4f}): more items"
        elif blockers:
            action = GateAction.REJECT
            reason = "; ".join(blockers)
        elif significant:
            action = GateAction.ACCEPT
            reason = f"gain {mean_diff:+.4f} on {len(shared)} paired items, p={p_value:.4f} <= {alpha:.4f}"
        elif look.last:
            action = GateAction.REJECT
            reason = f"gain {mean_diff:+.4f} is not significant: p={p_value:.4f} > {alpha:.4f} (confidence {1 - p_value:.3f})"
        else:
            action = GateAction.MORE
            reason = f"undecided after look {look.index} (p={p_value:.4f}): one more repeat per item"
        return Verdict(
            accepted=action is GateAction.ACCEPT,
            action=action,
            metric=c.gate_metric,
            current_score=self.score(current),
            candidate_score=self.score(candidate),
            reason=reason,
            n_items=len(shared),
            confidence=1.0 - p_value,
            repeats=look.repeats,
            looks=look.index,
            details={
                "mean_diff": mean_diff,
                "p_value": p_value,
                "alpha": alpha,
                "improved": improved,
                "regressed": len(regressed),
                "regressed_items": regressed[:50],
                "repeats": max((len(r) for r in candidate.items.values()), default=0),
                "p_worse": worse_p,
            },
        )


@hookimpl
def skillopt_register_gates(register: Register[type[Gate]]) -> None:
    register(PairedGate)
