"""Turning SDK exceptions into the classified errors of :mod:`skillopt.errors`.

The call pipeline decides what to do from the class alone: auth and bad requests
fail at once, rate limits and transient errors are retried (honouring
``Retry-After``), a context overflow counts as one failed call. Messages name the
setting or env var to fix and never quote a credential: the provider's text is
dropped for auth failures (OpenAI echoes a partly masked key) and redacted otherwise.

Callers build the error inside ``except`` and raise it *after* the block, so the SDK
exception, whose request object carries the auth headers, is not even kept as
``__context__``.
"""

from __future__ import annotations

import email.utils
import time
from typing import Any

import attrs

from skillopt.api import (
    AuthError,
    BackendError,
    BadRequestError,
    CallTimeout,
    ContextLengthError,
    RateLimitError,
    TransientError,
    redact_text,
)

_CONTEXT_MARKERS = (
    "context_length_exceeded",
    "maximum context length",
    "context window",
    "prompt is too long",
    "too many tokens",
    "input is too long",
)

# Which setting a rejected request parameter comes from.
_PARAM_SETTING = {
    "temperature": "temperature",
    "max_tokens": "max_tokens",
    "max_completion_tokens": "max_tokens",
    "reasoning_effort": "reasoning_effort",
    "model": "model",
    "response_format": "options.structured",
}


@attrs.frozen(kw_only=True)
class ErrorContext:
    """What an error message needs to say which knob to turn."""

    backend: str
    role: str
    model: str
    endpoint: str
    key_source: str = ""
    key_help: str = ""
    timeout_s: float | None = None

    def setting(self, name: str) -> str:
        return f"model.{self.role}.{name}"


def retry_after_seconds(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``retry-after`` (seconds or HTTP date)."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _clip(text: str, limit: int = 300) -> str:
    text = redact_text(" ".join(str(text).split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def from_status(
    status: int,
    *,
    ctx: ErrorContext,
    message: str = "",
    code: str = "",
    param: str = "",
    headers: Any = None,
) -> BackendError:
    """The classified error for an HTTP error status from a provider."""
    b = ctx.backend
    where = f"{b} ({ctx.role}, model {ctx.model or 'default'})"
    detail = _clip(message) if message else ""
    lowered = f"{code} {message}".lower()
    if "response_format" in lowered and (status in (400, 422) or "validation error" in lowered):
        # e.g. llama.cpp's server answers a json_schema response_format with a 500 validation error
        return BadRequestError(
            f"{where}: the server does not accept this response_format (HTTP {status}); set "
            f"{ctx.setting('options.structured')}=json_object (or none) for servers without JSON-schema output. {detail}".strip(),
            backend=b,
            status=status,
        )
    if status in (401, 403):
        what = (
            "rejected the credentials"
            if status == 401
            else "refused access (HTTP 403: key lacks permission for this model or endpoint)"
        )
        origin = f" from {ctx.key_source}" if ctx.key_source else ""
        fix = f"; {ctx.key_help}" if ctx.key_help else ""
        return AuthError(f"{where} {what}{origin} (HTTP {status}) at {ctx.endpoint}{fix}", backend=b, status=status)
    if status == 429:
        if "insufficient_quota" in lowered or "quota" in code.lower():
            return BadRequestError(
                f"{where}: the account has no quota left (HTTP 429 insufficient_quota); check billing. {detail}".strip(),
                backend=b,
                status=status,
            )
        wait = retry_after_seconds(headers)
        hint = f", retry after {wait:g}s" if wait is not None else ""
        return RateLimitError(
            f"{where}: rate limited (HTTP 429{hint}) {detail}".strip(), retry_after=wait, backend=b, status=status
        )
    if status in (408, 409, 425) or status >= 500:
        return TransientError(f"{where}: provider error HTTP {status} {detail}".strip(), backend=b, status=status)
    if any(marker in lowered for marker in _CONTEXT_MARKERS) or status == 413:
        return ContextLengthError(
            f"{where}: the request does not fit the model's context (HTTP {status}) {detail}".strip(), backend=b, status=status
        )
    if status == 404:
        if "deployment" in lowered:
            fix = f"set {ctx.setting('model')} to the deployment name shown in the Azure portal"
        elif "model" in lowered:
            fix = f"set {ctx.setting('model')} (or --model) to a model this endpoint serves"
        else:
            fix = f"check {ctx.setting('base_url')} (or --base-url); an OpenAI-style base URL usually ends in /v1"
        return BadRequestError(
            f"{where}: not found (HTTP 404) at {ctx.endpoint}; {fix}. {detail}".strip(), backend=b, status=status
        )
    setting = _PARAM_SETTING.get(param or "")
    fix = f" (check {ctx.setting(setting)})" if setting else ""
    return BadRequestError(f"{where}: the request was rejected (HTTP {status}){fix}: {detail}".strip(), backend=b, status=status)


def timeout_error(ctx: ErrorContext) -> CallTimeout:
    limit = f" within {ctx.timeout_s:g}s" if ctx.timeout_s else ""
    return CallTimeout(
        f"{ctx.backend} ({ctx.role}): no answer{limit} from {ctx.endpoint}; raise {ctx.setting('timeout_s')} if the model is slow",
        backend=ctx.backend,
    )


def connection_error(ctx: ErrorContext, exc: BaseException) -> TransientError:
    reason = _clip(str(getattr(exc, "__cause__", None) or exc), 160)
    return TransientError(f"{ctx.backend} ({ctx.role}): cannot reach {ctx.endpoint}: {reason}", backend=ctx.backend)


def malformed_response(ctx: ErrorContext, what: str = "not the expected JSON") -> TransientError:
    """A 200 whose body is not a valid reply (a proxy's HTML page, cut-off JSON)."""
    return TransientError(f"{ctx.backend} ({ctx.role}): malformed response from {ctx.endpoint}: {what}", backend=ctx.backend)


def _body_fields(body: Any, *, anthropic: bool) -> tuple[str, str, str]:
    """(message, code, param) from a provider error body."""
    if not isinstance(body, dict):
        return (str(body) if body else "", "", "")
    error = body.get("error", body)
    if not isinstance(error, dict):
        return (str(error), "", "")
    message = str(error.get("message") or "")
    code = str(error.get("code") or (error.get("type") if anthropic else "") or "")
    param = str(error.get("param") or "")
    return message, code, param


def classify_openai(exc: BaseException, ctx: ErrorContext) -> BackendError:
    """Map an exception raised by the ``openai`` SDK."""
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return timeout_error(ctx)
    if isinstance(exc, openai.APIConnectionError):
        return connection_error(ctx, exc)
    if isinstance(exc, openai.APIStatusError):
        message, code, param = _body_fields(exc.body, anthropic=False)
        return from_status(exc.status_code, ctx=ctx, message=message, code=code, param=param, headers=exc.response.headers)
    if isinstance(exc, (openai.APIResponseValidationError, ValueError, TypeError)):
        return malformed_response(ctx)
    return TransientError(f"{ctx.backend} ({ctx.role}): {type(exc).__name__}: {_clip(str(exc), 200)}", backend=ctx.backend)


def classify_anthropic(exc: BaseException, ctx: ErrorContext) -> BackendError:
    """Map an exception raised by the ``anthropic`` SDK."""
    import anthropic

    if isinstance(exc, anthropic.APITimeoutError):
        return timeout_error(ctx)
    if isinstance(exc, anthropic.APIConnectionError):
        return connection_error(ctx, exc)
    if isinstance(exc, anthropic.APIStatusError):
        message, code, param = _body_fields(exc.body, anthropic=True)
        return from_status(exc.status_code, ctx=ctx, message=message, code=code, param=param, headers=exc.response.headers)
    if isinstance(exc, (anthropic.APIResponseValidationError, ValueError, TypeError)):
        return malformed_response(ctx)
    return TransientError(f"{ctx.backend} ({ctx.role}): {type(exc).__name__}: {_clip(str(exc), 200)}", backend=ctx.backend)
