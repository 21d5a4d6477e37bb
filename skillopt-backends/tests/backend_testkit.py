"""Helpers shared by the backend tests (imported by name; unique to avoid clashes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
from servers.base import ProtocolServer

HTTP_SCRIPTED = ("openai", "openai-compatible", "azure-openai", "anthropic")
ALL_BACKENDS = ("local", "openai", "openai-compatible", "azure-openai", "anthropic")


def settings(name: str, **kw: Any):
    from skillopt.backends import BackendSettings

    return BackendSettings(name=name, **kw)


@attrs.frozen
class Harness:
    """One backend under the contract suite: how to build it, and its server when the
    server is scripted (so errors and delays can be injected)."""

    name: str
    make: Callable[..., Any]
    server: ProtocolServer | None = None
    real_model: bool = False


def client_for(backend, *, role: str = "target", **kw: Any):
    """A :class:`ModelClient` with no cache (unless given) and its own ledger."""
    from skillopt.calls import Ledger, ModelClient

    kw.setdefault("ledger", Ledger())
    kw.setdefault("cache", None)
    kw.setdefault("cache_mode", "off" if kw["cache"] is None else "read-write")
    return ModelClient(backend, role=role, **kw)
