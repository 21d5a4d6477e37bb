"""Reading another program's transcript files safely: bounded, snapshot, newest first.

A live agent may be appending to the file being read: a read takes at most the size
the file had when opened and never a half-written last line. A line that is not a
JSON object is skipped and counted (:mod:`.tally`), never fatal and never silent.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from skillopt_sleep.harvest.tally import current

MAX_FILE_BYTES = 64 * 1024 * 1024


def mtime(path: Path) -> datetime | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    except OSError:
        return None


def read_snapshot(path: Path, limit: int = MAX_FILE_BYTES) -> str:
    """The file as it was when opened: at most its size at open time (a live writer
    cannot extend the read), and never a trailing half-written line."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        data = fh.read(min(size, limit))
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n")
        data = data[: cut + 1] if cut >= 0 else data
    return data.decode("utf-8", errors="replace")


def iter_jsonl(path: Path, *, strict: bool = False) -> Iterator[dict[str, Any]]:
    """JSON objects of a JSONL snapshot. A bad line is skipped and counted, or, with
    ``strict`` (formats where one bad line makes the rest meaningless), raises."""
    for number, line in enumerate(read_snapshot(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            if strict:
                raise ValueError(f"{path}: line {number} is not JSON") from None
            current().skipped_lines += 1
            continue
        if isinstance(obj, dict):
            yield obj
        elif strict:
            raise ValueError(f"{path}: line {number} is not a JSON object")
        else:
            current().skipped_lines += 1


def files_under(roots: Iterable[Path], patterns: Iterable[str], *, since: datetime | None = None) -> list[Path]:
    """Files matching ``patterns`` under ``roots``, newest first, skipping unchanged-since ones."""
    found: dict[str, Path] = {}
    for root in roots:
        root = Path(root).expanduser()
        if root.is_file():
            candidates: Iterable[Path] = [root]
        elif root.is_dir():
            candidates = (p for pattern in patterns for p in root.glob(pattern))
        else:
            continue
        for path in candidates:
            if not path.is_file():
                continue
            if since is not None:
                modified = mtime(path)
                if modified is not None and modified < since:
                    continue
            found.setdefault(str(path), path)
    return sorted(found.values(), key=lambda p: mtime(p) or datetime.min.replace(tzinfo=UTC), reverse=True)
