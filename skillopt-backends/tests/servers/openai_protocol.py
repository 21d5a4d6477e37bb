"""OpenAI Chat Completions and Azure OpenAI, as their services answer.

The checks mirror the real services' documented refusals, so a backend that phrases a
request wrongly fails here as it would in production: unknown body fields, a
reasoning model given ``max_tokens`` or ``temperature``, ``reasoning_effort`` sent to
a non-reasoning model, ``json_object`` mode without the word "json" in the messages,
a bad ``json_schema`` block, a wrong key (401 echoing a masked key, as OpenAI does),
Azure's ``api-key`` header, ``api-version`` query and deployment paths.
"""

from __future__ import annotations

import itertools
import json
import re
import time
from typing import Any

from .base import ProtocolError, ProtocolServer, Recorded, Reply, minimal_instance, word_tokens

CHAT_FIELDS = {
    "model",
    "messages",
    "max_tokens",
    "max_completion_tokens",
    "temperature",
    "top_p",
    "n",
    "stop",
    "seed",
    "response_format",
    "reasoning_effort",
    "tools",
    "tool_choice",
    "user",
    "stream",
    "stream_options",
    "presence_penalty",
    "frequency_penalty",
    "logprobs",
    "top_logprobs",
    "logit_bias",
    "metadata",
    "store",
    "parallel_tool_calls",
    "service_tier",
    "prediction",
    "modalities",
    "audio",
    "verbosity",
}
REASONING = re.compile(r"^(o\d|gpt-5(?!.*chat))")
ROLES = {"system", "developer", "user", "assistant", "tool"}
_ids = itertools.count(1)


class OpenAIServer(ProtocolServer):
    """``POST /v1/chat/completions`` and ``GET /v1/models``."""

    def __init__(self, *, api_key: str = "sk-test-openai-0123456789abcdef", models: tuple[str, ...] = ("gpt-4o-mini",)):
        super().__init__()
        self.api_key = api_key
        self.models = models

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    # ------------------------------------------------------------ checks

    def check(self, rec: Recorded) -> None:
        if rec.path == "/v1/models" and rec.method == "GET":
            self.check_auth(rec)
            return
        if rec.method != "POST" or rec.path != "/v1/chat/completions":
            raise ProtocolError(404, f"Invalid URL ({rec.method} {rec.path})")
        self.check_auth(rec)
        self.check_body(rec.body, model=rec.body.get("model") if isinstance(rec.body, dict) else None)

    def check_auth(self, rec: Recorded) -> None:
        given = rec.headers.get("authorization", "")
        token = given[7:] if given.startswith("Bearer ") else ""
        if token != self.api_key:
            masked = f"{token[:3]}*****{token[-4:]}" if len(token) > 8 else "***"
            raise ProtocolError(
                401,
                f"Incorrect API key provided: {masked}. You can find your API key at https://platform.openai.com/account/api-keys.",
                "invalid_api_key",
            )

    def check_body(self, body: Any, *, model: Any) -> None:
        """``model`` is the model that would serve the request (Azure: the deployment's)."""
        if not isinstance(body, dict):
            raise ProtocolError(400, "We could not parse the JSON body of your request.")
        unknown = sorted(set(body) - CHAT_FIELDS)
        if unknown:
            raise ProtocolError(400, f"Unrecognized request argument supplied: {unknown[0]}", param=unknown[0])
        if not isinstance(model, str):
            raise ProtocolError(400, "you must provide a model parameter", param="model")
        if model not in self.models:
            raise ProtocolError(404, f"The model `{model}` does not exist or you do not have access to it.", "model_not_found")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise ProtocolError(400, "[] is too short - 'messages'", param="messages")
        for i, m in enumerate(messages):
            if not isinstance(m, dict) or m.get("role") not in ROLES:
                raise ProtocolError(400, f"Invalid value for 'messages[{i}].role'", param=f"messages[{i}].role")
            content = m.get("content")
            if not isinstance(content, (str, list)):
                raise ProtocolError(400, f"Invalid type for 'messages[{i}].content'", param=f"messages[{i}].content")
            if isinstance(content, list):
                for part in content:
                    if part.get("type") not in ("text", "image_url") or (
                        part["type"] == "image_url" and "url" not in part.get("image_url", {})
                    ):
                        raise ProtocolError(400, f"Invalid content part in messages[{i}]", param=f"messages[{i}].content")
        for field in ("max_tokens", "max_completion_tokens"):
            if field in body and (not isinstance(body[field], int) or body[field] < 1):
                raise ProtocolError(400, f"Invalid '{field}': integer below minimum value.", param=field)
        reasoning = bool(REASONING.match(model))
        if reasoning and "max_tokens" in body:
            raise ProtocolError(
                400,
                "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
                "unsupported_parameter",
                "max_tokens",
            )
        if reasoning and body.get("temperature", 1) != 1:
            raise ProtocolError(
                400,
                "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.",
                "unsupported_value",
                "temperature",
            )
        if not reasoning and "reasoning_effort" in body:
            raise ProtocolError(400, "Unrecognized request argument supplied: reasoning_effort", param="reasoning_effort")
        self.check_response_format(body)

    def check_response_format(self, body: dict) -> None:
        fmt = body.get("response_format")
        if fmt is None:
            return
        kind = fmt.get("type")
        if kind == "json_object":
            if set(fmt) != {"type"}:
                raise ProtocolError(400, "Unrecognized field in response_format", param="response_format")
            if "json" not in json.dumps(body["messages"]).lower():
                raise ProtocolError(
                    400,
                    "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
                    param="messages",
                )
        elif kind == "json_schema":
            block = fmt.get("json_schema")
            if not isinstance(block, dict) or not isinstance(block.get("name"), str) or not isinstance(block.get("schema"), dict):
                raise ProtocolError(400, "Missing required parameter: 'response_format.json_schema'.", param="response_format")
        elif kind != "text":
            raise ProtocolError(
                400,
                f"Invalid value: '{kind}'. Supported values are: 'json_object', 'json_schema', and 'text'.",
                param="response_format.type",
            )

    # ------------------------------------------------------------ answers

    def handle(self, rec: Recorded, action: Reply | None) -> dict[str, Any]:
        if rec.path.endswith("/models"):
            return {
                "object": "list",
                "data": [{"id": m, "object": "model", "created": 0, "owned_by": "test"} for m in self.models],
            }
        body = rec.body
        action = action or Reply()
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
        if action.data is not None:
            content = json.dumps(action.data)
        elif action.text is not None:
            content = action.text
        elif schema is not None or (body.get("response_format") or {}).get("type") == "json_object":
            content = json.dumps(minimal_instance(schema or {"type": "object"}))
        else:
            content = "Hello from the OpenAI test server."
        prompt = (
            action.prompt_tokens
            if action.prompt_tokens is not None
            else sum(word_tokens(json.dumps(m["content"])) + 3 for m in body["messages"])
        )
        completion = action.completion_tokens if action.completion_tokens is not None else word_tokens(content)
        return {
            "id": f"chatcmpl-{next(_ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": action.model or self.reply_model(rec),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": None},
                    "finish_reason": action.finish,
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "prompt_tokens_details": {"cached_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 0},
            },
        }

    def reply_model(self, rec: Recorded) -> str:
        return rec.body["model"]

    def error_body(self, status: int, message: str, kind: str, param: str | None) -> bytes:
        kind = kind or {401: "invalid_api_key", 429: "rate_limit_exceeded"}.get(status, "")
        error_type = {429: "requests", 500: "server_error"}.get(status, "invalid_request_error")
        return json.dumps(
            {"error": {"message": message or f"HTTP {status}", "type": error_type, "param": param, "code": kind or None}}
        ).encode()


class AzureOpenAIServer(OpenAIServer):
    """``POST /openai/deployments/{deployment}/chat/completions?api-version=...``."""

    def __init__(
        self, *, api_key: str = "azure-test-key-0123456789", ad_token: str = "", deployments: dict[str, str] | None = None
    ):
        self.deployments = deployments or {"chat": "gpt-4o-mini-2024-07-18"}
        super().__init__(api_key=api_key, models=tuple(self.deployments.values()))
        self.ad_token = ad_token

    _PATH = re.compile(r"^/openai/deployments/(?P<dep>[^/]+)/chat/completions$")

    def check(self, rec: Recorded) -> None:
        match = self._PATH.match(rec.path)
        if rec.method != "POST" or match is None or not rec.query.get("api-version"):
            raise ProtocolError(404, "Resource not found", "404")
        key, bearer = rec.headers.get("api-key", ""), rec.headers.get("authorization", "")
        ok = (key and key == self.api_key) or (self.ad_token and bearer == f"Bearer {self.ad_token}")
        if not ok:
            raise ProtocolError(
                401,
                "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key "
                "for an active subscription and use a correct regional API endpoint for your resource.",
                "401",
            )
        if match.group("dep") not in self.deployments:
            raise ProtocolError(
                404,
                "The API deployment for this resource does not exist. If you created the deployment within the last 5 "
                "minutes, please wait a moment and try again.",
                "DeploymentNotFound",
            )
        self.check_body(rec.body, model=self.deployments[match.group("dep")])

    def reply_model(self, rec: Recorded) -> str:
        return self.deployments[self._PATH.match(rec.path).group("dep")]

    def error_body(self, status: int, message: str, kind: str, param: str | None) -> bytes:
        return json.dumps(
            {"error": {"code": kind or str(status), "message": message or f"HTTP {status}", "param": param}}
        ).encode()
