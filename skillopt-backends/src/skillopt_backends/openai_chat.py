"""Chat Completions through the ``openai`` SDK, shared by ``openai``,
``openai-compatible`` and ``azure-openai``.

A subclass says how to build the SDK client and how to price an answer; this class
phrases the request from the model's :class:`~skillopt_backends.capabilities.WireCaps`
and turns the reply or the SDK exception into records. The SDK client is built once
per backend with ``max_retries=0`` (the call pipeline retries; stacking the SDK's own
retries on top multiplied upstream's waits) and is shared by all threads.
"""

from __future__ import annotations

import abc
import threading
import time
from typing import Any, ClassVar

from skillopt.api import Backend, BackendError, BackendSettings, Cancelled, Completion, CompletionRequest, Usage
from skillopt_backends.capabilities import WireCaps, caps_for, strict_schema_ok
from skillopt_backends.credentials import KeySpec, ResolvedKey, display_url
from skillopt_backends.errors import ErrorContext, classify_openai, malformed_response
from skillopt_backends.inflight import InflightCalls
from skillopt_backends.messages import openai_messages, schema_instruction

SCHEMA_NAME = "reply"

_FINISH = {"stop": "stop", "length": "length", "content_filter": "content_filter", "tool_calls": "stop", "function_call": "stop"}


def estimate_tokens(text: str) -> int:
    """About four characters per token: used only when a server reports no usage, so
    budgets still bite."""
    return max(1, len(text) // 4) if text else 0


class OpenAIChatBackend(Backend):
    """Base of the Chat Completions backends (not registered itself)."""

    key_spec: ClassVar[KeySpec]
    #: infer reasoning-model wire rules from the model name (off for arbitrary servers)
    reasoning_by_name: ClassVar[bool] = True

    def __init__(self, settings: BackendSettings):
        super().__init__(settings)
        self.endpoint()  # a wrong base URL is a config error now, not at the first call
        self.key: ResolvedKey | None = self._resolve_key()
        self.model_name = self._resolve_model()
        self.caps: WireCaps = caps_for(
            self.model_name,
            dict(settings.options),
            role_path=f"model.{settings.role}",
            assume_reasoning_by_name=self.reasoning_by_name,
        )
        #: extra top-level request fields (``options.extra_body``, a provider's switches)
        self.extra_body: dict[str, Any] = self._extra_body()
        self._client: Any = None
        self._client_lock = threading.Lock()
        self._calls = InflightCalls(self.name)

    # ------------------------------------------------------------ subclass hooks

    @abc.abstractmethod
    def _resolve_key(self) -> ResolvedKey | None:
        """The credential to send (raise AuthError when one is required and missing)."""

    def _resolve_model(self) -> str:
        return self.settings.model or self.default_model

    @abc.abstractmethod
    def _new_client(self) -> Any:
        """A fresh SDK client (``max_retries=0``)."""

    @abc.abstractmethod
    def endpoint(self) -> str:
        """The API root requests go to (validated; :func:`display_url` strips any
        credentials from it before it appears in an identity or a message)."""

    def price(self, model: str, usage: Usage) -> float | None:
        """USD for one answer; None when unknown."""
        return None

    def _extra_body(self) -> dict[str, Any]:
        """``options.extra_body``, sent as extra request fields (see :mod:`skillopt_backends.providers`)."""
        from skillopt_backends.providers import extra_body

        return extra_body("", dict(self.settings.options), self.model_name, self.settings.role)

    def list_price(self, usage: Usage) -> float | None:
        return self.price(self.model_name, usage)

    # ------------------------------------------------------------ contract

    def identity(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": self.model_name,
            "base_url": display_url(self.endpoint()),
            "api_version": self.settings.api_version,
            "wire": self.caps.as_dict(),
            **({"extra_body": self.extra_body} if self.extra_body else {}),
        }

    def complete(self, request: CompletionRequest) -> Completion:
        client = self._get_client()
        timeout = request.timeout_s or self.settings.timeout_s
        kwargs = self.wire_request(request)
        started = time.monotonic()
        error: BackendError | None = None
        try:
            reply = self._calls.run(lambda: client.chat.completions.create(**kwargs, timeout=timeout))
        except Cancelled:
            raise
        except Exception as exc:  # noqa: BLE001 - classified here, never re-raised raw
            error = classify_openai(exc, self.error_context(timeout))
        if error is not None:
            raise error
        return self.parse_reply(reply, request, started)

    def close(self) -> None:
        """Release callers waiting on a call (they get :class:`Cancelled`); the shared
        connection pool stays open for other backends."""
        self._calls.cancel_all()
        with self._client_lock:
            self._client = None

    # ------------------------------------------------------------ request / reply

    def wire_request(self, request: CompletionRequest) -> dict[str, Any]:
        """The ``chat.completions.create`` keyword arguments for ``request``."""
        caps = self.caps
        schema = request.json_schema
        note = schema_instruction(schema) if schema is not None and caps.structured != "json_schema" else ""
        kwargs: dict[str, Any] = {
            "model": self.model_name,
            "messages": openai_messages(request, backend=self.name, extra_system=note),
            caps.max_tokens_param: request.max_tokens,
        }
        if request.temperature is not None and not caps.reasoning:
            kwargs["temperature"] = request.temperature
        if request.reasoning_effort and caps.reasoning_effort:
            kwargs["reasoning_effort"] = request.reasoning_effort
        if request.seed is not None:
            kwargs["seed"] = request.seed
        if request.stop:
            kwargs["stop"] = list(request.stop)
        if self.extra_body:
            kwargs["extra_body"] = self.extra_body
        if schema is not None:
            if caps.structured == "json_schema":
                kwargs["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": SCHEMA_NAME, "schema": schema, "strict": strict_schema_ok(schema)},
                }
            elif caps.structured == "json_object":
                # ``schema`` is llama.cpp's extension (grammar-constrained); others ignore it.
                kwargs["response_format"] = {"type": "json_object", "schema": schema}
        return kwargs

    def parse_reply(self, reply: Any, request: CompletionRequest, started: float) -> Completion:
        choices = getattr(reply, "choices", None) or []
        if not choices:
            raise malformed_response(self.error_context(), "no choices in the reply")
        choice = choices[0]
        message = choice.message
        text = message.content or ""
        finish = _FINISH.get(choice.finish_reason or "stop", str(choice.finish_reason))
        refusal = getattr(message, "refusal", None)
        if refusal and not text:
            text, finish = refusal, "refusal"
        usage = self._usage(reply, request, text)
        model = getattr(reply, "model", "") or self.model_name
        return Completion(
            text=text,
            usage=usage,
            cost_usd=self.price(model, usage),
            latency_s=time.monotonic() - started,
            model=model,
            finish_reason=finish,
        )

    @staticmethod
    def _usage(reply: Any, request: CompletionRequest, text: str) -> Usage:
        u = getattr(reply, "usage", None)
        if u is None:
            prompt = sum(estimate_tokens(m.content) + 4 for m in request.messages)
            return Usage(prompt_tokens=prompt, completion_tokens=estimate_tokens(text))
        prompt_details = getattr(u, "prompt_tokens_details", None)
        completion_details = getattr(u, "completion_tokens_details", None)
        return Usage(
            prompt_tokens=int(u.prompt_tokens or 0),
            completion_tokens=int(u.completion_tokens or 0),
            cached_tokens=int(getattr(prompt_details, "cached_tokens", 0) or 0),
            reasoning_tokens=int(getattr(completion_details, "reasoning_tokens", 0) or 0),
        )

    # ------------------------------------------------------------ helpers

    def _get_client(self) -> Any:
        with self._client_lock:
            if self._client is None:
                self._client = self._new_client()
            return self._client

    def error_context(self, timeout: float | None = None) -> ErrorContext:
        return ErrorContext(
            backend=self.name,
            role=self.settings.role,
            model=getattr(self, "model_name", "") or self.settings.model,
            endpoint=display_url(self.endpoint()),
            key_source=self.key.source if getattr(self, "key", None) else "",
            key_help=self.key_spec.how_to_set(self.settings.role),
            timeout_s=timeout,
        )
