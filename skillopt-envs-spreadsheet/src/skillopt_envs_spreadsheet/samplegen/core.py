"""The sample's building blocks: task templates, data pools and deterministic writing.

A template knows its instruction, answer position, how to draw one test case from a
seeded RNG (the input sheets and, computed independently in Python, the golden
sheets) and a reference solution written against openpyxl. The golden values never
come from running the reference solution, so "the reference solution passes every case"
is a real check of both.
"""

from __future__ import annotations

import datetime as dt
import io
import random
import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

CELL = "Cell-Level Manipulation"
SHEET = "Sheet-Level Manipulation"

Sheets = dict[str, list[list[Any]]]  # sheet name -> rows (row 1 first); None = empty cell


@attrs.frozen(kw_only=True)
class Template:
    key: str
    instruction_type: str
    category: str
    instruction: str
    answer_position: str
    make_case: Callable[[random.Random], tuple[Sheets, Sheets]]
    solution: str

    def case(self, number: int) -> tuple[Sheets, Sheets]:
        """Test case ``number`` (1-based): the same every run, on every machine."""
        return self.make_case(random.Random(f"{self.key}:{number}"))


# ---------------------------------------------------------------------------- data pools

FIRST = ["Ava", "Ben", "Chloe", "Daniel", "Emma", "Felix", "Grace", "Henry", "Isla", "Jack", "Kara", "Liam", "Mia", "Noah",
         "Olivia", "Paul", "Quinn", "Ruby", "Sam", "Tara", "Uma", "Victor", "Wendy", "Yusuf", "Zoe"]
LAST = ["Adams", "Baker", "Clark", "Diaz", "Evans", "Foster", "Garcia", "Hughes", "Ito", "Jones", "Khan", "Lopez", "Moore",
        "Nguyen", "Owens", "Patel", "Reed", "Silva", "Turner", "Walsh", "Young"]
REGIONS = ["East", "North", "South", "West"]
PRODUCTS = ["Chair", "Desk", "Lamp", "Shelf", "Sofa", "Table"]
DEPARTMENTS = ["Finance", "HR", "IT", "Legal", "Marketing", "Sales"]
CATEGORIES = ["Food", "Office", "Software", "Travel", "Utilities"]
CITIES = [("Austin", "TX"), ("Boston", "MA"), ("Denver", "CO"), ("Miami", "FL"), ("Portland", "OR"), ("Seattle", "WA"),
          ("Chicago", "IL"), ("Phoenix", "AZ")]
STREETS = ["Oak St", "Maple Ave", "Pine Rd", "Cedar Ln", "Elm St", "Hill Rd", "Lake Dr", "Park Ave"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
          "December"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def person(rng: random.Random) -> tuple[str, str]:
    return rng.choice(FIRST), rng.choice(LAST)


def day(rng: random.Random, year: int = 2024) -> dt.datetime:
    start = dt.datetime(year, 1, 1)
    return start + dt.timedelta(days=rng.randrange(0, 365 if year % 4 else 366))


def money(rng: random.Random, lo: int, hi: int) -> float:
    """A price with two decimals (values the comparator's rounding cannot flip)."""
    return rng.randrange(lo * 100, hi * 100) / 100


def unique_names(rng: random.Random, n: int) -> list[str]:
    names: list[str] = []
    while len(names) < n:
        first, last = person(rng)
        name = f"{first} {last}"
        if name not in names:
            names.append(name)
    return names


def table(header: list[str], rows: list[list[Any]]) -> list[list[Any]]:
    return [list(header), *[list(r) for r in rows]]


# ---------------------------------------------------------------------------- writing


FIXED_TIME = dt.datetime(2025, 1, 1, 0, 0, 0)
_ZIP_TIME = (2025, 1, 1, 0, 0, 0)
_THEME = "xl/theme/theme1.xml"


def write_workbook(path: Path, sheets: Sheets) -> None:
    """Write ``sheets`` as an .xlsx with byte-identical output across runs (openpyxl
    stamps the save time into docProps/core.xml and the zip entries; both are fixed)."""
    import openpyxl
    from openpyxl.utils import get_column_letter

    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for name, rows in sheets.items():
        ws = wb.create_sheet(title=name)
        for r, row in enumerate(rows, start=1):
            for c, value in enumerate(row, start=1):
                if value is not None:
                    cell = ws.cell(row=r, column=c, value=value)
                    if isinstance(value, dt.datetime):
                        cell.number_format = "yyyy-mm-dd" if value.time() == dt.time(0) else "yyyy-mm-dd hh:mm"
                    elif isinstance(value, dt.time):
                        cell.number_format = "hh:mm"
        widths = [max((len(str(row[c])) for row in rows if c < len(row) and row[c] is not None), default=8) for c in
                  range(max((len(r) for r in rows), default=0))]
        for c, width in enumerate(widths, start=1):
            ws.column_dimensions[get_column_letter(c)].width = min(max(width + 2, 8), 40)
    wb.properties.creator = "skillopt-envs-spreadsheet sample generator"
    wb.properties.created = FIXED_TIME
    buffer = io.BytesIO()
    wb.save(buffer)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_deterministic_zip(buffer.getvalue()))


def _deterministic_zip(data: bytes) -> bytes:
    stamp = FIXED_TIME.strftime("%Y-%m-%dT%H:%M:%SZ")
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename == _THEME:
                continue  # optional part; dropping it saves a third of every file
            body = src.read(info.filename)
            if info.filename in ("xl/_rels/workbook.xml.rels", "[Content_Types].xml"):
                body = re.sub(rb"<(Relationship|Override)\b[^>]*theme1\.xml\"[^>]*/>", b"", body)
            if info.filename == "docProps/core.xml":
                text = body.decode("utf-8")
                text = re.sub(r"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:)", rf"\g<1>{stamp}\g<2>", text)
                body = text.encode("utf-8")
            entry = zipfile.ZipInfo(info.filename, date_time=_ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            dst.writestr(entry, body, compresslevel=9)
    return out.getvalue()
