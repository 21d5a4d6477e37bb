"""``recheck``: the best skill against the initial one on *fresh* samples of the val items.

Every gate decision of a run scores skills with the same per-item seeds, so skills are
compared like with like; a candidate can still win those particular samples by luck.
With ``evaluation.final_recheck`` a run that got to its end draws new samples (other
seeds, so no cached answer is reused) of the initial and the best skill on val, and
asks the gate once more. When the gate does not confirm the gain, the initial skill is
the run's best. A stopped run (a budget, an outage) is not rechecked: the skills the
gate already validated stay, unconfirmed (what a Sleep night stages on a budget stop).
"""

from __future__ import annotations

import hashlib

import attrs

from skillopt.engine.context import RunContext
from skillopt.engine.resumable import resumable
from skillopt.engine.stages.gate import GateUndecided, filled, min_items, no_decision, score_of
from skillopt.engine.stages.records import GateResult
from skillopt.engine.stages.verdict import decide
from skillopt.gates import Look, pair
from skillopt.records import skill_hash

STAGE = "recheck"
#: the split name the fresh samples are drawn under (it seeds them and keys their memo)
FRESH_SPLIT = "val_recheck"


def recheck(run: RunContext, initial: str, best: str) -> GateResult:
    """The gate's verdict on ``best`` against ``initial`` over fresh val samples (saved in ``recheck/``)."""
    e = run.cfg.evaluation
    folder = run.rundir.root / STAGE
    ident = f"{skill_hash(initial)}\x1f{skill_hash(best)}\x1f{run.gate.name}\x1f{e}"
    key = hashlib.sha256(ident.encode()).hexdigest()[:20]
    sequential = bool(getattr(run.gate, "sequential", False))

    def compute() -> GateResult:
        client = run.target.for_stage(STAGE)
        tasks = list(run.data.val)
        cur, _ = run.evaluator.evaluate(initial, tasks, folder / "initial", split=FRESH_SPLIT, repeats=e.gate_repeats,
                                        label="val, fresh samples: initial skill", client=client)
        cand, _ = run.evaluator.evaluate(best, tasks, folder / "best", split=FRESH_SPLIT, repeats=e.gate_repeats,
                                         label="val, fresh samples: best skill", client=client)
        cur_p, cand_p, excluded = pair(cur, cand)
        look = Look(index=1, repeats=e.gate_repeats, last=True)
        if cur_p.n < min_items(run):
            raise GateUndecided(no_decision(run, cur, cand, excluded, cur_p.n, look,
                                            f"and {cur_p.n} valid pairs are fewer than evaluation.gate_min_items={min_items(run)}"))
        verdict = decide(run, cur_p, cand_p, look, sequential)
        if excluded:
            outcomes = {decide(run, *filled(cur_p, cand_p, excluded, best=b), look, sequential).action for b in (True, False)}
            if outcomes != {verdict.action}:
                raise GateUndecided(no_decision(run, cur, cand, excluded, cur_p.n, look, "and they could change the decision"))
        verdict = attrs.evolve(verdict, excluded=excluded, repeats=e.gate_repeats, looks=1)
        return GateResult(verdict=verdict, current=score_of(run, cur), candidate=score_of(run, cand))

    return resumable(folder / "result.json", GateResult, key, compute)
