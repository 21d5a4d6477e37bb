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


@attrs.frozen(kw_only=True)
class Holder:
    """Who holds a run directory now, as another process (the dashboard) can tell.

    ``state`` is ``held`` (a live process on this host holds the lock: the run is
    running, ``owner`` says who), ``free`` (the lock was released, or its owner died:
    SIGKILL included, since the kernel drops the lock with the process), ``remote``
    (the owner is on another host, so its liveness is unknown here) or ``none`` (no
    ``run.lock``: a run written before the lock existed)."""

    state: str
    owner: LockOwner | None = None


def holder(root: Path) -> Holder:
    """The run directory's lock holder, read without taking the lock (taking it, even
    for a moment, would refuse a run that starts in that moment)."""
    path = Path(root) / RunLock.NAME
    if not path.is_file():
        return Holder(state="none")
    owner = _read_owner(path)
    if owner is None or not isinstance(owner.pid, int):
        return Holder(state="free")
    if owner.host != socket.gethostname():
        return Holder(state="remote", owner=owner)
    if not pid_alive(owner.pid) or _holds_flock(path, owner.pid) is False:
        return Holder(state="free", owner=owner)
    return Holder(state="held", owner=owner)


def _holds_flock(path: Path, pid: int) -> bool | None:
    """Whether ``pid`` holds a ``flock`` on ``path`` per the kernel's lock table
    (``/proc/locks``, Linux); None where that table cannot be read. A recycled pid, or a
    ``run.lock`` planted with someone else's pid, is then not taken for the owner."""
    try:
        inode = os.stat(path).st_ino
        table = Path("/proc/locks").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    for line in table.splitlines():
        parts = line.split()
        # "1: FLOCK  ADVISORY  WRITE 12345 fe:00:402116 0 EOF" (a blocked waiter has "->" after the index)
        if "->" in parts:
            continue
        if len(parts) >= 6 and parts[1] == "FLOCK" and parts[4] == str(pid) and parts[5].rsplit(":", 1)[-1] == str(inode):
            return True
    return False


class RunLock:
    """Hold ``root/run.lock`` for the life of this object (or until :meth:`release`)."""

    NAME = "run.lock"

    def __init__(self, root: Path, command: str = "skillopt run") -> None:
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

    def __exit__(self, *exc: object) -> None:
        self.release()
