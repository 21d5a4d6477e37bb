"""Writing files so a crash never leaves half of one: temp file, fsync, rename.

The one home of every rename-into-place in the repository (a repository test,
``tests/test_repo.py``, fails on a hand-rolled one elsewhere): :func:`write_atomic`
for a file, :func:`replace_dir` for a folder built beside its destination, and
:func:`move_aside` for a damaged file kept for inspection."""

from __future__ import annotations

import json
import os
import shutil
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


def replace_dir(staging: Path | str, dest: Path | str, *, keep_old: Path | None = None) -> Path | None:
    """Put the folder ``staging`` (built beside ``dest``) in place of ``dest``: the old
    folder is renamed aside first and removed only after the new one is in, so a crash
    leaves one whole folder under ``dest`` or its old copy beside it. ``keep_old``: where
    the old folder is kept instead of being removed (returned; None when there was none)."""
    staging, dest = Path(staging), Path(dest)
    old = None
    if dest.exists() or dest.is_symlink():
        old = keep_old or dest.with_name(f".{dest.name}.old-{os.getpid()}")
        if not keep_old:
            shutil.rmtree(old, ignore_errors=True)
        os.replace(dest, old)
    os.replace(staging, dest)
    if old is not None and keep_old is None:
        shutil.rmtree(old, ignore_errors=True)
        return None
    return old


def move_aside(path: Path | str, aside: Path | str) -> Path:
    """Rename ``path`` to ``aside`` (a damaged file kept for the user to inspect, never
    deleted), replacing whatever ``aside`` held."""
    os.replace(path, aside)
    return Path(aside)


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
