"""Upstream's OfficeQA normaliser (EM, F1) and the numeric match that upstream lacks."""

import pytest

from skillopt_envs_officeqa.scoring import exact_match, grade, normalize, numeric_match, question_scale, token_f1


@pytest.mark.parametrize("raw, expected", [
    ("$1,234.5 Million", "1234.5"),
    ("(12.3%)", "12.3%"),
    ("2.5 billion dollars", "2.5"),
    ("Veterans' services", "veterans services"),
    ("  Nominal  value  ", "value"),
    ("a/b -3", "ab -3"),
])  # fmt: skip
def test_normalize_follows_upstream(raw, expected):
    assert normalize(raw) == expected


def test_exact_match_and_f1_are_upstreams():
    assert exact_match("$4,604 million", "4604") == 1.0
    assert exact_match("1234.50", "1234.5") == 0.0  # upstream has no numeric parsing
    assert token_f1("individual income taxes", "Individual income taxes") == 1.0
    assert token_f1("income taxes", "Individual income taxes") == pytest.approx(0.8)
    assert token_f1("", "x") == 0.0


@pytest.mark.parametrize("pred, gold, question", [
    ("1,234.5", "1234.50", ""),
    ("1234.5", "1,234.5", ""),
    ("$1.2 billion", "1200 million", ""),
    ("1200 million", "1.2", "What were receipts, in billions of dollars?"),
    ("1.2 billion", "1,200", "How much, in millions of dollars?"),
    ("(123)", "-123", ""),
    ("−123", "-123", ""),
    ("1.23", "1.23%", ""),
    ("44.0 percent", "44.0%", ""),
    ("251.6 billion", "251.6", ""),
    ("The answer is 4,604", "4,604", ""),
])  # fmt: skip
def test_numeric_match_accepts_the_same_quantity(pred, gold, question):
    assert numeric_match(pred, gold, question) == 1.0
    assert grade(pred, gold, question).hard == 1.0 and grade(pred, gold, question).soft == 1.0


@pytest.mark.parametrize("pred, gold, question", [
    ("3.4567", "3.46", ""),  # the rounding the question asks for is part of the task
    ("1.2", "1200", "in billions of dollars"),  # 1.2 billion is not 1200 billion
    ("0.0123", "1.23%", ""),  # a fraction is never turned into a percent
    ("between 10 and 20", "10", ""),  # several numbers never match numerically
    ("12%", "12 million", ""),
    ("4,605", "4,604", ""),
    ("", "0", ""),
])  # fmt: skip
def test_numeric_match_rejects(pred, gold, question):
    assert numeric_match(pred, gold, question) == 0.0


def test_relative_tolerance_is_opt_in():
    assert grade("3.4567", "3.46").hard == 0.0
    assert grade("3.4567", "3.46", rel_tol=0.001).hard == 1.0


def test_numeric_off_is_upstream_exact_match():
    g = grade("1234.50", "1234.5", numeric=False)
    assert (g.hard, g.numeric) == (0.0, 1.0)
    assert grade("1234.5", "1234.5", numeric=False).hard == 1.0


def test_empty_answer_scores_zero_even_for_an_empty_gold():
    assert grade("", "").hard == 0.0 and grade("   ", "x").soft == 0.0


def test_question_scale():
    assert question_scale("what were X, in millions of dollars?") == 10**6
    assert question_scale("(In billions of dollars)") == 10**9
    assert question_scale("what percent of Y") is None
