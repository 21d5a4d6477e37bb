"""Gates: strict (paper) and paired (statistically honest)."""

from __future__ import annotations

import pytest

from skillopt.config.schema import EvaluationConfig
from skillopt.gates import Evaluation, semantic_density
from skillopt.gates.paired import PairedGate, sign_flip_p_value
from skillopt.gates.strict import StrictGate


def ev(scores, skill="s", repeats=None):
    items = {f"i{i}": ([(float(s), float(s))] if repeats is None else [(float(x), float(x)) for x in repeats[i]]) for i, s in enumerate(scores)}
    return Evaluation(skill=skill, skill_hash=skill, split="val", items=items)


def test_strict_accepts_only_a_strictly_higher_mean():
    gate = StrictGate(EvaluationConfig())
    assert gate.decide(ev([1, 0, 0, 0]), ev([1, 1, 0, 0])).accepted
    tie = gate.decide(ev([1, 0]), ev([0, 1]))
    assert not tie.accepted and "tie" in tie.reason
    assert not gate.decide(ev([1, 1]), ev([1, 0])).accepted


@pytest.mark.parametrize(("metric", "expected"), [("hard", 0.5), ("soft", 0.75), ("mixed", 0.625)])
def test_gate_metric_hard_soft_mixed(metric, expected):
    e = Evaluation(skill="s", skill_hash="s", split="val", items={"a": [(1.0, 1.0)], "b": [(0.0, 0.5)]})
    assert StrictGate(EvaluationConfig(gate_metric=metric)).score(e) == pytest.approx(expected)


def test_semantic_density_bonus_ignores_protected_blocks():
    skill = "- You MUST cite.\n- Be brief.\n<!-- APPENDIX_START -->\n- NEVER guess\n<!-- APPENDIX_END -->"
    assert semantic_density(skill, ("MUST", "NEVER")) == pytest.approx(1 / 2)
    gate = StrictGate(EvaluationConfig(use_semantic_density=True, semantic_density_weight=0.1))
    assert gate.score(ev([1, 0], skill=skill)) == pytest.approx(0.5 + 0.1 * 0.5)


def test_sign_flip_test_is_exact_for_small_samples():
    assert sign_flip_p_value([1, 1, 1]) == pytest.approx(1 / 8)
    assert sign_flip_p_value([0, 0]) == 1.0
    assert sign_flip_p_value([1, -1]) == pytest.approx(3 / 4)


def test_paired_gate_wants_confidence_not_just_a_higher_mean():
    gate = PairedGate(EvaluationConfig(gate="paired", gate_confidence=0.9))
    small = gate.decide(ev([0, 0, 0, 0]), ev([1, 0, 0, 0]))
    assert not small.accepted and "confidence" in small.reason and small.confidence == pytest.approx(0.5)
    big = gate.decide(ev([0] * 8), ev([1] * 6 + [0] * 2))
    assert big.accepted and big.confidence > 0.98 and big.details["improved"] == 6


def test_paired_gate_margin_and_no_regression():
    cfg = EvaluationConfig(gate="paired", gate_confidence=0.5, gate_min_margin=0.3)
    assert not PairedGate(cfg).decide(ev([0] * 10), ev([1] * 2 + [0] * 8)).accepted
    cfg = EvaluationConfig(gate="paired", gate_confidence=0.5, gate_no_regression=True)
    verdict = PairedGate(cfg).decide(ev([1] + [0] * 9), ev([0] + [1] * 9))
    assert not verdict.accepted and verdict.details["regressed"] == 1 and "regressed" in verdict.reason


def test_paired_gate_averages_repeats_per_item():
    cur = ev([0, 0, 0], repeats=[[0, 0, 0], [0, 0, 0], [0, 1, 0]])
    cand = ev([0, 0, 0], repeats=[[1, 1, 1], [1, 1, 0], [1, 1, 1]])
    verdict = PairedGate(EvaluationConfig(gate="paired", gate_confidence=0.8)).decide(cur, cand)
    assert verdict.accepted and verdict.details["repeats"] == 3


def test_the_exact_test_counts_the_null_distribution_at_any_size():
    import itertools
    import random

    rng = random.Random(5)
    for _ in range(20):  # against brute force where brute force is possible
        diffs = [rng.choice([-1, -0.5, 0, 0.5, 1, 1 / 3]) for _ in range(rng.randint(1, 12))]
        nonzero = [d for d in diffs if d]
        if not nonzero:
            continue
        hits = sum(1 for signs in itertools.product((1, -1), repeat=len(nonzero))
                   if sum(s * d for s, d in zip(signs, nonzero, strict=True)) >= sum(nonzero) - 1e-9)
        assert sign_flip_p_value(diffs) == pytest.approx(hits / 2 ** len(nonzero))
    assert sign_flip_p_value([1.0] * 40) == pytest.approx(2.0**-40)  # 40 items: counted, not sampled


def test_the_looks_never_spend_more_than_the_error_rate():
    from skillopt.gates import Look
    from skillopt.gates.paired import look_alpha

    for planned in (1, 2, 3, 5):
        interim = [look_alpha(0.05, Look(index=i, last=False), planned) for i in range(1, planned)]
        assert sum(interim) + look_alpha(0.05, Look(index=planned, last=True), planned) == pytest.approx(0.05)
        # stopping early (a deterministic target) keeps the total at most the error rate too
        for k in range(1, planned + 1):
            assert sum(interim[: k - 1]) + look_alpha(0.05, Look(index=k, last=True), planned) <= 0.05 + 1e-12


def test_paired_asks_for_another_look_when_undecided_and_decides_on_the_last():
    from skillopt.gates import Look

    gate = PairedGate(EvaluationConfig(gate="paired", gate_max_repeats=3))
    cur, cand = ev([0] * 20), ev([1] * 4 + [0] * 16)  # p = 1/16: promising, not conclusive
    assert gate.decide(cur, cand, Look(index=1, last=False)).action == "more"
    final = gate.decide(cur, cand, Look(index=3, last=True))
    assert final.action == "reject" and "not significant" in final.reason
    clear = gate.decide(cur, ev([1] * 12 + [0] * 8), Look(index=1, last=False))
    assert clear.accepted and clear.action == "accept"  # a clear winner is taken at the first look
    worse = gate.decide(ev([1] * 5 + [0] * 15), ev([0] * 20), Look(index=1, last=False))
    assert worse.action == "reject"  # a clear loser costs one pass (racing)


@pytest.mark.parametrize("settings", [{}, {"gate_confidence": 0.99}, {"gate_max_repeats": 1}, {"gate_confidence": 0.8},
                                      {"gate_repeats": 2, "gate_max_repeats": 5}])
def test_the_paired_gates_item_minimum_is_where_its_best_case_first_passes(settings):
    """``min_items_to_accept`` comes from the gate's own test, not a constant: with that many
    items a candidate better on every item is accepted at some look; with one fewer, at
    none (every look a sequential run could take, a deterministic target's early last
    look included)."""
    from skillopt.gates import Look

    gate = PairedGate(EvaluationConfig(gate="paired", **settings))
    need = gate.min_items_to_accept()
    planned = gate.planned_looks()
    looks = [Look(index=i, last=False) for i in range(1, planned)] + [Look(index=i, last=True) for i in range(min(2, planned), planned + 1)]

    def accepted_somewhere(n):
        return any(gate.decide(ev([0] * n), ev([1] * n), look).accepted for look in looks)

    assert accepted_somewhere(need) and not accepted_somewhere(need - 1)
    assert StrictGate(EvaluationConfig()).min_items_to_accept() is None  # a mean comparison decides on any number


def test_the_default_gate_needs_five_items():
    assert PairedGate(EvaluationConfig()).min_items_to_accept() == 5  # 1/2^5 <= 0.05 - 0.05/4/2; 1/2^4 is not


def test_the_race_rounds_counted_for_the_item_minimum_are_the_gate_stages(tmp_path):
    """gate_power.race_rounds and the gate stage's race_plan split val alike."""
    import attrs

    from skillopt.config.schema import RunConfig
    from skillopt.engine.gate_power import race_rounds
    from skillopt.engine.stages.gate import race_plan

    class Run:
        def __init__(self, cfg, n):
            self.cfg, self.seed = cfg, 1
            self.data = type("Data", (), {"val": [type("T", (), {"id": f"v{i}"})() for i in range(n)]})()

    for workers in (4, 8, 16):
        cfg = RunConfig()
        cfg = attrs.evolve(cfg, env=attrs.evolve(cfg.env, workers=workers))
        for n in (4, 8, 15, 16, 24, 40, 100):
            assert race_rounds(cfg, n) == (len(race_plan(Run(cfg, n), cfg.evaluation)) + 1 if race_plan(Run(cfg, n), cfg.evaluation) else 1)


@pytest.mark.parametrize("chosen", [0, 3, 8, 20])
def test_the_gated_item_count_is_the_subsets(chosen):
    import attrs

    from skillopt.config.schema import RunConfig
    from skillopt.engine.gate_power import gated_items
    from skillopt.engine.subsets import subset
    from skillopt.records import Task

    cfg = RunConfig()
    cfg = attrs.evolve(cfg, evaluation=attrs.evolve(cfg.evaluation, sel_env_num=chosen))
    tasks = [Task(id=f"v{i}", task_type="ab"[i % 2]) for i in range(8)]
    assert gated_items(cfg, len(tasks)) == len(subset(tasks, chosen, cfg.train.seed))
