"""``anthropic``: the Messages API through the ``anthropic`` SDK.

Structured output has two wire forms, chosen per model (``options.structured``
overrides): ``json_schema`` sends ``output_config.format`` (Claude 4.5 and later; the
newest models refuse a forced tool), ``tool`` forces a call to one tool named
``reply`` whose input schema is the requested schema (older models). Either way the
reply is validated against the *original* schema by the call pipeline; the schema
sent is the SDK's ``transform_schema`` of it, which moves keywords the API does not
enforce into descriptions. Tool inputs must be objects, so other schemas are wrapped
in ``{"value": ...}``.

The request's reasoning effort goes to ``output_config.effort`` where the model takes
it. ``temperature`` is never sent: API version 2026-10-21, which the SDK speaks,
rejects every sampling parameter.
"""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Any

from skillopt.api import (
    Backend,
    BackendError,
    BackendSettings,
    BadRequestError,
    Cancelled,
    Completion,
    CompletionRequest,
    Usage,
    hookimpl,
)
from skillopt_backends import prices
from skillopt_backends.capabilities import ClaudeCaps, claude_caps_for
from skillopt_backends.credentials import KeySpec, display_url, key_available, require_key
from skillopt_backends.errors import ErrorContext, classify_anthropic, malformed_response
from skillopt_backends.http_pool import shared_http_client
from skillopt_backends.inflight import InflightCalls
from skillopt_backends.messages import anthropic_messages

DEFAULT_BASE_URL = "https://api.anthropic.com"
TOOL_NAME = "reply"
WRAP_KEY = "value"
EFFORTS = {"none": "low", "minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "xhigh", "max": "max"}
_STOP = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "refusal": "refusal",
}


def tool_schema(schema: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """(input schema, wrapped?): tool inputs must be JSON objects."""
    if schema.get("type") == "object":
        return schema, False
    return {"type": "object", "properties": {WRAP_KEY: schema}, "required": [WRAP_KEY]}, True


class AnthropicBackend(Backend):
    """Anthropic Messages API (ANTHROPIC_API_KEY)."""

    name = "anthropic"
    summary = "Anthropic Messages API via the anthropic SDK (ANTHROPIC_API_KEY)"
    default_model = "claude-sonnet-5-5"
    key_name = "anthropic"
    key_spec = KeySpec(name=key_name, env_vars=("ANTHROPIC_API_KEY",))
    credential_env_vars = ("ANTHROPIC_API_KEY",)
    auto_priority = 30
    auto_reason = "Anthropic key found"

    @classmethod
    def configured(cls) -> bool:
        return key_available(cls.key_spec)

    def __init__(self, settings: BackendSettings):
        super().__init__(settings)
        self.key = require_key(settings, self.key_spec, backend=self.name)
        self.model_name = settings.model or self.default_model
        self.caps: ClaudeCaps = claude_caps_for(self.model_name, dict(settings.options), role_path=f"model.{settings.role}")
        self._client: Any = None
        self._client_lock = threading.Lock()
        self._calls = InflightCalls(self.name)

    def endpoint(self) -> str:
        return (self.settings.base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")

    def identity(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": self.model_name,
            "base_url": display_url(self.endpoint()),
            "wire": self.caps.as_dict(),
        }

    # ------------------------------------------------------------ call

    def complete(self, request: CompletionRequest) -> Completion:
        client = self._get_client()
        timeout = request.timeout_s or self.settings.timeout_s
        kwargs, wrapped = self.wire_request(request)
        started = time.monotonic()
        error: BackendError | None = None
        try:
            reply = self._calls.run(lambda: client.messages.create(**kwargs, timeout=timeout))
        except Cancelled:
            raise
        except Exception as exc:  # noqa: BLE001 - classified here, never re-raised raw
            error = classify_anthropic(exc, self.error_context(timeout))
        if error is not None:
            raise error
        return self.parse_reply(reply, request, started, wrapped=wrapped)

    def wire_request(self, request: CompletionRequest) -> tuple[dict[str, Any], bool]:
        """(``messages.create`` keyword arguments, was the schema wrapped?)."""
        import anthropic

        system, messages = anthropic_messages(request, backend=self.name)
        kwargs: dict[str, Any] = {"model": self.model_name, "max_tokens": request.max_tokens, "messages": messages}
        if system:
            kwargs["system"] = system
        if request.stop:
            kwargs["stop_sequences"] = list(request.stop)
        output: dict[str, Any] = {}
        if request.reasoning_effort and self.caps.effort:
            output["effort"] = EFFORTS.get(request.reasoning_effort, request.reasoning_effort)
        wrapped = False
        if request.json_schema is not None:
            if self.caps.structured == "json_schema":
                try:
                    schema = anthropic.transform_schema(request.json_schema)
                except (TypeError, ValueError) as exc:
                    raise BadRequestError(
                        f"anthropic: this JSON schema cannot be sent as output_config.format ({exc}); give every "
                        f"node a type, or on a model that still accepts forced tool use set "
                        f"model.{self.settings.role}.options.structured=tool",
                        backend=self.name,
                    ) from None
                output["format"] = {"type": "json_schema", "schema": schema}
            else:
                schema, wrapped = tool_schema(request.json_schema)
                tool = {"name": TOOL_NAME, "description": "Give the answer in this exact structure.", "input_schema": schema}
                kwargs["tools"] = [tool]
                kwargs["tool_choice"] = {"type": "tool", "name": TOOL_NAME}
        if output:
            kwargs["output_config"] = output
        return kwargs, wrapped

    def parse_reply(self, reply: Any, request: CompletionRequest, started: float, *, wrapped: bool) -> Completion:
        texts: list[str] = []
        parsed: Any = None
        for block in getattr(reply, "content", None) or []:
            kind = getattr(block, "type", "")
            if kind == "text":
                texts.append(block.text)
            elif kind == "tool_use" and block.name == TOOL_NAME and parsed is None:
                parsed = block.input
        if parsed is not None and wrapped:
            parsed = parsed.get(WRAP_KEY) if isinstance(parsed, dict) else None
        if parsed is not None:
            text = json.dumps(parsed, ensure_ascii=False)
        else:
            text = "".join(texts)
        if getattr(reply, "usage", None) is None:
            raise malformed_response(self.error_context(), "no usage block in the reply")
        u = reply.usage
        read = int(getattr(u, "cache_read_input_tokens", 0) or 0)
        written = int(getattr(u, "cache_creation_input_tokens", 0) or 0)
        usage = Usage(
            prompt_tokens=int(u.input_tokens or 0) + read + written,
            completion_tokens=int(u.output_tokens or 0),
            cached_tokens=read,
        )
        model = getattr(reply, "model", "") or self.model_name
        stop = getattr(reply, "stop_reason", None) or "end_turn"
        return Completion(
            text=text,
            parsed=parsed if request.json_schema is not None else None,
            usage=usage,
            cost_usd=prices.cost_usd(model, usage, cache_write_tokens=written),
            latency_s=time.monotonic() - started,
            model=model,
            finish_reason=_STOP.get(stop, str(stop)),
        )

    def list_price(self, usage: Usage) -> float | None:
        return prices.cost_usd(self.model_name, usage)

    # ------------------------------------------------------------ helpers

    def _get_client(self) -> Any:
        with self._client_lock:
            if self._client is None:
                import anthropic

                self._client = anthropic.Anthropic(
                    api_key=self.key.value,
                    base_url=self.endpoint(),
                    max_retries=0,
                    timeout=self.settings.timeout_s,
                    http_client=shared_http_client("anthropic"),
                )
            return self._client

    def close(self) -> None:
        """Release callers waiting on a call (they get :class:`Cancelled`); the shared
        connection pool stays open for other backends."""
        self._calls.cancel_all()
        with self._client_lock:
            self._client = None

    def error_context(self, timeout: float | None = None) -> ErrorContext:
        return ErrorContext(
            backend=self.name,
            role=self.settings.role,
            model=self.model_name,
            endpoint=display_url(self.endpoint()),
            key_source=self.key.source,
            key_help=self.key_spec.how_to_set(self.settings.role),
            timeout_s=timeout,
        )


@hookimpl
def skillopt_register_backends(register):
    register(AnthropicBackend)
