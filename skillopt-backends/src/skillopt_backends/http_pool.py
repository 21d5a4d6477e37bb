"""One HTTP connection pool per SDK per process, shared by every backend instance.

Building an SDK client builds an httpx client, whose TLS context alone costs about
half a second; a run builds a backend per role and tests build dozens. Sharing the
pool also keeps connections alive across roles that call the same endpoint. Timeouts
are passed per request, so the pool's own defaults never apply, and backends never
close the shared pool (``close()`` only drops their SDK client).
"""

from __future__ import annotations

import threading
from typing import Any

_POOLS: dict[str, Any] = {}
_LOCK = threading.Lock()


def shared_http_client(sdk: str) -> Any:
    """The process-wide httpx client for ``sdk`` ("openai" or "anthropic")."""
    with _LOCK:
        client = _POOLS.get(sdk)
        if client is None:
            if sdk == "openai":
                import openai

                client = openai.DefaultHttpxClient()
            elif sdk == "anthropic":
                import anthropic

                client = anthropic.DefaultHttpxClient()
            else:
                raise ValueError(f"unknown SDK {sdk!r}")
            _POOLS[sdk] = client
        return client
