"""The official cell comparator: value normalisation, equality, and whole-workbook rules."""

from __future__ import annotations

import datetime as dt

import pytest

from skillopt_envs_spreadsheet.compare import cells_equal, compare_workbooks, excel_serial, normalize
from skillopt_envs_spreadsheet.ranges import AnswerPositionError


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, 1.0),
        (False, 0.0),
        (3, 3.0),
        (2.344, 2.34),
        (2.346, 2.35),
        (0.125, 0.12),  # Python's round (half to even on the exact binary value), as upstream
        ("12.345", round(12.345, 2)),
        ("  7 ", 7.0),
        ("1,234", "1,234"),
        ("abc", "abc"),
        ("", ""),
        (None, None),
        (dt.time(9, 30, 15), "09:30"),
        (dt.time(18, 5), "18:05"),
        (dt.datetime(2024, 3, 1), 45352.0),
        (dt.datetime(2024, 3, 1, 18, 0), 45353.0),  # .75 of a day rounds up
        (dt.datetime(2024, 3, 1, 11, 0), 45352.0),
        (dt.date(2024, 3, 1), dt.date(2024, 3, 1)),  # plain dates are left unchanged, as upstream
    ],
)
def test_normalize(value, expected):
    assert normalize(value) == expected
    assert type(normalize(value)) is type(expected)


def test_excel_serial_matches_excel():
    assert excel_serial(dt.datetime(1900, 3, 1)) == 61.0
    assert excel_serial(dt.datetime(2024, 1, 1, 12)) == 45292.5


def test_equality_rules():
    assert cells_equal(None, "") and cells_equal("", None) and cells_equal(None, None) and cells_equal("", "")
    assert cells_equal(3, 3.001)  # both round to 3.0
    assert not cells_equal(3, 3.01)
    assert cells_equal(3, "3.00")  # numeric strings become floats
    assert cells_equal(True, 1)
    assert not cells_equal(0, None)  # no blank/zero equivalence
    assert not cells_equal("Yes", "yes")  # case matters
    assert cells_equal(dt.datetime(2024, 3, 1), 45352)  # a date and its serial number
    assert cells_equal(dt.datetime(2024, 3, 1, 9), dt.datetime(2024, 3, 1, 11))  # serials round to the day
    assert not cells_equal(dt.time(9, 30), "09:30:00")
    assert cells_equal(dt.time(9, 30), "09:30")


def test_workbook_pass_and_fail(xlsx):
    gold = xlsx("gold.xlsx", {"S": [["h", "v"], ["a", 1.0], ["b", 2.5]]})
    good = xlsx("good.xlsx", {"S": [["h", "v"], ["a", 1], ["b", "2.50"]], "Extra": [[1]]})
    bad = xlsx("bad.xlsx", {"S": [["h", "v"], ["a", 1], ["b", 2.6]]})
    ok = compare_workbooks(gold, good, "'S'!B2:B3")
    assert ok.passed and len(ok.checks) == 2
    wrong = compare_workbooks(gold, bad, "S!B2:B3")
    assert not wrong.passed
    assert [(c.coordinate, c.expected, c.got) for c in wrong.wrong] == [("B3", 2.5, 2.6)]


def test_columns_are_walked_in_column_major_order(xlsx):
    gold = xlsx("g.xlsx", {"S": [[1, 2], [3, 4]]})
    pred = xlsx("p.xlsx", {"S": [[1, 2], [3, 4]]})
    assert [c.coordinate for c in compare_workbooks(gold, pred, "A1:B2").checks] == ["A1", "A2", "B1", "B2"]


def test_no_sheet_means_the_golden_first_sheet(xlsx):
    gold = xlsx("g.xlsx", {"First": [[1]], "Second": [[2]]})
    pred = xlsx("p.xlsx", {"Second": [[9]], "First": [[1]]})
    assert compare_workbooks(gold, pred, "A1").passed


def test_missing_sheet_fails_the_case(xlsx):
    gold = xlsx("g.xlsx", {"Summary": [["x"]]})
    pred = xlsx("p.xlsx", {"Sheet1": [["x"]]})
    result = compare_workbooks(gold, pred, "'Summary'!A1")
    assert not result.passed and "missing" in result.message


def test_missing_or_broken_output_fails(xlsx, tmp_path):
    gold = xlsx("g.xlsx", {"S": [[1]]})
    assert not compare_workbooks(gold, tmp_path / "nothing.xlsx", "A1").passed
    junk = tmp_path / "junk.xlsx"
    junk.write_text("not a zip")
    result = compare_workbooks(gold, junk, "A1")
    assert not result.passed and "not a readable" in result.message


def test_formula_without_cached_value_reads_as_empty(xlsx):
    # data_only=True, as upstream: a formula written by openpyxl has no cached value
    gold = xlsx("g.xlsx", {"S": [[1, 2, 3]]})
    pred = xlsx("p.xlsx", {"S": [[1, 2, "=A1+B1"]]})
    result = compare_workbooks(gold, pred, "C1")
    assert not result.passed and result.wrong[0].got is None


def test_blank_cells_must_stay_blank(xlsx):
    gold = xlsx("g.xlsx", {"S": [["h"], ["a"], [None]]})
    extra = xlsx("p.xlsx", {"S": [["h"], ["a"], ["leftover"]]})
    empty_string = xlsx("e.xlsx", {"S": [["h"], ["a"], [""]]})
    assert not compare_workbooks(gold, extra, "A1:A3").passed
    assert compare_workbooks(gold, empty_string, "A1:A3").passed


def test_answer_sheet_missing_from_golden_is_a_data_error(xlsx):
    gold = xlsx("g.xlsx", {"S": [[1]]})
    with pytest.raises(AnswerPositionError):
        compare_workbooks(gold, gold, "'Nope'!A1")
