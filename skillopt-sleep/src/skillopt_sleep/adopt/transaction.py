"""A write-ahead log for changing several live files as one unit.

Protocol: back up every target, write the log (``prepared``, fsynced), replace each
file atomically, write the receipt, then delete the log — deleting it is the commit.
If the process dies anywhere before that, the next adopt/rollback/status finds the
log and undoes it: files that existed get their backed-up bytes and mode back, files
the transaction created are removed (with the directories it created), so the live
tree is exactly as before. A receipt with the log's id means the commit finished and
only the log removal was lost.
"""

from __future__ import annotations

import os
import stat
import uuid
from pathlib import Path

import attrs

from skillopt_sleep.fsutil import ensure_dir, fsync_dir, read_json, sha256_file, write_atomic, write_json


@attrs.frozen(kw_only=True)
class Change:
    """Write ``new_bytes`` to ``path``; ``None`` deletes it (and then the empty
    ``remove_dirs``, deepest last in the list)."""

    path: Path
    new_bytes: bytes | None
    remove_dirs: tuple[str, ...] = ()
    #: which staged unit the change belongs to (``main``, ``skill:NAME``), kept in the receipt
    unit: str = ""


def _install(path: Path, data: bytes, mode: int) -> None:
    """Atomic replace that keeps the live file's permissions (user docs are not secrets)."""
    write_atomic(path, data, mode=mode)


def _created_dirs(path: Path) -> list[str]:
    missing = []
    parent = path.parent
    while not parent.exists():
        missing.append(str(parent))
        parent = parent.parent
    return list(reversed(missing))


def run(
    log_path: Path, backup_dir: Path, changes: list[Change], *, kind: str, receipt: Path, receipt_data: dict, install=None
) -> dict:
    """Apply ``changes`` all-or-nothing; returns the receipt written."""
    install = install or _install
    txid = uuid.uuid4().hex
    entries = []
    ensure_dir(backup_dir)
    for n, change in enumerate(changes):
        path = Path(change.path)
        exists = path.exists()
        backup = None
        mode = 0o644
        if exists:
            mode = stat.S_IMODE(path.stat().st_mode)
            backup = backup_dir / f"{n:02d}-{path.name}"
            write_atomic(backup, path.read_bytes())
        entries.append(
            {
                "path": str(path),
                "existed": exists,
                "backup": str(backup) if backup else None,
                "mode": mode,
                "before_sha256": sha256_file(path),
                "created_dirs": _created_dirs(path),
                "unit": change.unit,
            }
        )
    write_json(log_path, {"id": txid, "kind": kind, "phase": "prepared", "receipt": str(receipt), "entries": entries})
    try:
        for change, entry in zip(changes, entries, strict=True):
            if change.new_bytes is None:
                Path(change.path).unlink(missing_ok=True)
                for d in reversed(change.remove_dirs):
                    try:
                        Path(d).rmdir()
                    except OSError:
                        break
                continue
            for d in entry["created_dirs"]:
                Path(d).mkdir(exist_ok=True)
            install(Path(change.path), change.new_bytes, entry["mode"])
        data = {
            **receipt_data,
            "transaction": txid,
            "entries": [
                {
                    "path": e["path"],
                    "existed": e["existed"],
                    "backup": e["backup"],
                    "mode": e["mode"],
                    "before_sha256": e["before_sha256"],
                    "after_sha256": sha256_file(Path(e["path"])),
                    "created_dirs": e["created_dirs"],
                    "unit": e["unit"],
                }
                for e in entries
            ],
        }
        write_json(receipt, data)
    except BaseException:
        undo(log_path)
        raise
    os.unlink(log_path)
    fsync_dir(log_path.parent)
    return data


def undo(log_path: Path) -> bool:
    """Roll back an unfinished transaction; True when there was one."""
    log = read_json(log_path)
    if not isinstance(log, dict):
        return False
    receipt = read_json(Path(log.get("receipt", "")), default=None) if log.get("receipt") else None
    if isinstance(receipt, dict) and receipt.get("transaction") == log.get("id"):
        os.unlink(log_path)  # committed; only the log removal was lost
        return True
    for entry in reversed(log.get("entries", [])):
        path = Path(entry["path"])
        if entry["existed"] and entry.get("backup"):
            write_atomic(path, Path(entry["backup"]).read_bytes(), mode=int(entry.get("mode", 0o644)))
        elif not entry["existed"] and path.exists():
            path.unlink()
        for d in reversed(entry.get("created_dirs", [])):
            try:
                Path(d).rmdir()
            except OSError:
                break
    os.unlink(log_path)
    return True
