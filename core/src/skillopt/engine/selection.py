"""The final pick: which kept skill the run ends with, by a named rule, and on which items.

The best skill used to be the one with the best gate score, measured on the same val
items that accepted it: among many candidates, the luckiest on those items wins, so its
val score is optimistic by construction. Two settings make the pick honest and say what
it optimises:

* ``evaluation.selection_split``: a third split no gate decision uses, carved from val
  (``carved``: ``evaluation.selection_items`` of them, seeded) or given (a path to an
  items file in the env's format). The skills the search kept (a pool's members, the
  hill climber's every accepted skill) are scored on it and the pick is made there.
* ``search.select``: ``best`` (the most accurate), ``smallest`` (the shortest skill whose
  accuracy is within ``search.select_epsilon`` of the best) or ``weighted`` (the largest
  sum of ``search.select_weights`` times each objective).

The pick is a resumable stage (``selection/result.json``); the lift on test is then
measured for the picked skill as before.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from skillopt.engine.context import RunContext
from skillopt.engine.resumable import resumable
from skillopt.engine.seeds import derive_seed
from skillopt.errors import ConfigError
from skillopt.records import Task
from skillopt.strategies import PoolMember

if TYPE_CHECKING:
    from collections.abc import Callable

    from skillopt.config.schema import EvaluationConfig, RunConfig
    from skillopt.envs import Env

STAGE = "selection"
#: the pick's split in the score book and the ledger's stage
SPLIT = "selection"


def active(cfg: RunConfig) -> bool:
    """The final skill is picked among the kept ones (not simply the best gate score)."""
    return bool(cfg.evaluation.selection_split) or cfg.search.select != "best"


def carve(env: Env, val: list[Task], e: EvaluationConfig, seed: int) -> tuple[list[Task], list[Task]]:
    """(the gate's val items, the selection split): ``carved`` takes ``selection_items`` val
    items (default a third), seeded; a path loads that items file (no id may be a val item)."""
    if not e.selection_split:
        return val, []
    if e.selection_split == "carved":
        size = e.selection_items or max(1, len(val) // 3)
        if size >= len(val):
            raise ConfigError(f"evaluation.selection_items={size} leaves no val item for the gate (val has {len(val)})")
        order = sorted(val, key=lambda t: derive_seed(seed, STAGE, t.id))
        chosen = {t.id for t in order[:size]}
        return [t for t in val if t.id not in chosen], [t for t in val if t.id in chosen]
    from skillopt.envs import read_rows

    path = Path(e.selection_split).expanduser()
    if not path.is_file():
        raise ConfigError(f"evaluation.selection_split: 'carved' or an items file; no such file: {path}")
    try:
        tasks = env.tasks_from_rows(read_rows(path), "val", str(path))
    except NotImplementedError:
        raise ConfigError(f"evaluation.selection_split: the {env.name} env reads no items files; use 'carved'") from None
    shared = sorted({t.id for t in tasks} & {t.id for t in val})
    if shared:
        raise ConfigError(f"evaluation.selection_split: {len(shared)} of its items are val items the gate uses "
                          f"({', '.join(shared[:3])}); a selection split must be items the search never saw")
    if e.selection_items:
        tasks = sorted(tasks, key=lambda t: derive_seed(seed, STAGE, t.id))[: e.selection_items]
    if not tasks:
        raise ConfigError(f"evaluation.selection_split: {path} holds no items")
    return val, tasks


@attrs.frozen(kw_only=True)
class Finalist:
    """One kept skill and its objectives on the split the pick used."""

    origin: str
    skill_hash: str
    path: str
    step: int
    #: ``accuracy``, ``skill_tokens``, ``rollout_tokens`` on the pick's split
    objectives: dict[str, float]
    #: its val gate score (what the gate measured)
    val_score: float
    #: on the front of ``search.objectives`` among the finalists
    on_front: bool = False


@attrs.frozen(kw_only=True)
class FinalPickResult:
    rule: str
    #: ``selection`` (a split no gate decision used) or ``val``
    split: str
    n_items: int
    finalists: tuple[Finalist, ...]
    chosen: int
    reason: str

    @property
    def picked(self) -> Finalist:
        return self.finalists[self.chosen]


def choose(finalists: list[Finalist], rule: str, *, epsilon: float, weights: dict[str, float]) -> tuple[int, str]:
    """(index of the pick, why) by ``rule``; ties go to the smaller skill, then the earlier."""
    def acc(i: int) -> float:
        return finalists[i].objectives.get("accuracy", 0.0)

    def size(i: int) -> float:
        return finalists[i].objectives.get("skill_tokens", 0.0)

    order = range(len(finalists))
    top = max(order, key=lambda i: (acc(i), -size(i), -i))
    if rule == "best":
        return top, f"the most accurate ({acc(top):.3f})"
    if rule == "smallest":
        near = [i for i in order if acc(i) >= acc(top) - epsilon - 1e-12]
        pick = min(near, key=lambda i: (size(i), -acc(i), i))
        return pick, (f"the smallest skill (~{size(pick):.0f} tokens) within {epsilon} of the best accuracy "
                      f"({acc(pick):.3f} vs {acc(top):.3f})")

    def total(i: int) -> float:
        return sum(w * finalists[i].objectives.get(o, 0.0) for o, w in weights.items())

    pick = max(order, key=lambda i: (total(i), acc(i), -i))
    shown = " + ".join(f"{w:g} x {o}" for o, w in weights.items())
    return pick, f"the largest {shown} ({total(pick):.4f})"


def on_front(finalists: list[Finalist], objectives: tuple[str, ...]) -> list[bool]:
    from skillopt.strategies.frontier import dominates

    as_members = [PoolMember(skill_hash=f.skill_hash, path=f.path, origin=f.origin, score=f.objectives.get("accuracy", 0.0),
                             objectives=f.objectives, step=f.step) for f in finalists]
    return [not any(dominates(o, m, objectives) for o in as_members if o is not m) for m in as_members]


def pick_final(run: RunContext, members: tuple[PoolMember, ...], skill_of: Callable[[PoolMember], str]) -> FinalPickResult:
    """Score the kept skills on the selection split (or take their val objectives) and
    pick one by ``search.select``; ``skill_of(member)`` reads a member's skill."""
    from skillopt.engine.search import objectives

    s, selection = run.cfg.search, list(run.data.selection)
    ident = "\x1f".join([s.select, str(s.select_epsilon), repr(sorted(s.select_weights.items())), ",".join(s.objectives),
                         *(t.id for t in selection), *(m.skill_hash for m in members)])
    key = hashlib.sha256(ident.encode()).hexdigest()[:20]
    folder = run.rundir.root / STAGE

    def compute() -> FinalPickResult:
        client = run.target.for_stage(STAGE)
        rows = []
        for m in members:
            measured = dict(m.objectives) or {"accuracy": m.score}
            if selection:
                skill = skill_of(m)
                evaluation, rollouts = run.evaluator.evaluate(skill, selection, folder / m.skill_hash[:12], split=SPLIT,
                                                              repeats=run.cfg.evaluation.gate_repeats,
                                                              label=f"selection: {m.origin}", client=client)
                measured = objectives(skill, run.gate.score(evaluation), rollouts)
            rows.append(Finalist(origin=m.origin, skill_hash=m.skill_hash, path=m.path, step=m.step, objectives=measured,
                                 val_score=m.score))
        fronts = on_front(rows, tuple(s.objectives))
        rows = [attrs.evolve(r, on_front=f) for r, f in zip(rows, fronts, strict=True)]
        chosen, why = choose(rows, s.select, epsilon=s.select_epsilon, weights=dict(s.select_weights))
        return FinalPickResult(rule=s.select, split=SPLIT if selection else "val", n_items=len(selection) or len(run.data.val),
                               finalists=tuple(rows), chosen=chosen, reason=why)

    return resumable(folder / "result.json", FinalPickResult, key, compute)
