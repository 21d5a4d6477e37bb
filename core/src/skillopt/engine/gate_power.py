"""Whether the gate can accept anything on this run's val set, said before a step is paid.

A statistically honest gate needs enough items: the default ``paired`` gate cannot reach
its confidence on a handful of items however clearly a candidate wins, so every step
ends in a rejection. The gate says how many items it needs
(:meth:`~skillopt.gates.Gate.min_items_to_accept`, from its own test); the run's first
lines and ``skillopt check`` compare that with the val items the run will use and name
the fix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from skillopt.config.schema import RunConfig
    from skillopt.envs import Env
    from skillopt.gates import Gate


def race_rounds(cfg: RunConfig, gate: Gate, n_val: int) -> int:
    """The rounds the gate stage races a candidate's first pass in on ``n_val`` items (as
    :func:`skillopt.engine.stages.gate.race_plan` splits them; 1 = no race)."""
    from skillopt.engine.stages.gate import RACE_ITEMS_PER_ROUND

    if not gate.sequential:
        return 1
    rounds = min(gate.max_race_rounds(), n_val // max(RACE_ITEMS_PER_ROUND, cfg.env.workers))
    return rounds if rounds > 1 else 1


def gated_items(cfg: RunConfig, split_size: int) -> int:
    """The val items the run's gate compares on, of a val split of ``split_size`` items
    (``evaluation.sel_env_num`` takes that many, as :func:`~skillopt.engine.subsets.subset` does)."""
    chosen = cfg.evaluation.sel_env_num
    return min(chosen, split_size) if chosen else split_size


def val_items(cfg: RunConfig, env: Env) -> int:
    """The val items the run's gate compares on, of ``env``'s val split."""
    return gated_items(cfg, len(env.tasks("val")))


def too_few_items(cfg: RunConfig, gate: Gate, n_val: int) -> str:
    """'' when the gate can accept a candidate on ``n_val`` items; else what is wrong and
    what to change."""
    e = cfg.evaluation
    if not e.use_gate:
        return ""
    if e.gate_min_items > n_val:
        return (f"evaluation.gate_min_items={e.gate_min_items} is more than the {n_val} val items: the gate can never "
                "decide and every step stops the run; lower it or use more val items")
    need = gate.min_items_to_accept(race_rounds(cfg, gate, n_val))
    if need is None or n_val >= need:
        return ""
    return (f"the {gate.name} gate cannot accept any candidate on {n_val} val item{'s' if n_val != 1 else ''}: at "
            f"evaluation.gate_confidence={e.gate_confidence:g} it needs at least {need} even when a candidate is better on "
            f"every item, so every step will be rejected. Use at least {need} val items (a larger val split, "
            f"evaluation.sel_env_num=0 for all of it), or --set evaluation.gate=strict")
