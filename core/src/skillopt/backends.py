"""The backend contract: one method, ``complete(request) -> Completion``.

A backend only speaks its provider's protocol and classifies failures into
:mod:`skillopt.errors`. Caching, retries, concurrency limits, budgets and schema
re-asks are added around every backend by :mod:`skillopt.calls`, so a third-party
backend gets them for free and cannot get them wrong.
"""

from __future__ import annotations

import abc
import os
from typing import Any, ClassVar

import attrs

from skillopt.records import Completion, CompletionRequest, Usage


@attrs.frozen(kw_only=True)
class BackendSettings:
    """A role's resolved settings as the backend receives them."""

    name: str
    role: str = "target"
    model: str = ""
    base_url: str = ""
    api_key: str = attrs.field(default="", repr=False)
    api_key_env: str = ""
    api_version: str = ""
    auth_mode: str = ""
    temperature: float | None = None
    max_tokens: int | None = None
    reasoning_effort: str = ""
    timeout_s: float = 120.0
    local_path: str = ""
    options: dict[str, Any] = attrs.field(factory=dict)


class Backend(abc.ABC):
    """Base class of model-backend plugins."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    default_model: ClassVar[str] = ""
    #: env vars whose presence means "this provider is configured" (auto selection)
    credential_env_vars: ClassVar[tuple[str, ...]] = ()

    def __init__(self, settings: BackendSettings):
        self.settings = settings

    @classmethod
    def configured(cls) -> bool:
        """True when credentials for this backend are present in the environment."""
        return any(os.environ.get(var) for var in cls.credential_env_vars)

    @abc.abstractmethod
    def complete(self, request: CompletionRequest) -> Completion:
        """Run one request. Raise :class:`~skillopt.errors.BackendError` subclasses."""

    def identity(self) -> dict[str, Any]:
        """What distinguishes this backend's answers (the cache key); never secrets."""
        s = self.settings
        return {"backend": self.name, "model": s.model, "base_url": s.base_url, "api_version": s.api_version}

    def list_price(self, usage: Usage) -> float | None:
        """USD this usage would cost at the model's list price, or None when unknown.

        Used for estimates before a run (``skillopt check``); a call's actual cost is the
        completion's ``cost_usd``."""
        return None

    def close(self) -> None:
        """Release connections or loaded weights."""
