"""``gate``: the candidate against the current skill on the same val items.

The two evaluations are paired by item: an item with no valid result on either side
(the provider failed even after a retry) is left out of both sides and reported, and
with fewer than ``evaluation.gate_min_items`` valid pairs there is no decision. A
sequential gate (``paired``) looks in rounds: one pass per skill first, then one more
repeat per item while it is undecided, up to ``evaluation.gate_max_repeats``; when the
repeats of a look all equal the previous ones (a deterministic target) that look is
its last.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import attrs

from skillopt.gates import Evaluation, Look, pair
from skillopt.records import GateAction, Verdict
from skillopt.engine.context import Current, RunContext
from skillopt.engine.resumable import resumable
from skillopt.engine.stages.records import EvalScore, GateResult

STAGE = "gate"


def min_items(run: RunContext) -> int:
    configured = run.cfg.evaluation.gate_min_items
    return configured if configured else max(1, math.ceil(len(run.data.val) / 2))


def score_of(run: RunContext, evaluation: Evaluation) -> EvalScore:
    return EvalScore(skill_hash=evaluation.skill_hash, gate_score=run.gate.score(evaluation), hard=evaluation.hard,
                     soft=evaluation.soft, n=evaluation.n, missing=dict(evaluation.missing))


def repeats_identical(*evaluations: Evaluation) -> bool:
    """Every item's repeats agree: more repeats would add nothing (a deterministic target)."""
    return all(len(set(runs)) <= 1 for e in evaluations for runs in e.items.values())


def no_decision(run: RunContext, cur: Evaluation, cand: Evaluation, excluded: dict[str, str], shared: int, look: Look) -> Verdict:
    need = min_items(run)
    reasons = sorted(set(v.split(": ", 1)[-1] for v in excluded.values()))
    return Verdict(
        accepted=False, action=GateAction.NO_DECISION, metric=run.cfg.evaluation.gate_metric,
        current_score=run.gate.score(cur), candidate_score=run.gate.score(cand), n_items=shared,
        reason=f"only {shared} of {len(run.data.val)} val items were scored on both sides (need {need}; "
               f"evaluation.gate_min_items): {'; '.join(reasons[:3])}",
        excluded=excluded, repeats=look.repeats, looks=look.index,
    )


def forced(run: RunContext, cur: Evaluation, cand: Evaluation, reason: str) -> Verdict:
    return Verdict(accepted=True, action=GateAction.FORCE_ACCEPT, forced=True, metric=run.cfg.evaluation.gate_metric,
                   current_score=run.gate.score(cur), candidate_score=run.gate.score(cand), n_items=cand.n, reason=reason)


def gate(run: RunContext, folder: Path, current: Current, candidate: str, *, label: str = "val: candidate",
         force_reason: str = "") -> GateResult:
    """Decide on ``candidate``; its val rollouts and the result are kept in ``folder``."""
    e = run.cfg.evaluation
    sequential = bool(getattr(run.gate, "sequential", False)) and not force_reason
    first = e.gate_repeats
    most = max(first, e.gate_max_repeats) if sequential else first
    ident = f"{current.skill_hash}\x1f{hashlib.sha256(candidate.encode()).hexdigest()}\x1f{run.gate.name}\x1f{e}\x1f{force_reason}"
    key = hashlib.sha256(ident.encode()).hexdigest()[:20]

    def evaluate(skill: str, where: Path, text: str, repeats: int) -> Evaluation:
        return run.evaluate_val(skill, where, text, repeats=repeats)

    def compute() -> GateResult:
        repeats, index = first, 1
        while True:
            cur = evaluate(current.skill, folder / "current", "val: current skill", repeats)
            cand = evaluate(candidate, folder, label, repeats)
            if force_reason:
                verdict = forced(run, cur, cand, force_reason)
                break
            cur_p, cand_p, excluded = pair(cur, cand)
            last = repeats >= most or (index > 1 and repeats_identical(cur_p, cand_p))
            look = Look(index=index, repeats=repeats, last=last)
            if cur_p.n < min_items(run):
                verdict = no_decision(run, cur, cand, excluded, cur_p.n, look)
                break
            verdict = run.gate.decide(cur_p, cand_p, look) if sequential else run.gate.decide(cur_p, cand_p)
            if verdict.action is GateAction.MORE and look.last:
                verdict = attrs.evolve(verdict, action=GateAction.REJECT, accepted=False)
            verdict = attrs.evolve(verdict, excluded=excluded, repeats=repeats, looks=index)
            if verdict.action is not GateAction.MORE:
                break
            repeats, index = repeats + 1, index + 1
        saved = 2 * (most - repeats) * len(run.data.val)
        return GateResult(verdict=verdict, current=score_of(run, cur), candidate=score_of(run, cand), rollouts_saved=saved)

    return resumable(folder / "result.json", GateResult, key, compute)
