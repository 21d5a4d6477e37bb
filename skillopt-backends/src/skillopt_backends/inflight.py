"""Releasing a caller blocked in an SDK call when its backend is closed.

The SDKs' synchronous calls cannot be interrupted from another thread (closing the
client leaves a request in flight until the server answers or the timeout fires).
So each call runs on a short-lived worker thread while the caller waits on an event
that either the worker or :meth:`InflightCalls.cancel_all` sets. A cancelled caller
gets :class:`~skillopt.errors.Cancelled` at once; the abandoned worker finishes or
times out on its own and its result is dropped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from skillopt.api import Cancelled

T = TypeVar("T")


class InflightCalls:
    def __init__(self, label: str):
        self.label = label
        self.closed = threading.Event()
        self._lock = threading.Lock()
        self._waiting: set[threading.Event] = set()

    def run(self, call: Callable[[], T]) -> T:
        """``call()``'s result or exception; :class:`Cancelled` once closed."""
        if self.closed.is_set():
            raise Cancelled(f"{self.label}: the backend is closed")
        done = threading.Event()
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                box["value"] = call()
            except BaseException as exc:  # noqa: BLE001 - handed to the caller below
                box["error"] = exc
            finally:
                done.set()

        with self._lock:
            self._waiting.add(done)
        try:
            threading.Thread(target=work, name=f"{self.label}-call", daemon=True).start()
            done.wait()
        finally:
            with self._lock:
                self._waiting.discard(done)
        if "value" in box:
            return box["value"]
        if "error" in box and not self.closed.is_set():
            raise box["error"]
        raise Cancelled(f"{self.label}: call cancelled because the backend was closed")

    def cancel_all(self) -> None:
        """Close: release every waiting caller now and refuse new calls."""
        self.closed.set()
        with self._lock:
            for done in self._waiting:
                done.set()
