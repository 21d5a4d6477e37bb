"""The scorers and the answer extractor, on the cases that trip SQuAD-style graders."""

from __future__ import annotations

import pytest

from skillopt_envs_searchqa.scoring import (
    best_gold,
    exact_match,
    explain,
    extract_answer,
    gold_list,
    normalize_answer,
    substring_match,
    token_f1,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Beatles", "beatles"),
        ("  An   apple a day ", "apple day"),
        ("Theater", "theater"),  # "the" only as a whole word
        ("U.S.A.", "usa"),
        ("rock-and-roll", "rockandroll"),  # SQuAD deletes punctuation, it does not split on it
        ("O’Brien", "obrien"),  # curly apostrophe: upstream keeps it, we drop it
        ("O'Brien", "obrien"),
        ("“Casablanca”", "casablanca"),
        ("Paris—France", "parisfrance"),  # em dash is punctuation too
        ("¿Qué?", "qué"),
        ("ＴＯＫＹＯ", "tokyo"),  # full-width letters fold under NFKC
        ("", ""),
    ],
)
def test_normalize_answer(text, expected):
    assert normalize_answer(text) == expected


def test_unicode_and_ascii_apostrophes_match_each_other():
    assert exact_match("O’Brien", ["O'Brien"]) == 1.0
    assert exact_match("‘Hamlet’", "Hamlet") == 1.0


def test_exact_match_takes_the_best_alias():
    golds = ["Mount Ossary", "Ossary"]
    assert exact_match("Ossary", golds) == 1.0
    assert exact_match("the Mount Ossary.", golds) == 1.0
    assert exact_match("Mt. Ossary", golds) == 0.0


def test_articles_are_ignored_on_both_sides():
    assert exact_match("Salt Orchard", ["The Salt Orchard"]) == 1.0
    assert exact_match("a Salt Orchard", "the salt orchard") == 1.0


def test_empty_or_punctuation_only_prediction_scores_zero():
    for pred in ("", "   ", "...", "the", "“”"):
        assert exact_match(pred, ["Paris"]) == 0.0
        assert token_f1(pred, ["Paris"]) == 0.0
        assert substring_match(pred, ["Paris"]) == 0.0  # upstream's sub_em gives 1 here


def test_a_gold_that_normalises_to_nothing_is_ignored():
    assert exact_match("the", ["The"]) == 0.0
    assert exact_match("Paris", ["The", "Paris"]) == 1.0


def test_token_f1_partial_credit_and_max_over_aliases():
    assert token_f1("Dr. Ada Quill", ["Ada Quill"]) == pytest.approx(0.8)  # P=2/3, R=1
    assert token_f1("Quill, Ada", ["Ada Quill"]) == 1.0  # bag of words: order does not matter
    assert token_f1("Ada", ["Ada Quill", "Ada"]) == 1.0
    assert token_f1("Tomas Brandt", ["Ada Quill"]) == 0.0


def test_token_f1_counts_repeated_tokens_as_a_multiset():
    assert token_f1("new new york", ["new york"]) == pytest.approx(0.8)  # overlap 2, P=2/3, R=1


def test_gold_list_accepts_a_string_or_a_list_and_drops_blanks_and_duplicates():
    assert gold_list("Paris") == ["Paris"]
    assert gold_list(["Paris", " ", "Paris", "City of Light"]) == ["Paris", "City of Light"]
    assert gold_list(None) == []


def test_best_gold_picks_the_alias_the_prediction_is_closest_to():
    assert best_gold("Ossary peak", ["Mount Ossary", "Ossary"]) == "Ossary"
    assert best_gold("", ["Mount Ossary", "Ossary"]) == "Mount Ossary"


@pytest.mark.parametrize(
    ("reply", "answer", "method"),
    [
        ("Thinking...\n<answer>Ada Quill</answer>", "Ada Quill", "tag"),
        ("<answer>first</answer> then <ANSWER> second </ANSWER>", "second", "tag"),
        ("cut off <answer>Ada Qu", "Ada Qu", "tag"),
        ("The bridge fits.\nAnswer: Tomas Brandt", "Tomas Brandt", "answer-line"),
        ("**Final answer:** Mount Ossary.", "Mount Ossary", "answer-line"),
        ("The answer is: \"Velmora\"", "Velmora", "answer-line"),
        ("The answer is Cora Oakes.", "Cora Oakes", "answer-line"),
        ("Answer: Washington D.C.", "Washington D.C.", "answer-line"),
        ("The answer to the clue is: \"The Tinsmith's Daughter\"", "The Tinsmith's Daughter", "answer-line"),
        ("This is a clue about a clockmaker. The answer is: Inventions.", "Inventions", "answer-line"),
        ("The answer is the answer is Velby", "Velby", "answer-line"),
        ("Answer: A\nsome trailing chatter", "A", "answer-line"),
        ("Just a sentence about Velmora.", "Just a sentence about Velmora", "last-line"),
        ("", "", "empty"),
        ("Answer:", "Answer:", "last-line"),
    ],
)
def test_extract_answer(reply, answer, method):
    got = extract_answer(reply)
    assert (got.answer, got.method) == (answer, method)


def test_feedback_says_what_was_predicted_and_expected():
    text = explain("Dr. Ada Quill", ["Ada Quill", "Quill"], 0.0, token_f1("Dr. Ada Quill", ["Ada Quill", "Quill"]))
    assert "'Dr. Ada Quill'" in text and "'Ada Quill'" in text
    assert "extra words: dr" in text
    swapped = explain("Quill, Ada", ["Ada Quill"], 0.0, 1.0)
    assert "wrong order" in swapped
    assert "No answer was given" in explain("", ["Paris"], 0.0, 0.0)
    assert "Correct" in explain("Paris", ["Paris"], 1.0, 1.0)
    assert "no word in common" in explain("Lyon", ["Paris"], 0.0, 0.0)
