"""The paired A/B tool: exact McNemar, a task-level bootstrap interval, several seeds.

The figures below are computed by hand (in the comments) and the library must
reproduce them exactly.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from itertools import product

import pytest

from skillopt_sleep.ab.run import PairedOutcome, summarise
from skillopt_sleep.ab.stats import mcnemar_exact, paired_bootstrap
from skillopt_sleep.mine.taskfile import SCHEMA

# A small table: six tasks, one seed. (A outcome, B outcome), 1 = the answer passed its checks.
TABLE = [(0, 1), (0, 1), (0, 1), (1, 0), (1, 1), (0, 0)]


def test_mcnemar_p_value_by_hand():
    # Discordant pairs: b = A passed & B failed = 1 (task 4); c = A failed & B passed = 3 (tasks 1-3).
    # Under H0 each of the n = b + c = 4 discordant pairs is a fair coin:
    #   P(X <= min(b, c)) = P(X <= 1) = (C(4,0) + C(4,1)) / 2^4 = (1 + 4) / 16 = 5/16
    #   two-sided p = 2 * 5/16 = 10/16 = 0.625
    pairs = [PairedOutcome(task=f"t{i}", seed=0, a=a, b=b) for i, (a, b) in enumerate(TABLE)]
    result = summarise(pairs, seeds=1)
    assert (result.mcnemar.b, result.mcnemar.c) == (1, 3)
    assert result.mcnemar.p_value == pytest.approx(10 / 16, abs=1e-15)
    # and the textbook corner cases
    assert mcnemar_exact(0, 0).p_value == 1.0
    assert mcnemar_exact(0, 6).p_value == pytest.approx(2 / 64)  # 2 * (1/2)^6
    assert mcnemar_exact(5, 5).p_value == 1.0  # 2 * P(X <= 5 | n=10) > 1, capped


def test_bootstrap_interval_by_hand():
    # Per-task differences d = B - A: [+1, +1, +1, -1, 0, 0]; observed B - A = 2/6.
    # A bootstrap resample draws 6 tasks with replacement: P(+1) = 3/6, P(-1) = 1/6, P(0) = 2/6.
    # With P, M, Z draws of +1, -1, 0 the resampled mean is (P - M) / 6, with multinomial
    # probability 6! / (P! M! Z!) * (1/2)^P (1/6)^M (1/3)^Z.
    def prob(p, m, z):
        return Fraction(math.factorial(6), math.factorial(p) * math.factorial(m) * math.factorial(z)) * (
            Fraction(1, 2) ** p * Fraction(1, 6) ** m * Fraction(1, 3) ** z
        )

    # Lower end (alpha/2 = 0.025): P(P - M <= -3) sums the compositions
    # (P,M,Z) = (0,3,3), (0,4,2), (0,5,1), (0,6,0), (1,4,1), (1,5,0):
    below = [(0, 3, 3), (0, 4, 2), (0, 5, 1), (0, 6, 0), (1, 4, 1), (1, 5, 0)]
    cdf_minus3 = sum(prob(*c) for c in below)
    assert cdf_minus3 == Fraction(431, 46656)  # ≈ 0.00924 < 0.025
    # P(P - M = -2): (0,2,4) 15/2916 + (1,3,2) 60/3888 + (2,4,0) 15/5184 = 365/15552
    at_minus2 = prob(0, 2, 4) + prob(1, 3, 2) + prob(2, 4, 0)
    assert at_minus2 == Fraction(365, 15552)
    assert cdf_minus3 + at_minus2 >= Fraction(25, 1000)  # ≈ 0.0327: the lower end is -2/6
    # Upper end (1 - alpha/2 = 0.975): P(P - M = 6) = (1/2)^6 = 1/64 and P(P - M = 5) = 6 * (1/2)^5 (1/3) = 1/16,
    # so CDF(4) = 1 - 1/64 - 1/16 = 59/64 ≈ 0.922 < 0.975 <= CDF(5) = 63/64: the upper end is 5/6.
    assert prob(6, 0, 0) == Fraction(1, 64) and prob(5, 0, 1) == Fraction(1, 16)
    # Independent check of the same distribution: all 6^6 ordered resamples.
    d = [b - a for a, b in TABLE]
    counts: dict[int, int] = {}
    for idx in product(range(6), repeat=6):
        s = sum(d[i] for i in idx)
        counts[s] = counts.get(s, 0) + 1
    assert Fraction(sum(v for s, v in counts.items() if s <= -3), 6**6) == cdf_minus3

    ci = paired_bootstrap([([a], [b]) for a, b in TABLE], confidence=0.95)
    assert ci.method == "exact" and ci.tasks == 6
    assert ci.difference == pytest.approx(2 / 6)
    assert (ci.low, ci.high) == (pytest.approx(-2 / 6), pytest.approx(5 / 6))


def test_tasks_are_the_resampling_unit_over_several_seeds():
    # Two tasks, two seeds each.  task 1: A (0, 0), B (1, 1) -> d = 1;  task 2: A (1, 0), B (1, 1) -> d = 1/2.
    # Resampling tasks: means 1 (1/4), 3/4 (1/2), 1/2 (1/4): 95% interval [1/2, 1].
    # (Resampling the four (task, seed) pairs instead, d = [1, 1, 1, 0], would give [1/4, 1].)
    pairs = [
        PairedOutcome(task="t1", seed=0, a=0, b=1),
        PairedOutcome(task="t1", seed=1, a=0, b=1),
        PairedOutcome(task="t2", seed=0, a=1, b=1),
        PairedOutcome(task="t2", seed=1, a=0, b=1),
    ]
    result = summarise(pairs, seeds=2)
    assert result.bootstrap.difference == pytest.approx(0.75)
    assert (result.bootstrap.low, result.bootstrap.high) == (pytest.approx(0.5), pytest.approx(1.0))
    assert (result.rate_a, result.rate_b) == (pytest.approx(0.25), pytest.approx(1.0))
    # McNemar pooled over (task, seed): b = 0, c = 3 -> p = 2 * (1/2)^3 = 0.25;
    # seed 0: c = 1 -> p = 1.0; seed 1: c = 2 -> p = 2 * (1/2)^2 = 0.5
    assert result.mcnemar.p_value == pytest.approx(0.25)
    assert [s.mcnemar.p_value for s in result.per_seed] == [pytest.approx(1.0), pytest.approx(0.5)]
    assert result.verdict.startswith("B is better")


def test_monte_carlo_path_is_seeded_and_agrees_with_exact():
    table = [([1], [1])] * 9 + [([0], [1])] * 7 + [([1], [0])] * 2 + [([0], [0])] * 6
    exact = paired_bootstrap(table, confidence=0.9)
    mc = paired_bootstrap(table, confidence=0.9, exact_limit=0, resamples=20_000, seed=7)
    again = paired_bootstrap(table, confidence=0.9, exact_limit=0, resamples=20_000, seed=7)
    assert exact.method == "exact" and mc.method == "monte-carlo"
    assert (mc.low, mc.high) == (again.low, again.high), "the same seed gives the same interval"
    step = 1 / len(table)  # resampled means move in steps of 1/24
    assert abs(mc.low - exact.low) <= step + 1e-9 and abs(mc.high - exact.high) <= step + 1e-9


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError):
        paired_bootstrap([([1, 0], [1])])
    with pytest.raises(ValueError):
        paired_bootstrap([])
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def _tasks_file(path, reviewed=True):
    tasks = [
        {"id": f"t{n}", "intent": f"run the test suite for module {n}", "split": "val",
         "checks": [{"op": "contains", "value": "uv run pytest"}, {"op": "not_contains", "value": "python -m pytest"}]}
        for n in range(5)
    ]  # fmt: skip
    tasks.append({"id": "t-lint", "intent": "lint the repo", "split": "val", "checks": [{"op": "contains", "value": "ruff"}]})
    path.write_text(json.dumps({"schema": SCHEMA, "reviewed": reviewed, "tasks": tasks}))
    return path


def test_ab_command_compares_two_skills_end_to_end(run_cli, skillopt_home, tmp_path):
    """Stand-in model (core ``scripted`` backend): it runs tests with ``uv run pytest``
    only when the skill it is shown says so, and never lints with ruff."""
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([
        {"stage": "sleep-replay", "match": r"## Skill.*uv run pytest.*## Project memory", "reply": "```bash\nuv run pytest -q\n```"},
        {"stage": "sleep-replay", "match": ".", "reply": "```bash\npython -m pytest\n```"},
    ]))  # fmt: skip
    tasks = _tasks_file(tmp_path / "tasks.json")
    a = tmp_path / "A.md"
    a.write_text("# Skill\nBe careful.\n")
    b = tmp_path / "B.md"
    b.write_text("# Skill\nRun tests with `uv run pytest`.\n")
    res = run_cli(
        "sleep", "ab", "--tasks-file", str(tasks), "--skill-a", str(a), "--skill-b", str(b), "--seeds", "2",
        "--project", str(tmp_path), "--backend", "scripted", "--backend-option", f"rules={rules}", "--json",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["tasks"] == 6 and out["seeds"] == [0, 1] and len(out["pairs"]) == 12 and out["missing"] == 0
    # 5 test tasks: A fails, B passes, on both seeds; the lint task fails in both arms
    assert (out["mcnemar"]["b"], out["mcnemar"]["c"]) == (0, 10)
    assert out["mcnemar"]["p_value"] == pytest.approx(2 / 2**10)
    assert out["rate_a"] == 0.0 and out["rate_b"] == pytest.approx(5 / 6)
    ci = out["bootstrap"]
    assert ci["difference"] == pytest.approx(5 / 6) and ci["method"] == "exact"
    # d = five 1s and one 0 over six tasks: K ~ Binomial(6, 5/6); CDF(K <= 3) = 0.0623 >= 0.025 > CDF(K <= 2) = 0.0087
    assert ci["low"] == pytest.approx(3 / 6) and ci["high"] == pytest.approx(1.0)
    assert out["verdict"].startswith("B is better")


def test_ab_command_refuses_bad_input_with_one_line(run_cli, tmp_path):
    tasks = _tasks_file(tmp_path / "tasks.json", reviewed=False)
    data = json.loads(tasks.read_text())
    a = tmp_path / "A.md"
    a.write_text("x")
    res = run_cli("sleep", "ab", "--tasks-file", str(tasks), "--skill-a", str(a), "--skill-b", str(tmp_path / "missing.md"))
    assert res.exit_code == 2 and "reviewed" in res.output and "Traceback" not in res.output
    data["reviewed"] = True
    tasks.write_text(json.dumps(data))
    res = run_cli("sleep", "ab", "--tasks-file", str(tasks), "--skill-a", str(a), "--skill-b", str(tmp_path / "missing.md"))
    assert res.exit_code == 2 and "skill B" in res.output and "missing.md" in res.output
    res = run_cli("sleep", "ab", "--tasks-file", str(tasks), "--skill-a", str(a), "--skill-b", str(a), "--seeds", "0")
    assert res.exit_code == 2 and "--seeds" in res.output
