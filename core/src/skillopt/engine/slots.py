"""The rollout runner's worker slots, shared by batches that run side by side.

The engine runs some evaluations ahead of their turn, beside the step on the critical
path (the baseline during step 1, an accepted step's attribution during the next step):
work whose inputs already exist. Their batches are *lanes* with a priority: 0 is the
critical path; a higher number takes a slot only while no lower number has an item
waiting for one, only while the slots are *lent* (the critical path waits on optimizer
calls, so it needs no rollout worker until they answer) and an item is likely to finish
before they answer (by the durations seen so far), and background lanes together hold
at most :attr:`WorkerSlots.background_cap` slots. So background work fills the
optimizer's waves instead of delaying the target's. With only priority-0 work (no
look-ahead) this is the plain counting semaphore the runner always had.

Two batches never roll out into the same folder at once: the second waits for the first
(whose items it then finds finished), and lends it its priority while it waits, so the
critical path never queues behind background work it needs (the trainer does the same
when it waits for a piece of background work: :class:`Priority`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager


class Priority:
    """A place in the queue shared by every batch of one piece of work: 0 is the critical
    path; whoever comes to wait for the work raises it to 0 (:meth:`urgent`)."""

    def __init__(self, level: int = 0):
        self.level = level

    def urgent(self, level: int = 0) -> None:
        self.level = min(self.level, level)


class Lane:
    """One ``run`` call's place in the queue."""

    def __init__(self, priority: Priority | int = 0):
        self.shared = priority if isinstance(priority, Priority) else Priority(int(priority or 0))
        #: items of this lane waiting for a slot
        self.pending = 0
        #: slots this lane holds that count against the background cap
        self.background_held = 0

    @property
    def priority(self) -> int:
        return self.shared.level


class WorkerSlots:
    def __init__(self, workers: int):
        self.workers = max(1, workers)
        #: background lanes leave a quarter of the slots (at least one) to the critical path
        self.background_cap = max(1, self.workers - max(1, self.workers // 4))
        self._lock = threading.Lock()
        self._in_use = 0
        self._background = 0
        #: the critical path lends its idle slots (its optimizer calls are out) since this instant
        self.lent_since: float | None = None
        #: running means of a rollout item's and of a lending period's seconds (None: none seen)
        self.item_s: float | None = None
        self.lent_s: float | None = None
        self._lanes: set[Lane] = set()
        self._folders: dict[str, tuple[threading.Lock, list[Lane]]] = {}

    @property
    def lent(self) -> bool:
        return self.lent_since is not None

    def lend(self, lent: bool) -> bool:
        """Start or end a lending period; True when this call started one."""
        with self._lock:
            now = time.monotonic()
            if lent and self.lent_since is None:
                self.lent_since = now
                return True
            if not lent and self.lent_since is not None:
                self.lent_s = _mean(self.lent_s, now - self.lent_since)
                self.lent_since = None
            return False

    def observe_item(self, seconds: float) -> None:
        with self._lock:
            self.item_s = _mean(self.item_s, seconds)

    def _fits(self) -> bool:
        """A background item started now is likely to end before the lending does."""
        if self.lent_since is None:
            return False
        if self.item_s is None or self.lent_s is None:
            return True
        elapsed = time.monotonic() - self.lent_since
        return elapsed <= max(0.0, self.lent_s - self.item_s) + 0.25 * self.item_s

    def acquire(self, lane: Lane) -> bool:
        """Take a slot for one of ``lane``'s items now, or return False."""
        with self._lock:
            if self._in_use >= self.workers:
                return False
            background = lane.priority > 0
            if background:
                if not self._fits() or self._background >= self.background_cap:
                    return False
                if any(other.pending and other.priority < lane.priority for other in self._lanes):
                    return False
                self._background += 1
                lane.background_held += 1
            self._in_use += 1
            return True

    def release(self, lane: Lane) -> None:
        with self._lock:
            self._in_use -= 1
            if lane.background_held:
                lane.background_held -= 1
                self._background -= 1

    @contextmanager
    def queued(self, lane: Lane) -> Iterator[None]:
        """``lane`` is in the queue (its waiting items hold lower priorities back)."""
        with self._lock:
            self._lanes.add(lane)
        try:
            yield
        finally:
            with self._lock:
                self._lanes.discard(lane)

    @contextmanager
    def folder(self, key: str, lane: Lane) -> Iterator[None]:
        """Hold the folder ``key`` for ``lane``; a lane already holding it is raised to
        this one's priority until it lets go."""
        with self._lock:
            lock, holders = self._folders.setdefault(key, (threading.Lock(), []))
            for holder in holders:
                holder.shared.urgent(lane.priority)
            holders.append(lane)
        try:
            with lock:
                yield
        finally:
            with self._lock:
                holders.remove(lane)
                if not holders:
                    del self._folders[key]


def _mean(old: float | None, new: float, weight: float = 0.3) -> float:
    """An exponentially weighted mean (recent durations count most)."""
    return new if old is None else (1 - weight) * old + weight * new
