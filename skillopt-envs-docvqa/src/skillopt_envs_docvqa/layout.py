"""A page's text layout (the words drawn and their boxes) and its OCR-like reading order.

The layout record is what the generator drew: ``{"width", "height", "lines": [{"text",
"box": [x0, y0, x1, y1], "words": [{"text", "box"}]}]}``. A text-only target cannot see
the image, so it reads the page as text lines in reading order instead: segments whose
vertical centres fall inside one row are joined left to right with `` | `` (form fields side
by side, table cells), rows go top to bottom. Pure functions; no Pillow needed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skillopt.api import ConfigError

CELL_SEPARATOR = " | "


def read_layout(path: Path) -> dict[str, Any]:
    """A layout file, checked enough that a bad one fails here, naming the file."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the page layout ({exc})") from exc
    lines = data.get("lines") if isinstance(data, dict) else None
    if not isinstance(lines, list) or not all(isinstance(x, dict) and "text" in x and "box" in x for x in lines):
        raise ConfigError(f"{path}: a page layout needs a 'lines' list of {{text, box}} objects")
    return data


def rows(layout: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Lines grouped into visual rows (top to bottom), each row left to right."""
    ordered = sorted(layout["lines"], key=lambda line: (line["box"][1], line["box"][0]))
    grouped: list[list[dict[str, Any]]] = []
    bottom = -1.0
    for line in ordered:
        x0, y0, x1, y1 = line["box"]
        centre = (y0 + y1) / 2
        if grouped and centre <= bottom:
            grouped[-1].append(line)
            bottom = max(bottom, y1)
        else:
            grouped.append([line])
            bottom = y1
    return [sorted(row, key=lambda line: line["box"][0]) for row in grouped]


def reading_order(layout: dict[str, Any]) -> list[str]:
    """The page as text lines: one per row, cells joined by `` | ``."""
    return [CELL_SEPARATOR.join(line["text"] for line in row) for row in rows(layout)]


def ocr_text(layout: dict[str, Any]) -> str:
    return "\n".join(reading_order(layout))
