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

from skillopt.config.schema import Connection
from skillopt.records import Completion, CompletionRequest, Usage


@attrs.frozen(kw_only=True)
class BackendSettings(Connection):
    """A role's resolved settings as the backend receives them: the :class:`Connection`
    fields merged from ``[model]`` and ``[model.ROLE]``, plus what only a backend needs."""

    #: the backend's registered name
    name: str
    #: ``target`` or ``optimizer``
    role: str = "target"
    #: per-call timeout in seconds (``model.ROLE.timeout_s``, else ``model.timeout_s``), used when a request names none
    timeout_s: float = 120.0
    #: the role's output cap (``model.ROLE.max_tokens``), overriding the request's; None = the request's
    max_tokens: int | None = None
    #: GGUF file for the local backend (``model.local_path``; '' = its bundled model)
    local_path: str = ""
    #: the backend's typed ``[backends.NAME]`` settings (an instance of its ``Config``), or None
    config: Any = None


class Backend(abc.ABC):
    """Base class of model-backend plugins."""

    #: the name it is registered and selected under (``model.backend``, ``--backend``)
    name: ClassVar[str] = ""
    #: one line for ``skillopt list`` (default: the docstring's first line)
    summary: ClassVar[str] = ""
    #: the model used when neither ``model.ROLE.model`` nor ``model.model`` is set
    default_model: ClassVar[str] = ""
    #: env vars whose presence means "this provider is configured" (auto selection)
    credential_env_vars: ClassVar[tuple[str, ...]] = ()
    #: the keys-file entry this backend reads its key from (``skillopt keys set NAME``);
    #: '' = it reads no stored key. ``keys set`` accepts only names some backend declares.
    key_name: ClassVar[str] = ""
    #: place in ``model.backend = "auto"`` selection (lower first; None = never chosen
    #: automatically): the first backend whose :meth:`configured` is true wins
    auto_priority: ClassVar[int | None] = None
    #: why auto selection picked this backend, for the line a run prints
    auto_reason: ClassVar[str] = ""
    #: a model on this machine's CPU (the embedded SmolLM2): envs use their ``small`` preset
    small_model: ClassVar[bool] = False
    #: the target installs a folder skill's files in its workspace (``CompletionRequest.skill_files``) instead of reading
    #: them inline; an agent CLI in agent mode sets it on its instance
    installs_skill_files: ClassVar[bool] = False
    #: calls this backend can serve at once (None = ``model.max_in_flight``); a
    #: single-context local model declares 1
    max_concurrency: ClassVar[int | None] = None
    #: typed ``[backends.NAME]`` keys of this backend (an attrs class), read as
    #: ``self.settings.config``
    Config: ClassVar[type | None] = None

    def __init__(self, settings: BackendSettings) -> None:
        """``settings``: the role's resolved settings (kept as ``self.settings``)."""
        self.settings = settings

    @classmethod
    def configured(cls) -> bool:
        """True when credentials for this backend are present in the environment."""
        return any(os.environ.get(var) for var in cls.credential_env_vars)

    @classmethod
    def env_vars(cls, role: str, options: dict[str, Any]) -> dict[str, tuple[str, ...]]:
        """The environment variables that fill this role's settings the config leaves
        unset: ``{field: (names, most specific first)}``, a field being a
        :class:`BackendSettings` field (``base_url``, ``model``, ``api_key``,
        ``temperature``, ``timeout_s``, ``max_tokens`` …) or ``options.NAME``. The core
        applies them in the order of :mod:`skillopt.config.environ` (config > role
        variable > shared variable > ``.env``)."""
        return {}

    @abc.abstractmethod
    def complete(self, request: CompletionRequest) -> Completion:
        """Run one request. Raise :class:`~skillopt.errors.BackendError` subclasses."""

    def identity(self) -> dict[str, Any]:
        """What distinguishes this backend's answers (the cache key); never secrets."""
        s = self.settings
        return {"backend": self.name, "model": s.model, "base_url": s.base_url, "api_version": s.api_version}

    def pipeline_check_note(self, env: str) -> str:
        """'' for a model that can learn a task; for one that only checks the pipeline (the
        embedded SmolLM2-135M is too small to learn any benchmark), a sentence saying so and
        naming the command that trains ``env`` with a real model. A training run prints it
        as its first and last lines, so a lift of +0.000 reads as expected, not as a fault."""
        return ""

    def list_price(self, usage: Usage) -> float | None:
        """USD this usage would cost at the model's list price, or None when unknown.

        Used for estimates before a run (``skillopt check``); a call's actual cost is the
        completion's ``cost_usd``."""
        return None

    def close(self) -> None:
        """Release connections or loaded weights."""
