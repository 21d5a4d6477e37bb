"""Reading what agent CLIs print: one JSON object, or JSON lines of events."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


def json_lines(text: str) -> Iterator[dict[str, Any]]:
    """Every line of ``text`` that is a JSON object (CLIs mix in log lines)."""
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            yield value


def result_object(text: str) -> dict[str, Any] | None:
    """The ``{"type": "result", …}`` object of a ``--output-format json`` run: the whole
    output pretty-printed, or the last such line of a stream."""
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict) and whole.get("type") == "result":
        return whole
    found = None
    for event in json_lines(text):
        if event.get("type") == "result":
            found = event
    return found


def as_int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0
