"""One process per run directory.

Two ``skillopt run`` on the same ``--out`` would both pay for every call and write
each other's files. The owner holds ``run.lock``: an OS lock (``flock``) that the
kernel releases when the process dies, however it dies, plus the owner's pid, host and
start time so that a refused second run can say who holds it. Where ``flock`` is not
available the pid alone decides whether a lock is stale.
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

import attrs

from skillopt.errors import SkillOptError


class RunLocked(SkillOptError):
    """Another live process owns the run directory."""


@attrs.frozen(kw_only=True)
class LockOwner:
    pid: int
    host: str
    started_at: str
    command: str = ""

    def describe(self) -> str:
        return f"pid {self.pid} on {self.host}, since {self.started_at}"


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid runs on this host (one we may not signal counts)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def _read_owner(path: Path) -> LockOwner | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "null")
        return LockOwner(**{k: data[k] for k in ("pid", "host", "started_at") if k in data}, command=data.get("command", ""))
    except (OSError, ValueError, TypeError, KeyError):
        return None


class RunLock:
    """Hold ``root/run.lock`` for the life of this object (or until :meth:`release`)."""

    NAME = "run.lock"

    def __init__(self, root: Path, command: str = "skillopt run"):
        self.path = Path(root) / self.NAME
        self.command = command
        self._fd: int | None = None
        #: set when a dead owner's lock was taken over: what to tell the user
        self.took_over: LockOwner | None = None

    def acquire(self) -> RunLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        previous = _read_owner(self.path)
        if not self._os_lock(fd, previous):
            os.close(fd)
            owner = previous.describe() if previous else "another process"
            raise RunLocked(
                f"{self.path.parent} is in use by {owner}; a second run on the same directory is refused. "
                "Wait for it to finish (or stop it), or use another --out."
            )
        if previous is not None and previous.pid != os.getpid():
            self.took_over = previous
        me = LockOwner(pid=os.getpid(), host=socket.gethostname(), started_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"), command=self.command)
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(attrs.asdict(me)) + "\n").encode(), 0)
        self._fd = fd
        return self

    def _os_lock(self, fd: int, previous: LockOwner | None) -> bool:
        try:
            import fcntl
        except ImportError:  # no flock (Windows): a live pid on this host means taken
            return previous is None or previous.host != socket.gethostname() or not pid_alive(previous.pid) or previous.pid == os.getpid()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        except OSError:  # a filesystem without flock: fall back to the pid
            return previous is None or not pid_alive(previous.pid) or previous.host != socket.gethostname()
        return True

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            os.ftruncate(self._fd, 0)
        finally:
            os.close(self._fd)  # closing drops the flock
            self._fd = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
