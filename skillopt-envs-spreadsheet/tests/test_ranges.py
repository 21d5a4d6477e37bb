"""The answer-position grammar: quoted names, commas inside names, anchors, whole columns."""

from __future__ import annotations

import pytest

from skillopt_envs_spreadsheet.ranges import (
    AnswerPositionError,
    column_index,
    column_letters,
    format_area,
    parse_answer_position,
)


def areas(text):
    return [(a.sheet, a.min_col, a.min_row, a.max_col, a.max_row) for a in parse_answer_position(text)]


def test_plain_and_quoted_sheets():
    assert areas("'Sheet1'!D2:D20") == [("Sheet1", 4, 2, 4, 20)]
    assert areas("Sheet1!A1") == [("Sheet1", 1, 1, 1, 1)]
    assert areas("B3:C4") == [(None, 2, 3, 3, 4)]


def test_comma_separated_with_spaces_and_trailing_comma():
    assert areas("Sheet1!A1:A3, 'Other'!B2 ,C5,") == [("Sheet1", 1, 1, 1, 3), ("Other", 2, 2, 2, 2), (None, 3, 5, 3, 5)]


def test_quoted_sheet_names_with_commas_and_quotes():
    # the official script splits on every comma and breaks on these
    assert areas("'Sales, 2024'!A1:B2,'Q3 ''draft'' items'!C1") == [
        ("Sales, 2024", 1, 1, 2, 2), ("Q3 'draft' items", 3, 1, 3, 1)]


def test_unquoted_sheet_name_with_comma_is_read_leniently():
    assert areas("Log, 2024!A1:C3") == [("Log, 2024", 1, 1, 3, 3)]


def test_anchors_lowercase_and_reversed_corners():
    assert areas("Sheet1!$b$2:$a1") == [("Sheet1", 1, 1, 2, 2)]


def test_whole_columns_and_rows_expand_within_used_range():
    col, row = parse_answer_position("Data!C:D,Data!2:3")
    assert (col.min_row, col.max_row) == (None, None)
    assert col.cells(used_rows=3) == ["C1", "C2", "C3", "D1", "D2", "D3"]
    assert row.cells(used_cols=2) == ["A2", "A3", "B2", "B3"]


def test_expansion_is_column_major():
    (area,) = parse_answer_position("A1:B2")
    assert area.cells() == ["A1", "A2", "B1", "B2"]


def test_stray_quotes_are_tolerated_as_upstream_does():
    assert areas("Sheet1!'A1:A2'") == [("Sheet1", 1, 1, 1, 2)]
    assert areas("'Unbalanced!A1") == [("Unbalanced", 1, 1, 1, 1)]


@pytest.mark.parametrize("bad", ["", "   ", "Sheet1!", "Sheet1!ZZZZ1", "A0", "A1:B2:C3", "hello"])
def test_bad_positions_raise_with_a_clear_message(bad):
    with pytest.raises(AnswerPositionError) as info:
        parse_answer_position(bad)
    assert "answer position" in str(info.value) or "sheet name" in str(info.value)


def test_column_letters_round_trip_and_format():
    for n in (1, 26, 27, 52, 702, 703, 16384):
        assert column_index(column_letters(n)) == n
    (area,) = parse_answer_position("'It''s'!A1:B2")
    assert format_area(area) == "'It''s'!A1:B2"
