"""``gate``: the candidate against the current skill on the same val items.

The two evaluations are paired by item: an item with no valid result on either side
(the provider failed even after a retry) is left out of both sides and reported. A
decision is only made when the left-out items could not change it (the gate decides
the same with them filled in as the candidate's best case and as its worst case) and
at least ``evaluation.gate_min_items`` pairs are valid; otherwise there is *no
decision*, nothing is saved, and the run stops to be resumed when the provider
answers again (:class:`GateUndecided`). A sequential gate (``paired``) looks in
rounds: one pass per skill first, then one more repeat per item while it is
undecided, up to the most its :meth:`~skillopt.gates.Gate.repeat_plan` allows; when the repeats of a look all
equal the previous ones (a deterministic target) that look is its last.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from skillopt.engine.context import Current, RunContext
from skillopt.engine.rejected import rejected_before
from skillopt.engine.resumable import resumable
from skillopt.engine.rollouts import SystemicFailure
from skillopt.engine.seeds import derive_seed
from skillopt.engine.stages.records import EvalScore, GateResult
from skillopt.engine.stages.settle import OnSettled, Settlement
from skillopt.engine.stages.verdict import decide
from skillopt.gates import Evaluation, Look, pair, settings_fingerprint
from skillopt.records import GateAction, Verdict, skill_hash
from skillopt.skillbudget import over_budget

if TYPE_CHECKING:
    from skillopt.engine.rollouts import Watch

STAGE = "gate"


class GateUndecided(SystemicFailure):
    """Too many val items got no answer to decide: the run stops (resumable)."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(f"the gate could not decide: {verdict.reason}; re-run the same command to retry them", role="target")
        self.verdict = verdict


def fingerprint(run: RunContext) -> str:
    """The gate's one settings fingerprint (:func:`skillopt.gates.settings_fingerprint`):
    the run's ledger context, computed here when a context was built without one."""
    return run.gate_context or settings_fingerprint(run.cfg, [t.id for t in run.data.val])


def min_items(run: RunContext) -> int:
    configured = run.cfg.evaluation.gate_min_items
    return configured if configured else max(1, math.ceil(len(run.data.val) / 2))


def score_of(run: RunContext, evaluation: Evaluation) -> EvalScore:
    return EvalScore(skill_hash=evaluation.skill_hash, gate_score=run.gate.score(evaluation), hard=evaluation.hard,
                     soft=evaluation.soft, n=evaluation.n, missing=dict(evaluation.missing))


def repeats_identical(*evaluations: Evaluation) -> bool:
    """Every item's repeats agree: more repeats would add nothing (a deterministic target)."""
    return all(len(set(runs)) <= 1 for e in evaluations for runs in e.items.values())


def no_decision(run: RunContext, cur: Evaluation, cand: Evaluation, excluded: dict[str, str], shared: int, look: Look,
                why: str) -> Verdict:
    reasons = sorted(set(v.split(": ", 1)[-1] for v in excluded.values()))
    return Verdict(
        accepted=False, action=GateAction.NO_DECISION, metric=run.cfg.evaluation.gate_metric,
        current_score=run.gate.score(cur), candidate_score=run.gate.score(cand), n_items=shared,
        reason=f"{len(excluded)} of {len(run.data.val)} val items got no answer ({'; '.join(reasons[:3])}) {why}",
        excluded=excluded, repeats=look.repeats, looks=look.index,
    )


def filled(cur: Evaluation, cand: Evaluation, excluded: dict[str, str], *, best: bool) -> tuple[Evaluation, Evaluation]:
    """Both sides with every left-out item given the candidate's best (or worst) case."""
    hi, lo = [(1.0, 1.0)], [(0.0, 0.0)]
    cur_items, cand_items = dict(cur.items), dict(cand.items)
    for item in excluded:
        cand_items.setdefault(item, hi if best else lo)
        cur_items.setdefault(item, lo if best else hi)
    return attrs.evolve(cur, items=cur_items, missing={}), attrs.evolve(cand, items=cand_items, missing={})


def forced(run: RunContext, cur: Evaluation, cand: Evaluation, reason: str) -> Verdict:
    return Verdict(accepted=True, action=GateAction.FORCE_ACCEPT, forced=True, metric=run.cfg.evaluation.gate_metric,
                   current_score=run.gate.score(cur), candidate_score=run.gate.score(cand), n_items=cand.n, reason=reason)


def gate(run: RunContext, folder: Path, current: Current, candidate: str, *, label: str = "val: candidate",
         force_reason: str = "", on_settled: OnSettled | None = None) -> GateResult:
    """Decide on ``candidate``; its val rollouts and the result are kept in ``folder``.
    ``on_settled(accepted)`` is called once, as soon as the decision is fixed while val
    answers are still out (:mod:`skillopt.engine.stages.settle`; not for a result saved
    earlier, nor for a refusal, which needs no val answer); the result is the same with
    or without it."""
    told = False

    def settle(accepted: bool) -> None:
        nonlocal told
        if on_settled is not None and not told:
            told = True
            on_settled(accepted)

    sequential = run.gate.sequential and not force_reason
    first, most = run.gate.repeat_plan()
    most = max(first, most) if sequential else first
    ident = f"{current.skill_hash}\x1f{hashlib.sha256(candidate.encode()).hexdigest()}\x1f{fingerprint(run)}\x1f{force_reason}"
    key = hashlib.sha256(ident.encode()).hexdigest()[:20]

    def evaluate(skill: str, where: Path, text: str, repeats: int, watch: Watch | None = None) -> Evaluation:
        return run.evaluate_val(skill, where, text, repeats=repeats, watch=watch)

    def compute() -> GateResult:
        refused = "" if force_reason else over_budget(candidate, current.skill, run.cfg.optimizer.max_skill_tokens)
        if refused:
            return refuse(run, current, candidate, refused, "skill_budget")
        before = None if force_reason else rejected_before(run.rejected, current.skill_hash, skill_hash(candidate), run.gate_context)
        if before is not None:
            return refuse(run, current, candidate, f"rejected before (run {before.run}, step {before.step}: val {before.effect:+.3f}); "
                                                   "not scored again", "rejected_before")
        rounds = race_plan(run) if sequential else []
        raced = race(run, folder, current, candidate, label, rounds, first, settle) if rounds else None
        if raced is not None:
            return raced
        repeats, index = first, len(rounds) + 1 if rounds else 1
        while True:
            cur = evaluate(current.skill, folder / "current", "val: current skill", repeats)
            if force_reason:
                settle(True)
            watch = None
            if on_settled is not None and not told and not force_reason:
                ahead = Look(index=index, repeats=repeats, last=repeats >= most, race_rounds=len(rounds) + 1 if rounds else 1)
                watch = Settlement(run, cur, candidate, repeats, ahead, sequential, settle)
            cand = evaluate(candidate, folder, label, repeats, watch)
            if force_reason:
                verdict = forced(run, cur, cand, force_reason)
                break
            cur_p, cand_p, excluded = pair(cur, cand)
            last = repeats >= most or (repeats > first and repeats_identical(cur_p, cand_p))
            look = Look(index=index, repeats=repeats, last=last, race_rounds=len(rounds) + 1 if rounds else 1)
            if cur_p.n < min_items(run):
                raise GateUndecided(no_decision(run, cur, cand, excluded, cur_p.n, look,
                                                f"and {cur_p.n} valid pairs are fewer than evaluation.gate_min_items={min_items(run)}"))
            verdict = decide(run, cur_p, cand_p, look, sequential)
            if excluded and verdict.action is not GateAction.MORE:
                outcomes = {decide(run, *filled(cur_p, cand_p, excluded, best=b), look, sequential).action for b in (True, False)}
                if outcomes != {verdict.action}:
                    if not look.last:
                        verdict = attrs.evolve(verdict, action=GateAction.MORE, accepted=False)  # look again: retries them too
                    else:
                        raise GateUndecided(no_decision(run, cur, cand, excluded, cur_p.n, look, "and they could change the decision"))
            verdict = attrs.evolve(verdict, excluded=excluded, repeats=repeats, looks=index)
            if verdict.action is not GateAction.MORE:
                break
            repeats, index = repeats + 1, index + 1
        saved = 2 * (most - repeats) * len(run.data.val)
        return GateResult(verdict=verdict, current=score_of(run, cur), candidate=score_of(run, cand), rollouts_saved=saved)

    return resumable(folder / "result.json", GateResult, key, compute)


def refuse(run: RunContext, current: Current, candidate: str, why: str, kind: str) -> GateResult:
    """A candidate the gate will not consider (over the skill budget, or rejected by an
    earlier run under the same gate): rejected before a single val rollout is paid for."""
    n = len(run.data.val)
    verdict = Verdict(accepted=False, action=GateAction.REJECT, metric=run.cfg.evaluation.gate_metric,
                      current_score=current.score, candidate_score=0.0, reason=f"refused: {why}", looks=0, repeats=0,
                      details={"refused": kind})
    return GateResult(verdict=verdict, current=EvalScore(skill_hash=current.skill_hash, gate_score=current.score, hard=current.score,
                                                         soft=current.score, n=n),
                      candidate=EvalScore(skill_hash=skill_hash(candidate), gate_score=0.0, hard=0.0, soft=0.0, n=0),
                      rollouts_saved=n * run.cfg.evaluation.gate_repeats)


#: items an early round must add for a race to be worth its extra looks
RACE_ITEMS_PER_ROUND = 8


def race_plan(run: RunContext) -> list[list[Any]]:
    """The early rounds' item sets (growing prefixes of a seeded order of the val items),
    or [] when the race is off or val is too small to split. A round is at least one
    full wave of ``env.workers`` rollouts, so racing never adds a wave of waiting that
    the full pass would not have."""
    items = list(run.data.val)
    per_round = max(RACE_ITEMS_PER_ROUND, run.cfg.env.workers)
    rounds = min(run.gate.max_race_rounds(), len(items) // per_round)
    if rounds <= 1:
        return []
    order = sorted(items, key=lambda t: derive_seed(run.seed, "race", t.id))
    return [order[: math.ceil(len(items) * k / rounds)] for k in range(1, rounds)]


def race(run: RunContext, folder: Path, current: Current, candidate: str, label: str, rounds: list[list[Any]],
         repeats: int, settle: OnSettled | None = None) -> GateResult | None:
    """The candidate's first pass in rounds: a verdict as soon as one is clear (the val
    rollouts it did not need are reported as saved), else None for the full pass;
    ``settle(True)`` before an accepted candidate's remaining items are run."""
    n = len(run.data.val)
    cur_full = run.evaluate_val(current.skill, folder / "current", "val: current skill", repeats=repeats)
    for index, items in enumerate(rounds, start=1):
        cand, _ = run.evaluator.evaluate(candidate, items, folder, split="val", repeats=repeats, label=label,
                                         client=run.target.for_stage(STAGE))
        cur = cur_full.only(t.id for t in items)
        cur_p, cand_p, excluded = pair(cur, cand)
        if excluded or cur_p.n < len(items):
            return None  # missing answers: the full pass decides (and retries them)
        look = Look(index=index, repeats=repeats, last=False, fraction=len(items) / n, race_rounds=len(rounds) + 1)
        verdict = run.gate.decide(cur_p, cand_p, look)  # type: ignore[call-arg]  # a sequential gate's decide takes the look (see Gate.decide)
        if verdict.action is GateAction.MORE:
            continue
        verdict = attrs.evolve(verdict, repeats=repeats, looks=index, details={**verdict.details, "raced_items": len(items)})
        saved = (n - len(items)) * repeats
        if verdict.accepted:  # the new current skill's score is on every val item, like every score it is compared with;
            # its next gate needs these rollouts anyway (memoised), so nothing is paid twice
            if settle is not None:
                settle(True)  # decided: the rest only completes the recorded score
            cand = run.evaluate_val(candidate, folder, label, repeats=repeats)
            saved = 0
        return GateResult(verdict=verdict, current=score_of(run, cur_full), candidate=score_of(run, cand), rollouts_saved=saved,
                          raced_items=len(items))
    return None
