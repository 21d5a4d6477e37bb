"""Workbook helpers and small fixtures shared by the tests."""

from __future__ import annotations

import datetime as dt
from pathlib import Path


def write_xlsx(path: Path, sheets: dict[str, list[list]]) -> Path:
    """A real .xlsx with the given sheets (rows from row 1)."""
    import openpyxl

    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for name, rows in sheets.items():
        ws = wb.create_sheet(title=name)
        for r, row in enumerate(rows, start=1):
            for c, value in enumerate(row, start=1):
                if value is not None:
                    ws.cell(row=r, column=c, value=value)
    path.parent.mkdir(parents=True, exist_ok=True)
    wb.save(path)
    return path


SIMPLE_INPUT = {"Sheet1": [["Name", "Qty", "Price", "Total"], ["a", 2, 1.5, None], ["b", 3, 2.0, None]]}
SIMPLE_GOLD = {"Sheet1": [["Name", "Qty", "Price", "Total"], ["a", 2, 1.5, 3.0], ["b", 3, 2.0, 6.0]]}
SOLUTION = """import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Sheet1"]
for r in range(2, ws.max_row + 1):
    ws.cell(r, 4).value = ws.cell(r, 2).value * ws.cell(r, 3).value
wb.save(OUTPUT_PATH)
"""
DATE = dt.datetime(2024, 3, 1)
