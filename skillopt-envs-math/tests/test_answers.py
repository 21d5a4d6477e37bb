"""Answer parsing against the forms models really write (upstream scores several as 0)."""

import pytest

from skillopt_envs_math.answers import answer_segment, normalize_text, parse_choice

CHOICES = {
    "A": "For every integer n, 12 divides n^3 - n.",
    "B": "For every integer n, 6 divides n^3 - n.",
    "C": "There is an integer n such that 6 does not divide n^3 - n.",
    "D": "24",
}


@pytest.mark.parametrize(
    "reply",
    [
        "B",
        "(B)",
        "**B**",
        "Option B",
        "option (B)",
        "B.",
        "B)",
        "Answer: B",
        "**Answer:** B",
        "Final answer: **(B)**",
        "The answer is B.",
        "The correct answer is (B).",
        "<answer>B</answer>",
        "<answer>(B)</answer>",
        "<answer>**B**</answer>",
        "<answer>Option B</answer>",
        "<answer> b </answer>",
        "<ANSWER>B</ANSWER>",
        "<answer>B. For every integer n, 6 divides n^3 - n.</answer>",
        "For every integer n, 6 divides n^3 - n.",
        "for every integer n, 6 divides n^3 - n",
        "<answer>For every integer n, 6 divides n^3 - n.</answer>",
        "B. For every integer n, 6 divides n^3 - n.",
        "**B.** For every integer n, 6 divides n^3 - n.",
        "\\boxed{B}",
        "$\\boxed{B}$",
        "Checking n = 2: 2^3 - 2 = 6, so 12 fails.\nThe answer is B since 6 always divides it.",
        "n^3 - n = (n-1)n(n+1) is a product of three consecutive integers.\n\nB",
        "Let me think. (A) fails at n = 2.\n<answer>B</answer>",
        "<answer>I pick B</answer>",
        "I choose B.",
        "<answer>\nThe product of three consecutive integers is divisible by 6.\nB\n</answer>",
        "B. 6 divides the product of three consecutive integers.",
        "<answer>B",  # unclosed tag at the very end
        "<answer>A</answer> wait, no. <answer>B</answer>",  # the last answer counts
    ],
)
def test_accepted_forms_read_as_b(reply):
    assert parse_choice(reply, CHOICES) == "B"


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "   ",
        "A prime p is odd, so I cannot decide.",  # sentence-initial "A" is an article
        "A product of three consecutive integers is even.",
        "I think a good approach is to test small cases.",
        "Option (A) fails at n = 2 and option (C) fails too; I am not sure.",  # discussed, not picked
        "<answer>unsure</answer> Option (A) is wrong.",
        "<answer>H</answer>",  # not one of the choices
        "E",
        "A. For every integer n, 12 divides n^3 - n.\nB. For every integer n, 6 divides n^3 - n.\nC. There is",  # recitation
        "P(A) is small.",
        "The answer is a multiple of 6.",  # lowercase article after "answer is"
    ],
)
def test_rejected_forms(reply):
    assert parse_choice(reply, CHOICES) is None


def test_choice_text_of_a_number_is_not_found_inside_other_numbers():
    # "24" must not be read out of "124"; a short answer holding the text exactly is read.
    assert parse_choice("The value is 124.", CHOICES) is None
    assert parse_choice("<answer>24</answer>", CHOICES) == "D"
    assert parse_choice("<answer>It is 24.</answer>", CHOICES) == "D"


def test_explicit_statement_beats_a_discussed_label():
    assert parse_choice("(A) is wrong because n = 2 gives 6. So the answer is C.", CHOICES) == "C"
    assert parse_choice("**A** fails, **C** fails, the answer is **B**", CHOICES) == "B"


def test_labels_outside_the_item_are_ignored():
    three = {k: CHOICES[k] for k in "ABC"}
    assert parse_choice("<answer>D</answer>", three) is None
    assert parse_choice("The answer is D.", three) is None


def test_answer_segment_takes_the_last_tag():
    assert answer_segment("x <answer>A</answer> y <answer> C </answer>") == "C"
    assert answer_segment("no tags") is None
    assert answer_segment("reasoning <answer> B") == "B"


def test_normalize_text_ignores_markup_case_and_final_period():
    assert normalize_text("**For every n, 6 divides n^3 - n.**") == normalize_text("for every n,  6 divides n^3 - n")
