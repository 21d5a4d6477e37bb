"""ANLS, normalisation and answer extraction on known cases."""

from __future__ import annotations

import pytest

from skillopt_envs_docvqa.scoring import anls, anls_pair, exact_match, explain, extract_answer, gold_list, levenshtein, normalize


def test_anls_known_cases():
    assert anls("INV-20417", ["INV-20417"]) == 1.0  # identical
    assert anls("abcdefghij", ["abcdefghiX"]) == pytest.approx(0.9)  # one edit in a 10-char string
    assert anls("abcdefghij", ["abcdeXXXXX"]) == 0.0  # NL = 0.5: at the threshold, scores 0
    assert anls("abcdefghij", ["abcdefXXXX"]) == pytest.approx(0.6)  # NL = 0.4: under it
    assert anls("", ["Bluefield Labs"]) == 0.0  # empty prediction
    assert anls("anything", []) == 0.0  # no gold


def test_anls_takes_the_best_gold_and_ignores_case_and_spacing():
    assert anls("june 28,  2023", ["06/28/2023", "June 28, 2023"]) == 1.0
    assert anls("$1,250.0", ["1250.00", "$1,250.00"]) == pytest.approx(1 - 1 / 9)


def test_levenshtein_and_pairs():
    assert levenshtein("kitten", "sitting") == 3 and levenshtein("", "abc") == 3 and levenshtein("abc", "abc") == 0
    assert anls_pair("", "") == 1.0 and anls_pair("a", "") == 0.0


def test_normalisation_beyond_upstream():
    assert normalize('  "INV-20417". ') == "inv-20417"  # surrounding quotes and full stop
    assert normalize("ＩＮＶ－２０４１７") == "inv-20417"  # NFKC: full-width forms
    assert normalize("(234) 925-3780") == "(234) 925-3780"  # inner punctuation stays
    assert normalize("(INV-1)") == "inv-1" and normalize("(a) and (b)") == "(a) and (b)"
    # upstream keeps the quotes and scores this 0.8; the metric logs both
    assert anls('"INV-20417"', ["INV-20417"]) == 1.0
    assert anls('"INV-20417"', ["INV-20417"], upstream=True) == pytest.approx(1 - 2 / 11)


def test_exact_match_is_the_hard_score():
    assert exact_match("$1,250.00.", ["$1,250.00"]) == 1.0
    assert exact_match("1250", ["$1,250.00", "1250.00"]) == 0.0
    assert exact_match("", ["x"]) == 0.0


@pytest.mark.parametrize(
    ("gold", "expected"),
    [
        ("['1,250.00', '$1,250.00']", ["1,250.00", "$1,250.00"]),  # upstream's Python-literal CSV cell
        ('["a", "b", "a"]', ["a", "b"]),
        ("plain text", ["plain text"]),
        ("[not a list", ["[not a list"]),
        ({"answers": ["x", " "]}, ["x"]),
        (["y", {"text": "z"}], ["y", "z"]),
        (None, []),
    ],
)
def test_gold_list_reads_every_upstream_shape(gold, expected):
    assert gold_list(gold) == expected


@pytest.mark.parametrize(
    ("reply", "answer", "method"),
    [
        ("Looking at the header.\n<answer> INV-20417 </answer>", "INV-20417", "tag"),
        ("<answer>a</answer> then <answer>b</answer>", "b", "tag"),
        ("<ANSWER>**$5.00**</ANSWER>", "$5.00", "tag"),
        ("cut off <answer>Bluefield Lab", "Bluefield Lab", "open-tag"),
        ("Reasoning...\nFinal answer: 03/14/2024", "03/14/2024", "answer-line"),
        ("**Answer:** Rosa", "Rosa", "answer-line"),
        ("The invoice number is INV-78209.", "INV-78209.", "statement"),
        ("Bluefield Labs", "Bluefield Labs", "last-line"),
        ("first line\n\n  last line  \n", "last line", "last-line"),
        ("", "", "empty"),
    ],
)
def test_extract_answer(reply, answer, method):
    got = extract_answer(reply)
    assert (got.answer, got.method) == (answer, method)


def test_feedback_names_prediction_and_expected():
    assert explain("", ["x"], 0.0, 0.0) == "No answer was given; expected 'x'."
    text = explain("INV-2041", ["INV-20417"], anls("INV-2041", ["INV-20417"]), 0.0)
    assert "Predicted 'INV-2041'" in text and "expected 'INV-20417'" in text and "ANLS 0.89" in text
    wordy = explain("The total is $5.00", ["$5.00"], 0.0, 0.0)
    assert "contains '$5.00' but adds other text" in wordy
    assert "Correct" in explain("x", ["x"], 1.0, 1.0)
