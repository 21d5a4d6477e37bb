"""Item normalisation (every upstream row shape), validation errors and the choice shuffle."""

from collections import Counter

import pytest

from skillopt.api import ConfigError
from skillopt_envs_math.items import item_from_row, item_to_row, shuffle_seed

ROW = {
    "question": "Which holds for every integer n?",
    "choices": [{"label": "A", "text": "2 | n"}, {"label": "B", "text": "2 | n(n+1)"}, {"label": "C", "text": "3 | n"}],
    "correct_choice": {"label": "B", "text": "2 | n(n+1)"},
    "theorem_type": ["number theory", "divisibility"],
    "theorem": "Two consecutive integers contain an even one.",
    "sketch": "n or n + 1 is even.",
}


def test_flat_row_normalises():
    item = item_from_row(ROW, item_id="x:1")
    assert item.correct.text == "2 | n(n+1)"
    assert item.task_type == "number theory"
    assert [c.label for c in item.choices] == ["A", "B", "C"]
    assert item_to_row(item)["correct_choice"] == {"label": "B", "text": "2 | n(n+1)"}


@pytest.mark.parametrize(
    "row",
    [
        {"mcq": {k: ROW[k] for k in ("question", "choices", "correct_choice")}, "theorem_type": "number theory"},
        {**ROW, "choices": {"C": "3 | n", "A": "2 | n", "B": "2 | n(n+1)"}},
        {**ROW, "choices": ["2 | n", "2 | n(n+1)", "3 | n"], "correct_choice": "(B)"},
        {
            **ROW,
            "choices": [
                {"label": "a", "content": "2 | n"},
                {"label": "b.", "content": "2 | n(n+1)"},
                {"label": "c", "content": "3 | n"},
            ],
            "correct_choice": "b",
        },
        {**ROW, "correct_choice": {"text": "2 | n(n+1)"}},
    ],
)
def test_upstream_row_shapes_give_the_same_item(row):
    item = item_from_row(row, item_id="x:1")
    assert item.question == ROW["question"]
    assert [(c.label, c.text) for c in item.choices] == [("A", "2 | n"), ("B", "2 | n(n+1)"), ("C", "3 | n")]
    assert item.correct_label == "B"


@pytest.mark.parametrize(
    "row, message",
    [
        ({**ROW, "question": ""}, "no 'question'"),
        ({**ROW, "choices": []}, "no 'choices'"),
        ({**ROW, "choices": ["only one"], "correct_choice": "A"}, "at least two"),
        ({**ROW, "correct_choice": {"label": "F"}}, "not one of the choices"),
        ({**ROW, "correct_choice": {"label": "B", "text": "3 | n"}}, "disagrees"),
        ({**ROW, "choices": [{"label": "A", "text": "x"}, {"label": "A", "text": "y"}]}, "duplicate"),
        ({**ROW, "choices": [{"label": "Z", "text": "x"}, {"label": "A", "text": "y"}]}, "among A-G"),
    ],
)
def test_bad_rows_name_the_item_and_the_problem(row, message):
    with pytest.raises(ConfigError, match=message) as info:
        item_from_row(row, item_id="202511:7", source="qa_202511_final.json")
    assert "202511:7" in str(info.value) and "qa_202511_final.json" in str(info.value)


def test_shuffle_is_deterministic_per_seed_and_id_and_keeps_the_answer():
    item = item_from_row(
        {
            **ROW,
            "choices": [{"label": lab, "text": f"t{lab}"} for lab in "ABCDEFG"],
            "correct_choice": {"label": "E", "text": "tE"},
        },
        item_id="x:1",
    )
    once, again = item.shuffled(42), item.shuffled(42)
    assert once == again
    assert once.correct.text == "tE"
    assert [c.label for c in once.choices] == list("ABCDEFG")
    assert sorted(c.text for c in once.choices) == sorted(c.text for c in item.choices)
    assert item.shuffled(43).choices != once.choices or item.shuffled(44).choices != once.choices
    other_id = item_from_row({**item_to_row(item), "id": "x:2"}, item_id="x:2")
    assert other_id.shuffled(42).choices != once.choices or other_id.shuffled(7).choices != item.shuffled(7).choices


def test_shuffle_spreads_the_correct_answer_over_positions():
    item = item_from_row(ROW, item_id="x:1")
    positions = Counter(item.shuffled(seed).correct_label for seed in range(600))
    assert set(positions) == {"A", "B", "C"}
    assert min(positions.values()) > 150


def test_shuffle_seed_is_sha256_of_seed_and_id():
    import hashlib

    assert shuffle_seed(42, "202511:16") == int(hashlib.sha256(b"42:202511:16").hexdigest()[:16], 16)
