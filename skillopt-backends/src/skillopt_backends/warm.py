"""Building a backend's SDK client beside the rest of a run's start.

Importing ``openai`` (or ``anthropic``) and building its client is the largest single
piece of a run's start (benchmarks/README.md, "Side by side with upstream"). Built on the
first call, it began only once the first rollout wave had been submitted, and every other
thread of that wave waited for it on the backend's client lock. So a backend starts it as
soon as it exists, in a daemon thread, while the run checks its directory, reads its data
and plans; the first call finds the client built, or waits on the lock only for what is
left of the build.

A failed build is not reported here: the thread leaves the client unset, the first call
builds it again under the same lock and raises what it raises today, where it always did.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def warm_up(build: Callable[[], Any], *, name: str) -> threading.Thread:
    """Run ``build`` (the backend's locked get-or-create of its client) in a daemon
    thread named after the backend; an exception is dropped (the first call raises it)."""

    def run() -> None:
        try:
            build()
        except Exception:  # noqa: BLE001 - the first call builds the client again and raises this itself
            pass

    thread = threading.Thread(target=run, name=f"{name}-client-warm-up", daemon=True)
    thread.start()
    return thread
