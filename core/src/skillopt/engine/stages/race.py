"""``race``: a step's candidate skills against each other on the gate's val items.

When a step proposes several candidates (``search.proposals`` > 1), only one can go to
the gate against the current skill. The candidates run in the gate's race rounds
(growing prefixes of a seeded order of the val items, then every item), each scored
once per item (the gate's first-pass repeats). After each round the leader (best gate
score on the round's items; the earlier proposal on ties) is compared with every other
candidate by the gate itself, paired item by item: a candidate the leader beats, or (in
an early round) one the gate would already reject against the current skill, is out,
and of the rest only the better half goes on to the next round (successive halving: the
race spends its rollouts on the candidates still likely to win). The race ends when one
candidate is left, when even the leader is behind the current skill (the gate would
reject it on the same items: nothing more is paid), or when every item is scored; the
leader is the
winner and goes to the gate like a single proposal (its val rollouts are reused, so
nothing is paid twice). Each candidate's effect (its score minus the current skill's
on the items it was scored on) is kept, and the losers go to the rejected-edit ledger.
"""

from __future__ import annotations

import hashlib
import math
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import attrs

from skillopt.engine.context import Current, RunContext
from skillopt.engine.rejected import rejected_before
from skillopt.engine.resumable import resumable
from skillopt.engine.stages.gate import fingerprint, race_plan
from skillopt.gates import Evaluation, Look, pair
from skillopt.records import Edit, GateAction, skill_hash
from skillopt.skillbudget import over_budget

STAGE = "race"


@attrs.frozen(kw_only=True)
class Entrant:
    """One proposal's candidate in the race."""

    #: the proposal's number in the step (0-based, in the sampler's order): its ``proposals/pN`` folder
    proposal: int
    #: the merge it came from: its ``proposals/gN`` folder
    group: int = 0
    skill_hash: str
    #: the edits the candidate applied
    edits: tuple[Edit, ...] = ()
    #: val items it was scored on, and its gate score there
    items: int = 0
    score: float = 0.0
    #: its score minus the current skill's on the same items
    effect: float = 0.0
    #: the round it left the race in (0 = never raced: refused)
    round: int = 0
    #: why it lost ('' for the winner)
    out: str = ""


@attrs.frozen(kw_only=True)
class RaceResult:
    entrants: tuple[Entrant, ...]
    #: position of the winner in ``entrants``
    winner: int
    #: rounds run
    rounds: int = 0

    @property
    def won(self) -> Entrant:
        return self.entrants[self.winner]

    @property
    def losers(self) -> tuple[Entrant, ...]:
        return tuple(e for i, e in enumerate(self.entrants) if i != self.winner)


def refusal(run: RunContext, current: Current, candidate: str) -> str:
    """Why the gate would refuse ``candidate`` unscored ('' = it would score it)."""
    why = over_budget(candidate, current.skill, run.cfg.optimizer.max_skill_tokens)
    if why:
        return f"refused: {why}"
    before = rejected_before(run.rejected, current.skill_hash, skill_hash(candidate), run.gate_context)
    return f"refused: rejected before (run {before.run}, step {before.step})" if before is not None else ""


def race(run: RunContext, folder: Path, current: Current, entries: list[tuple[int, int, str, tuple[Edit, ...]]], *,
         current_folder: Path) -> RaceResult:
    """Race ``entries`` ((proposal number, group, skill, edits), distinct skills) and pick
    the winner; a candidate's val rollouts are kept in ``folder/p<proposal>``. A single
    entry wins unscored (the gate scores it)."""
    candidates = [(n, skill, edits) for n, _, skill, edits in entries]
    groups = [g for _, g, _, _ in entries]
    ident = "\x1f".join([current.skill_hash, *(f"{n}:{skill_hash(s)}" for n, s, _ in candidates), fingerprint(run)])
    key = hashlib.sha256(ident.encode()).hexdigest()[:20]

    def compute() -> RaceResult:
        val = list(run.data.val)
        sequential = run.gate.sequential
        rounds = [*(race_plan(run) if sequential else []), val]
        repeats, _ = run.gate.repeat_plan()
        entrants = {i: Entrant(proposal=n, group=groups[i], skill_hash=skill_hash(s), edits=edits)
                    for i, (n, s, edits) in enumerate(candidates)}
        if len(candidates) == 1:
            return RaceResult(entrants=(entrants[0],), winner=0)
        live = []
        for i, (_, skill, _) in enumerate(candidates):
            why = refusal(run, current, skill)
            if why:
                entrants[i] = attrs.evolve(entrants[i], out=why)
            else:
                live.append(i)
                # the full pass (the gate's) goes where the race scored this candidate
                run.evaluator.home(skill, val, folder / f"p{candidates[i][0]}", split="val")
        if not live:
            return RaceResult(entrants=tuple(entrants.values()), winner=0)
        cur_full = run.evaluate_val(current.skill, current_folder, "val: current skill", repeats=repeats)
        leader, index = live[0], 0
        for index, items in enumerate(rounds, start=1):
            last = index == len(rounds)
            scored = evaluate_round(run, folder, candidates, live, items, repeats)
            cur = cur_full.only(t.id for t in items)
            paired = {i: pair(cur, scored[i]) for i in live}
            score = {i: run.gate.score(paired[i][1]) for i in live}
            for i in live:
                entrants[i] = attrs.evolve(entrants[i], items=paired[i][1].n, score=round(score[i], 6), round=index,
                                           effect=round(score[i] - run.gate.score(paired[i][0]), 6))
            leader = max(live, key=lambda i: (score[i], -i))
            look = Look(index=index, repeats=repeats, last=last, fraction=len(items) / len(val), race_rounds=len(rounds))
            for i in [i for i in live if i != leader]:
                why = knocked_out(run, scored[i], scored[leader], paired[i], look, sequential, candidates[leader][0])
                if why:
                    entrants[i] = attrs.evolve(entrants[i], out=why)
                    live.remove(i)
            if sequential and not last and futile(run, paired[leader], look):
                break  # the leader is already behind the current skill: the gate rejects it on this evidence, unpaid
            if not last:  # successive halving: the better half goes on (the earlier proposal on ties)
                ranked = sorted(live, key=lambda i: (-score[i], i))
                for i in ranked[max(1, math.ceil(len(ranked) / 2)):]:
                    entrants[i] = attrs.evolve(entrants[i], out=f"in the lower half after {len(items)} items "
                                                                  f"({score[i]:.3f}; p{candidates[leader][0]} {score[leader]:.3f})")
                    live.remove(i)
            if len(live) == 1:
                break
        top = candidates[leader][0]
        for i in live:
            if i != leader:
                mine, best = entrants[i].score, entrants[leader].score
                entrants[i] = attrs.evolve(entrants[i], out=f"p{top} scored higher ({best:.3f} vs {mine:.3f})" if best > mine
                                           else f"tied with p{top} ({best:.3f}); the earlier proposal goes on")
        return RaceResult(entrants=tuple(entrants.values()), winner=leader, rounds=index)

    return resumable(folder / "result.json", RaceResult, key, compute)


def evaluate_round(run: RunContext, folder: Path, candidates: list[tuple[int, str, Any]], live: list[int], items: list[Any], repeats: int) -> dict[int, Evaluation]:
    """Every live candidate on ``items``, side by side (the runner's workers are shared)."""
    client = run.target.for_stage(STAGE)

    def one(i: int) -> Evaluation:
        number, skill, _ = candidates[i]
        evaluation, _ = run.evaluator.evaluate(skill, items, folder / f"p{number}", split="val", repeats=repeats,
                                               label=f"val: proposal {number}", client=client)
        return evaluation

    with ThreadPoolExecutor(max_workers=len(live)) as pool:
        jobs = {i: pool.submit(one, i) for i in live}
        return {i: job.result() for i, job in jobs.items()}


def futile(run: RunContext, against_current: tuple[Any, ...], look: Look) -> bool:
    """The gate would reject this candidate against the current skill on this round's items."""
    cur_p, cand_p, _ = against_current
    return bool(cur_p.n) and run.gate.decide(cur_p, cand_p, look).action is GateAction.REJECT  # type: ignore[call-arg]  # a sequential gate's decide takes the look (see Gate.decide)


def knocked_out(run: RunContext, mine: Evaluation, leader: Evaluation, against_current: tuple[Any, ...], look: Look,
                sequential: bool, leader_number: int) -> str:
    """Why a candidate leaves the race this round ('' = it stays): the gate, given the
    leader as the candidate and this one as the current skill, accepts the leader; or,
    before the last round, the gate would reject it against the current skill."""
    mine_p, leader_p, _ = pair(mine, leader)
    if mine_p.n:
        verdict = run.gate.decide(mine_p, leader_p, look) if sequential else run.gate.decide(mine_p, leader_p)  # type: ignore[call-arg]  # a sequential gate's decide takes the look (see Gate.decide)
        if verdict.accepted:
            return f"beaten by p{leader_number} on {verdict.n_items} items ({verdict.reason})"
    cur_p, cand_p, _ = against_current
    if sequential and not look.last and futile(run, against_current, look):
        return f"behind the current skill on {cur_p.n} items ({run.gate.decide(cur_p, cand_p, look).reason})"  # type: ignore[call-arg]  # a sequential gate's decide takes the look (see Gate.decide)
    return ""
