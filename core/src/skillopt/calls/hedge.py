"""Hedged requests: a call still out after a high percentile of its role's latency is sent
again, and the first reply wins.

Why: a wave of parallel calls lasts as long as its slowest call, and providers' latencies
have heavy right tails. A second copy of a straggler usually answers before the first one
does (``benchmarks/stragglers.py`` and ``side_by_side.py`` measure what it buys and costs).

The rules, all enforced here or in the ledger:

* The percentile is estimated online from the latencies this client has observed in this
  run (every copy that replied, the losers included); before ``min_samples`` of them
  there is no threshold and no call is hedged. A call in flight reads the threshold again
  every ``THRESHOLD_POLL_S``, so the stragglers of the run's first wave, sent before any
  reply, are hedged once enough replies are in.
* Both copies are requests: each is reserved in the ledger before it is sent and billed
  when it replies, the loser too. A hedge is sent only when the budget has room for it at
  the dearest price seen with every call in flight (:meth:`Ledger.try_begin`) and an
  in-flight slot is free; it never waits for either (the primary is already out).
* The winner is what the call returns (and what the call cache stores). A copy that fails
  while the other is still out does not fail the call; when every copy sent fails, the
  primary's error is raised, as without hedging, and the retry loop goes on as before.
* Each copy runs in a daemon thread and keeps its in-flight slot until it is answered
  (``max_in_flight`` stays the most requests the provider sees at once); the caller
  returns as soon as one copy has replied, so no worker waits for a loser, and a loser
  cannot hold up the process's exit.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from skillopt.config.schema import parse_hedge_after

if TYPE_CHECKING:
    from skillopt.calls.pipeline import ModelClient
    from skillopt.records import Completion, CompletionRequest

#: how often a call past its threshold looks again for a free in-flight slot for its hedge
SLOT_POLL_S = 0.05
#: how often a call in flight reads its role's threshold again (it moves as replies come in)
THRESHOLD_POLL_S = 0.1


@attrs.frozen(kw_only=True)
class HedgePolicy:
    """When a role's calls are sent again (``model.hedge_after``, ``model.ROLE.hedge_after``)."""

    #: the percentile of this run's observed latencies after which a call is sent again (None = never)
    percentile: float | None = None
    #: latencies observed before any call is hedged
    min_samples: int = 8
    #: the most recent latencies the percentile is taken over
    window: int = 256

    @classmethod
    def parse(cls, spec: str) -> HedgePolicy:
        return cls(percentile=parse_hedge_after(spec))

    @property
    def enabled(self) -> bool:
        return self.percentile is not None


class LatencyWindow:
    """The latest replies' latencies of one role, and their percentile (thread-safe)."""

    def __init__(self, size: int = 256) -> None:
        self._values: deque[float] = deque(maxlen=size)
        self._lock = threading.Lock()

    def observe(self, seconds: float) -> None:
        with self._lock:
            self._values.append(seconds)

    def __len__(self) -> int:
        with self._lock:
            return len(self._values)

    def percentile(self, q: float, min_samples: int) -> float | None:
        """The nearest-rank ``q``-th percentile, or None with fewer than ``min_samples`` values."""
        with self._lock:
            if len(self._values) < max(1, min_samples):
                return None
            ordered = sorted(self._values)
        rank = max(1, math.ceil(q / 100.0 * len(ordered)))
        return ordered[rank - 1]


class _Race:
    """The copies of one attempt: the first reply wins; all failing fails the attempt."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.done = threading.Event()
        self.out = 0
        self.winner: Completion | None = None
        self.hedge_won = False
        self.primary_error: BaseException | None = None
        self.hedge_error: BaseException | None = None
        #: a copy has its reply in hand (being billed): no hedge is sent any more
        self.answered = False

    def answer_in(self) -> None:
        with self._lock:
            self.answered = True

    def launch(self) -> bool:
        """Count one more copy out, unless the attempt is already decided or answered."""
        with self._lock:
            if self.done.is_set() or self.answered:
                return False
            self.out += 1
            return True

    def _landed(self) -> None:
        self.out -= 1
        if self.out == 0 and self.winner is None:
            self.done.set()

    def unlaunch(self) -> None:
        """A copy counted by :meth:`launch` was not sent after all."""
        with self._lock:
            self._landed()

    def replied(self, completion: Completion, hedge: bool) -> bool:
        """A copy replied; True when it is the winner."""
        with self._lock:
            self.out -= 1
            if self.winner is not None:
                return False
            self.winner, self.hedge_won = completion, hedge
            self.done.set()
            return True

    def failed(self, error: BaseException, hedge: bool) -> None:
        with self._lock:
            if hedge:
                self.hedge_error = error
            else:
                self.primary_error = error
            self._landed()


def race(client: ModelClient, request: CompletionRequest, label: str, scope: str | None) -> Completion:
    """One attempt of ``request``: sent once, and again if it is still out after the
    role's threshold (see the module docstring). Raises what an unhedged attempt raises
    when every copy sent failed (the primary's error)."""
    release = client._reserve(label, scope)  # blocking, and BudgetExceeded, as an unhedged attempt
    attempt = _Race()
    attempt.launch()
    started = time.monotonic()
    _send(client, attempt, request, label, scope, release, hedge=False)
    _hedge_when_late(client, attempt, request, label, scope, started)
    attempt.done.wait()
    if attempt.winner is None:
        error = attempt.primary_error or attempt.hedge_error
        assert error is not None
        raise error
    if attempt.hedge_won:
        client.ledger.hedge_won(role=client.role, stage=label, scope=scope)
    return attempt.winner


def _hedge_when_late(client: ModelClient, attempt: _Race, request: CompletionRequest, label: str, scope: str | None,
                     started: float) -> None:
    """Wait while the first copy is out; once it is out past the threshold, send the hedge.
    The threshold is read again as replies come in: a call sent before there were enough
    samples (the run's first wave) is hedged once they exist."""
    while not attempt.done.is_set():
        threshold = client.hedge_threshold()
        late = None if threshold is None else started + threshold - time.monotonic()
        if late is None or late > 0:
            attempt.done.wait(THRESHOLD_POLL_S if late is None else min(late, THRESHOLD_POLL_S))
            continue
        if not attempt.launch():
            return
        hedge_release, refused = client._try_reserve(label, scope)
        if hedge_release is not None:
            _send(client, attempt, request, label, scope, hedge_release, hedge=True)
            return
        attempt.unlaunch()
        if refused:  # the budget has no room for it: it will have none later either
            client.hedges_declined += 1
            return
        attempt.done.wait(SLOT_POLL_S)  # every in-flight slot is taken: look again


def _send(client: ModelClient, attempt: _Race, request: CompletionRequest, label: str, scope: str | None,
          release: Callable[[], None], *, hedge: bool) -> None:
    thread = threading.Thread(target=_copy, args=(client, attempt, request, label, scope, release, hedge),
                              name=f"skillopt-{client.role}-{'hedge' if hedge else 'call'}", daemon=True)
    thread.start()


def _copy(client: ModelClient, attempt: _Race, request: CompletionRequest, label: str, scope: str | None,
          release: Callable[[], None], hedge: bool) -> None:
    """One copy, in its own thread: sent, billed when it replies, reported to the race."""
    from skillopt.errors import BackendError

    ledger: Any = client.ledger
    started = time.monotonic()
    try:
        try:
            completion = client.backend.complete(request)
        except BackendError:
            ledger.record_attempt_failure(role=client.role, stage=label, scope=scope)
            raise
        except BaseException:
            ledger.abandon(role=client.role, stage=label, scope=scope)
            raise
        finally:
            release()
    except BaseException as exc:  # noqa: BLE001 - reported to the caller through the race
        attempt.failed(exc, hedge)
        return
    latency = time.monotonic() - started
    attempt.answer_in()  # before its latency moves the threshold: the reply in hand is not hedged
    if client.cancel.is_set() and attempt.done.is_set():
        # the client is closed (the run is over) and this copy lost: not billed into a closed run
        ledger.abandon(role=client.role, stage=label, scope=scope)
        return
    client.latencies.observe(latency)
    try:
        billed = client._billed(completion, latency, label, scope)
    except BaseException as exc:  # noqa: BLE001 - a pricer's error fails this copy as it would the call
        attempt.failed(exc, hedge)
        return
    attempt.replied(billed, hedge)
