"""Deciding with the core's gates on replayed val results.

The gate plugin (``strict`` by default, ``paired`` for the no-regression,
significance-tested variant) is found through the registry and sees both documents'
scores on the *same* val tasks: only tasks with at least one successful attempt on
both sides count, errors are reported and never scored 0, too few comparable tasks
or too many errors reject the candidate outright.
"""

from __future__ import annotations

from skillopt.api import EvaluationConfig, GateAction, Verdict
from skillopt_sleep.replay import ReplayResult


def make_gate(name: str, config: EvaluationConfig):
    from skillopt.api import ConfigError, PluginError, get_component

    try:
        return get_component("gates", name).obj(config)
    except PluginError as exc:
        raise ConfigError(f"--gate: {exc}") from None


def _no_decision(metric: str, n_items: int, reason: str) -> Verdict:
    return Verdict(accepted=False, action=GateAction.NO_DECISION, metric=metric, current_score=0.0, candidate_score=0.0,
                   reason=reason, n_items=n_items)


def decide(gate, current: ReplayResult, candidate: ReplayResult, *, min_items: int, max_error_rate: float = 0.5) -> Verdict:
    cur_ok = set(current.evaluation().items)
    cand_ok = set(candidate.evaluation().items)
    shared = cur_ok & cand_ok
    total = len(candidate.attempts) or 1
    bad = candidate.errors + candidate.pending
    metric = gate.config.gate_metric
    if bad / total > max_error_rate:
        return _no_decision(metric, len(shared), f"{bad} of {total} candidate replays failed (errors are not scores)")
    if len(shared) < min_items:
        return _no_decision(metric, len(shared), f"only {len(shared)} comparable val task(s); at least {min_items} needed")
    verdict = gate.decide(current.evaluation(only=shared), candidate.evaluation(only=shared))
    details = dict(verdict.details)
    details["errors"] = {"current": current.errors, "candidate": candidate.errors}
    import attrs

    return attrs.evolve(verdict, details=details)


def per_task(result: ReplayResult, metric: str, weight: float = 0.5) -> dict[str, float]:
    return result.evaluation().item_metric(metric, weight)
