"""Answer positions: comma-separated A1 references, read with a real grammar.

SpreadsheetBench stores the graded cells as text such as ``'Sheet1'!D2:D20`` or
``Sheet1!A1:B3,'Q1, 2024'!C5``. The official script splits on every comma, so a quoted
sheet name containing a comma breaks it; this parser reads quoted names (with ``''`` as
an escaped quote), ``$`` anchors, whole columns (``C:C``) and whole rows (``2:4``).

Grammar (whitespace allowed around items)::

    position := ref ("," ref)*
    ref      := [sheet "!"] area
    sheet    := "'" ([^'] | "''")+ "'"  |  unquoted-name
    area     := cell [":" cell]  |  column ":" column  |  row ":" row
    cell     := ["$"] letters ["$"] digits

An unquoted sheet name may contain a comma only when what precedes the comma is not a
valid area (``Sales, 2024!A1`` reads as sheet ``Sales, 2024``).
"""

from __future__ import annotations

import re

import attrs

MAX_COLUMN = 16384  # XFD
MAX_ROW = 1048576

_CELL = re.compile(r"^\$?([A-Za-z]{1,3})\$?(\d+)$")
_COLUMN = re.compile(r"^\$?([A-Za-z]{1,3})$")
_ROW = re.compile(r"^\$?(\d+)$")


class AnswerPositionError(ValueError):
    """An answer position that the grammar cannot read; the message says where."""


def column_index(letters: str) -> int:
    """``A`` -> 1, ``Z`` -> 26, ``AA`` -> 27."""
    n = 0
    for ch in letters.upper():
        n = n * 26 + (ord(ch) - 64)
    return n


def column_letters(index: int) -> str:
    """1 -> ``A``, 27 -> ``AA``."""
    if index < 1:
        raise ValueError(f"column index must be >= 1, got {index}")
    out = ""
    while index:
        index, rem = divmod(index - 1, 26)
        out = chr(65 + rem) + out
    return out


@attrs.frozen(kw_only=True)
class Area:
    """One rectangular reference. ``sheet`` None means the golden workbook's first sheet.

    Rows (or columns) are None for whole-column (whole-row) references; they are bounded
    by the sheets' used ranges when expanded.
    """

    sheet: str | None
    min_col: int | None
    min_row: int | None
    max_col: int | None
    max_row: int | None
    text: str = ""

    def cells(self, used_rows: int = 0, used_cols: int = 0) -> list[str]:
        """Coordinates in column-major order (down each column, then the next column),
        as the official comparator walks them."""
        c0 = self.min_col or 1
        c1 = self.max_col or max(used_cols, 1)
        r0 = self.min_row or 1
        r1 = self.max_row or max(used_rows, 1)
        return [f"{column_letters(c)}{r}" for c in range(c0, c1 + 1) for r in range(r0, r1 + 1)]

    @property
    def bounded(self) -> bool:
        return None not in (self.min_col, self.min_row, self.max_col, self.max_row)

    def label(self) -> str:
        return self.text or "?"


def _parse_area(text: str) -> tuple[int | None, int | None, int | None, int | None] | None:
    """(min_col, min_row, max_col, max_row) of an area, or None when it is not one."""
    body = text.strip()
    if len(body) >= 2 and body[0] == body[-1] == "'":  # upstream tolerates quotes around the range
        body = body[1:-1].strip()
    parts = body.split(":")
    if len(parts) == 1:
        m = _CELL.match(parts[0])
        if not m:
            return None
        col, row = column_index(m.group(1)), int(m.group(2))
        return _checked(col, row, col, row)
    if len(parts) != 2:
        return None
    a, b = parts[0].strip(), parts[1].strip()
    ma, mb = _CELL.match(a), _CELL.match(b)
    if ma and mb:
        c0, r0, c1, r1 = column_index(ma.group(1)), int(ma.group(2)), column_index(mb.group(1)), int(mb.group(2))
        return _checked(min(c0, c1), min(r0, r1), max(c0, c1), max(r0, r1))
    ca, cb = _COLUMN.match(a), _COLUMN.match(b)
    if ca and cb:
        c0, c1 = column_index(ca.group(1)), column_index(cb.group(1))
        return _checked(min(c0, c1), None, max(c0, c1), None)
    ra, rb = _ROW.match(a), _ROW.match(b)
    if ra and rb:
        r0, r1 = int(ra.group(1)), int(rb.group(1))
        return _checked(None, min(r0, r1), None, max(r0, r1))
    return None


def _checked(c0, r0, c1, r1):
    for c in (c0, c1):
        if c is not None and not 1 <= c <= MAX_COLUMN:
            return None
    for r in (r0, r1):
        if r is not None and not 1 <= r <= MAX_ROW:
            return None
    return c0, r0, c1, r1


def parse_answer_position(text: str) -> list[Area]:
    """Every area of an answer position, in order; raises AnswerPositionError."""
    if not isinstance(text, str) or not text.strip():
        raise AnswerPositionError("answer position is empty")
    areas: list[Area] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        start = i
        sheet: str | None = None
        if i < n and text[i] == "'" and _quoted_sheet_follows(text, i):
            sheet, i = _read_quoted(text, i)
            if i >= n or text[i] != "!":
                raise AnswerPositionError(f"expected '!' after sheet name {sheet!r} at position {i} of {text!r}")
            i += 1
        else:
            comma = text.find(",", i)
            seg_end = n if comma < 0 else comma
            segment = text[i:seg_end]
            if "!" in segment:
                bang = text.index("!", i)
                sheet = _unquote_loose(text[i:bang])
                i = bang + 1
            elif _parse_area(segment) is None and "!" in text[i:]:
                bang = text.index("!", i)  # unquoted sheet name holding a comma
                sheet = _unquote_loose(text[i:bang])
                i = bang + 1
        comma = text.find(",", i)
        end = n if comma < 0 else comma
        area_text = text[i:end]
        bounds = _parse_area(area_text)
        if bounds is None:
            hint = " (quote sheet names that contain commas: 'Sales, 2024'!A1)" if sheet is None else ""
            raise AnswerPositionError(f"not a cell or range: {area_text.strip()!r} in answer position {text!r}{hint}")
        if sheet is not None and not sheet:
            raise AnswerPositionError(f"empty sheet name in answer position {text!r}")
        c0, r0, c1, r1 = bounds
        areas.append(Area(sheet=sheet, min_col=c0, min_row=r0, max_col=c1, max_row=r1, text=text[start:end].strip()))
        if comma < 0:
            break
        i = comma + 1
        if not text[i:].strip():
            break  # a trailing comma, as some upstream items have
    return areas


def _quoted_sheet_follows(text: str, i: int) -> bool:
    """True when the quote at ``i`` opens a quoted sheet name (not a quoted range)."""
    try:
        _name, j = _read_quoted(text, i)
    except AnswerPositionError:
        return False
    return j < len(text) and text[j] == "!"


def _read_quoted(text: str, i: int) -> tuple[str, int]:
    """Read ``'name'`` starting at ``i`` (``''`` is a literal quote); return (name, next index)."""
    assert text[i] == "'"
    j, out = i + 1, []
    while j < len(text):
        ch = text[j]
        if ch == "'":
            if j + 1 < len(text) and text[j + 1] == "'":
                out.append("'")
                j += 2
                continue
            return "".join(out), j + 1
        out.append(ch)
        j += 1
    raise AnswerPositionError(f"unterminated quoted sheet name at position {i} of {text!r}")


def _unquote_loose(name: str) -> str:
    """Sheet text outside the strict grammar: strip spaces and stray quotes, as upstream does."""
    return name.strip().strip("'").strip()


def format_area(area: Area) -> str:
    """A canonical text for an area (quoted sheet name), for messages and feedback."""
    if area.bounded:
        a = f"{column_letters(area.min_col)}{area.min_row}"
        b = f"{column_letters(area.max_col)}{area.max_row}"
        ref = a if a == b else f"{a}:{b}"
    elif area.min_row is None:
        ref = f"{column_letters(area.min_col)}:{column_letters(area.max_col)}"
    else:
        ref = f"{area.min_row}:{area.max_row}"
    if area.sheet is None:
        return ref
    return "'" + area.sheet.replace("'", "''") + "'!" + ref
