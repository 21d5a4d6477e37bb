"""Exceptions that cross distribution boundaries.

Backends raise the classified :class:`BackendError` subclasses so that the call
pipeline can decide between failing fast (auth, bad request), retrying (rate limit,
transient) and re-asking (schema). Messages must never contain a secret.
"""

from __future__ import annotations

from typing import Any


class SkillOptError(Exception):
    """Base class: an error with a message meant for the user."""


class ConfigError(SkillOptError):
    """The user's configuration is wrong; the message says what to change."""


class EnvUnavailable(ConfigError):
    """The env cannot run on this host as configured (a sandbox it needs is missing):
    raised from ``rollout``, it stops the run with its message instead of failing
    every item one by one."""


class PluginError(SkillOptError):
    """A plugin is missing, broken or conflicts with another one."""


class BackendError(SkillOptError):
    """A model call failed. ``retryable`` tells the pipeline whether to try again."""

    retryable = False

    def __init__(self, message: str, *, backend: str = "", status: int | None = None) -> None:
        super().__init__(message)
        self.backend = backend
        self.status = status
        #: the model role whose call failed (set by the call pipeline)
        self.role = ""


class AuthError(BackendError):
    """Credentials missing or rejected: fail at once, naming the setting to fix."""


class BadRequestError(BackendError):
    """The provider refused the request as malformed (unknown model, bad parameter)."""


class ContextLengthError(BackendError):
    """The request does not fit the model's context window. Not retryable, but not fatal
    to a run either: the engine counts that one call (a minibatch, an item) as failed."""


class RateLimitError(BackendError):
    """429: retry after ``retry_after`` seconds when the provider says so."""

    retryable = True

    def __init__(self, message: str, *, retry_after: float | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.retry_after = retry_after


class TransientError(BackendError):
    """5xx, connection reset, timeout: retry with backoff."""

    retryable = True


class CallTimeout(TransientError):
    """The call exceeded its deadline."""


class WorkerLost(TransientError):
    """The process running an item died (a worker or its node was lost) and the item's
    retries elsewhere ran out: the item got no answer; it is missing data, never scored."""


class SchemaError(BackendError):
    """The reply did not match the requested JSON schema (after re-asking)."""


class CacheMiss(BackendError):
    """Replay mode found no recorded answer for a request."""


class AwaitingAnswer(BackendError):
    """The call was handed to someone who answers later (a person's subscription agent
    reading prompt files): no answer yet. Not retried; the engine lets the rest of the
    stage ask its own questions, then pauses the run (``awaiting_answers``) so that
    re-running the same command resumes with the answers."""

    retryable = False


class BudgetExceeded(SkillOptError):
    """A hard budget (cost, calls, tokens) is spent; the run stops at a step boundary."""


class Cancelled(SkillOptError):
    """The run was asked to stop."""
