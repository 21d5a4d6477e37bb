"""Writing files so a crash never leaves half of one: temp file, fsync, rename."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


def write_atomic(path: Path | str, data: str | bytes, *, mode: int | None = None, durable: bool = False) -> None:
    """Replace ``path`` with ``data`` in one step; a reader sees the old or the new file.

    ``mode`` sets the file's permissions (e.g. ``0o600`` for anything private);
    ``durable`` also fsyncs the file and its folder, for files that must survive a
    power cut (adoption state), at a cost a run's many small files need not pay."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if durable:
        try:
            dir_fd = os.open(path.parent, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(dir_fd)
        except OSError:
            pass
        finally:
            os.close(dir_fd)


def read_json_lines(path: Path, accept: Callable[[Any], bool]) -> tuple[list[Any], list[int]]:
    """The records of an append-only JSON-lines log that ``accept`` takes, and the
    numbers of its damaged lines. A torn last line (a kill mid-write) is expected and not
    counted as damaged; any other unreadable line is, since only an edit or a disk fault
    makes one."""
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return [], []
    lines = raw.split(b"\n")
    out, damaged = [], []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            record = None
        if record is not None and accept(record):
            out.append(record)
        elif not (number == len(lines) and not raw.endswith(b"\n")):
            damaged.append(number)
    return out, damaged
