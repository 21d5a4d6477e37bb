"""A per-project adoption lock that recovers from crashed holders.

The lock file records the holder's pid, host and start time. A lock whose pid is no
longer alive on this host, or that is older than ``max_age_s``, is stale and is
taken over (upstream's stale locks failed closed forever, with no way out).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

from skillopt.api import SkillOptError, pid_alive

MAX_AGE_S = 900.0


class LockBusy(SkillOptError):
    """Another adoption or rollback of this project is running."""


def is_stale(info: dict, *, max_age_s: float = MAX_AGE_S, now: float | None = None) -> bool:
    now = time.time() if now is None else now
    age = now - float(info.get("created", 0))
    if age > max_age_s:
        return True
    if info.get("host") == socket.gethostname() and not pid_alive(int(info.get("pid", 0))):
        return True
    return False


@contextlib.contextmanager
def project_lock(path: Path, *, max_age_s: float = MAX_AGE_S, break_lock: bool = False) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    info = {"pid": os.getpid(), "host": socket.gethostname(), "created": time.time()}
    for attempt in range(2):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            try:
                held = json.loads(path.read_text(encoding="utf-8") or "{}")
            except (OSError, json.JSONDecodeError):
                held = {}
            if attempt == 0 and (break_lock or is_stale(held, max_age_s=max_age_s)):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                continue
            age = time.time() - float(held.get("created", time.time()))
            raise LockBusy(
                f"another skillopt sleep adopt/rollback holds {path} (pid {held.get('pid', '?')} on "
                f"{held.get('host', '?')}, {age:.0f}s old); wait for it, or pass --break-lock if it is gone"
            ) from None
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(info, fh)
        break
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
