"""The SpreadsheetBench cell comparator (a reimplementation of the official rules).

Both workbooks are opened with openpyxl ``data_only=True``: a cell holding a formula
without a cached value reads as None, exactly as in the official evaluation. Only the
cells of the answer position are compared; styles are not. Every cell is checked (the
official script stops at the first mismatch), which gives the same pass/fail verdict
and a complete report for feedback.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import attrs

from skillopt_envs_spreadsheet.ranges import AnswerPositionError, Area, format_area, parse_answer_position

EXCEL_EPOCH = dt.datetime(1899, 12, 30)


def excel_serial(value: dt.datetime) -> float:
    """Days since 1899-12-30 plus the fraction of the day (the official formula:
    whole days + seconds/86400, microseconds ignored)."""
    delta = value - EXCEL_EPOCH
    return delta.days + delta.seconds / 86400.0


def normalize(value: Any) -> Any:
    """The official value transform.

    bool/int/float -> round(float, 2); time -> ``str(v)[:-3]``; datetime -> Excel serial
    rounded to 0 decimals; a string that parses as a float -> round(float, 2); anything
    else (other strings, None, dates without time, timedeltas) unchanged.
    """
    if isinstance(value, (bool, int, float)):
        return round(float(value), 2)
    if isinstance(value, dt.time):
        return str(value)[:-3]
    if isinstance(value, dt.datetime):
        return round(excel_serial(value), 0)
    if isinstance(value, str):
        try:
            return round(float(value), 2)
        except ValueError:
            return value
    return value


def cells_equal(gold: Any, pred: Any) -> bool:
    """Official equality: None and "" are interchangeable; otherwise same type and ==."""
    a, b = normalize(gold), normalize(pred)
    if _blank(a) and _blank(b):
        return True
    if type(a) is not type(b):
        return False
    return a == b


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value == "")


@attrs.frozen(kw_only=True)
class CellCheck:
    sheet: str
    coordinate: str
    expected: Any
    got: Any
    ok: bool


@attrs.frozen(kw_only=True)
class Comparison:
    """The verdict of one test case; ``message`` explains a failure that is not a cell."""

    passed: bool
    checks: tuple[CellCheck, ...] = ()
    message: str = ""

    @property
    def wrong(self) -> list[CellCheck]:
        return [c for c in self.checks if not c.ok]


def load_values(path: Path):
    """A workbook with cached values instead of formulas, as the grader reads it."""
    import openpyxl

    return openpyxl.load_workbook(filename=str(path), data_only=True)


def compare_workbooks(golden: Path, produced: Path | None, answer_position: str) -> Comparison:
    """Compare the answer cells of ``produced`` with ``golden``.

    A missing output file, an unreadable workbook or a missing answer sheet fails the
    case; a malformed answer position raises AnswerPositionError (a data error).
    """
    areas = parse_answer_position(answer_position)
    if produced is None or not Path(produced).is_file():
        return Comparison(passed=False, message="no output workbook was written")
    try:
        wb_gold = load_values(golden)
    except Exception as exc:  # noqa: BLE001 - a broken golden file is a data error worth naming
        raise AnswerPositionError(f"cannot read golden workbook {golden}: {type(exc).__name__}: {exc}") from None
    try:
        wb_pred = load_values(produced)
    except Exception as exc:  # noqa: BLE001 - any load failure of the model's file fails the case
        return Comparison(passed=False, message=f"the output is not a readable .xlsx workbook ({type(exc).__name__}: {exc})")
    try:
        return _compare_loaded(wb_gold, wb_pred, areas)
    finally:
        wb_gold.close()
        wb_pred.close()


def _compare_loaded(wb_gold, wb_pred, areas: list[Area]) -> Comparison:
    checks: list[CellCheck] = []
    problems: list[str] = []
    for area in areas:
        sheet = area.sheet if area.sheet is not None else wb_gold.sheetnames[0]
        if sheet not in wb_gold.sheetnames:
            raise AnswerPositionError(f"answer sheet {sheet!r} ({format_area(area)}) is not in the golden workbook")
        if sheet not in wb_pred.sheetnames:
            problems.append(f"sheet {sheet!r} is missing from the output (sheets: {', '.join(wb_pred.sheetnames)})")
            continue
        ws_gold, ws_pred = wb_gold[sheet], wb_pred[sheet]
        rows = max(ws_gold.max_row, ws_pred.max_row)
        cols = max(ws_gold.max_column, ws_pred.max_column)
        for coordinate in area.cells(rows, cols):
            expected, got = ws_gold[coordinate].value, ws_pred[coordinate].value
            checks.append(CellCheck(sheet=sheet, coordinate=coordinate, expected=expected, got=got, ok=cells_equal(expected, got)))
    passed = not problems and all(c.ok for c in checks)
    return Comparison(passed=passed, checks=tuple(checks), message="; ".join(problems))


def formula_cells(produced: Path, checks: list[CellCheck]) -> set[tuple[str, str]]:
    """Which of ``checks`` hold a formula in ``produced`` (for a feedback hint: formulas
    are not recalculated, so they read as empty)."""
    import openpyxl

    wanted = [c for c in checks if c.got is None]
    if not wanted:
        return set()
    try:
        wb = openpyxl.load_workbook(filename=str(produced), data_only=False)
    except Exception:  # noqa: BLE001 - the hint is optional
        return set()
    try:
        out = set()
        for c in wanted:
            if c.sheet in wb.sheetnames:
                value = wb[c.sheet][c.coordinate].value
                if isinstance(value, str) and value.startswith("="):
                    out.add((c.sheet, c.coordinate))
        return out
    finally:
        wb.close()


__all__ = [
    "AnswerPositionError", "CellCheck", "Comparison", "cells_equal", "compare_workbooks", "excel_serial",
    "formula_cells", "normalize",
]
