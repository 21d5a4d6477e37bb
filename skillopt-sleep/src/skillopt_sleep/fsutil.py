"""Private, atomic file writes: everything sleep writes is 0600 and never half-written.

Transcript-derived text (tasks, evidence, reports) is sensitive even after redaction,
so files are created owner-only from the first byte (``os.open`` with a mode, not a
chmod afterwards) and replaced atomically so a crash never leaves a torn file.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

FILE_MODE = 0o600
DIR_MODE = 0o700


def ensure_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    return path


def fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes | str, *, mode: int = FILE_MODE) -> None:
    """Write ``data`` to ``path`` owner-only and durably (core's one atomic write, in a
    private folder): a crash leaves the old file or the new one, never a torn one."""
    from skillopt.api import write_atomic as core_write_atomic

    path = Path(path)
    ensure_dir(path.parent)
    core_write_atomic(path, data, mode=mode, durable=True)


def write_json(path: Path, data: Any) -> None:
    write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False, default=str) + "\n")


def read_json(path: Path, default: Any = None) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return default


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str | None:
    """Digest of a file's bytes, or None when it does not exist."""
    try:
        return sha256_bytes(Path(path).read_bytes())
    except FileNotFoundError:
        return None
