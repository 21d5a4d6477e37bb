"""The workbook preview the target sees: each sheet's used range and first rows.

As upstream: every sheet, its dimensions, the first 5 rows x 20 columns, each value
clipped to 40 characters. Values are shown as ``openpyxl.load_workbook`` returns them by
default (formulas as ``=...`` text), since that is what the model's code will read.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from skillopt_envs_spreadsheet.ranges import column_letters


def render_value(value: Any, limit: int) -> str:
    """A short, typed rendering: strings quoted, dates ISO, numbers bare."""
    if value is None:
        return ""
    if isinstance(value, str):
        text = value if len(value) <= limit else value[: max(limit - 3, 1)] + "..."
        return repr(text)
    if isinstance(value, dt.datetime):
        text = value.isoformat(sep=" ")
        return text[:-9] if text.endswith(" 00:00:00") else text
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    text = str(value)
    return text if len(text) <= limit else text[: max(limit - 3, 1)] + "..."


def workbook_preview(path: Path, *, rows: int = 5, cols: int = 20, value_chars: int = 40) -> str:
    """Text preview of every sheet of the workbook at ``path``."""
    import openpyxl

    wb = openpyxl.load_workbook(filename=str(path), read_only=True)
    try:
        blocks = [f"The workbook has {len(wb.sheetnames)} sheet(s): " + ", ".join(repr(n) for n in wb.sheetnames)]
        for ws in wb.worksheets:
            blocks.append(_sheet_preview(ws, rows, cols, value_chars))
        return "\n\n".join(blocks)
    finally:
        wb.close()


def _sheet_preview(ws, rows: int, cols: int, value_chars: int) -> str:
    if not (ws.max_row and ws.max_column):
        try:  # no <dimension> element in the file: count the rows
            ws.calculate_dimension(force=True)
        except Exception:  # noqa: BLE001 - openpyxl fails on empty unsized sheets
            return f"Sheet {ws.title!r}: empty"
    max_row, max_col = ws.max_row or 0, ws.max_column or 0
    if not max_row or not max_col:
        return f"Sheet {ws.title!r}: empty"
    dims = f"A1:{column_letters(max_col)}{max_row}"
    lines = [f"Sheet {ws.title!r}: used range {dims} ({max_row} rows x {max_col} columns)"]
    shown_cols = min(cols, max_col)
    for r, row in enumerate(ws.iter_rows(min_row=1, max_row=min(rows, max_row), max_col=shown_cols, values_only=True), start=1):
        cells = [f"{column_letters(c)}{r}={render_value(v, value_chars)}" for c, v in enumerate(row, start=1) if v is not None]
        lines.append(f"  row {r}: " + (" | ".join(cells) if cells else "(empty)"))
    if max_row > rows:
        lines.append(f"  ... {max_row - rows} more row(s) not shown")
    if max_col > cols:
        lines.append(f"  ... {max_col - cols} more column(s) not shown")
    return "\n".join(lines)
