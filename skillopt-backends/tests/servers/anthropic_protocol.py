"""The Anthropic Messages API (version 2026-10-21, which SDK 2.x speaks), as the
service answers.

Checks mirror the service's refusals: the key (``Authorization: Bearer`` as SDK 2.x
sends it, or ``x-api-key``) and ``anthropic-version`` headers, ``max_tokens``
required, only user/assistant roles in ``messages`` (system goes top-level), unknown
fields and sampling parameters ("Extra inputs are not permitted"), tool definitions
and ``tool_choice``, forced tool use on models that refuse it, ``output_config``
(effort only on models that take it; a JSON-output schema must close every object and
carry no keyword the decoder cannot enforce). A forced tool call is answered with a
``tool_use`` block and ``output_config.format`` with JSON text, as the real model does.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from .base import ProtocolError, ProtocolServer, Recorded, Reply, minimal_instance, word_tokens

FIELDS = {
    "model",
    "max_tokens",
    "messages",
    "system",
    "stop_sequences",
    "stream",
    "tools",
    "tool_choice",
    "metadata",
    "thinking",
    "service_tier",
    "output_config",
    "cache_control",
}
EFFORTS = {"low", "medium", "high", "xhigh", "max"}
NO_EFFORT = {"claude-haiku-4-5", "claude-sonnet-4-5", "claude-3-5-haiku"}
NO_FORCED_TOOL = {"claude-sonnet-5-5"}
UNENFORCEABLE = {"minLength", "maxLength", "minimum", "maximum", "maxItems", "pattern"}


def check_output_schema(schema: Any, path: str = "schema") -> None:
    """JSON outputs: every object closed, no keyword the decoder cannot enforce."""
    if isinstance(schema, list):
        for i, item in enumerate(schema):
            check_output_schema(item, f"{path}.{i}")
        return
    if not isinstance(schema, dict):
        return
    bad = sorted(UNENFORCEABLE & set(schema))
    if bad:
        raise ProtocolError(400, f"output_config.format.{path}: '{bad[0]}' is not supported in JSON outputs")
    if schema.get("type") == "object" and schema.get("additionalProperties") is not False:
        raise ProtocolError(400, f"output_config.format.{path}: objects must set additionalProperties to false")
    for key in ("properties", "$defs"):
        for name, sub in (schema.get(key) or {}).items():
            check_output_schema(sub, f"{path}.{key}.{name}")
    for key in ("items", "anyOf", "allOf"):
        if key in schema:
            check_output_schema(schema[key], f"{path}.{key}")


_ids = itertools.count(1)


class AnthropicServer(ProtocolServer):
    """``POST /v1/messages``."""

    def __init__(
        self,
        *,
        api_key: str = "sk-ant-test-0123456789abcdefghij",
        models: tuple[str, ...] = ("claude-sonnet-5-5", "claude-haiku-4-5", "claude-sonnet-4-20250514"),
    ):
        super().__init__()
        self.api_key = api_key
        self.models = models

    def check(self, rec: Recorded) -> None:
        if rec.method != "POST" or rec.path != "/v1/messages":
            raise ProtocolError(404, "Not Found", "not_found_error")
        given = rec.headers.get("x-api-key") or rec.headers.get("authorization", "").removeprefix("Bearer ")
        if given != self.api_key:
            raise ProtocolError(401, "invalid x-api-key", "authentication_error")
        if not rec.headers.get("anthropic-version"):
            raise ProtocolError(400, "anthropic-version: header is required")
        body = rec.body
        if not isinstance(body, dict):
            raise ProtocolError(400, "Could not parse the request body as JSON")
        for key in sorted(set(body) - FIELDS):
            raise ProtocolError(400, f"{key}: Extra inputs are not permitted")
        if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
            raise ProtocolError(400, "max_tokens: Field required")
        if body.get("model") not in self.models:
            raise ProtocolError(404, f"model: {body.get('model')}", "not_found_error")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise ProtocolError(400, "messages: at least one message is required")
        for i, m in enumerate(messages):
            if m.get("role") not in ("user", "assistant"):
                raise ProtocolError(
                    400,
                    f'messages.{i}.role: Unexpected role "{m.get("role")}". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.',
                )
            content = m.get("content")
            if isinstance(content, list):
                for block in content:
                    if block.get("type") not in ("text", "image", "tool_use", "tool_result"):
                        raise ProtocolError(400, f"messages.{i}.content: unknown block type {block.get('type')!r}")
            elif not isinstance(content, str):
                raise ProtocolError(400, f"messages.{i}.content: Input should be a valid list")
        tools = body.get("tools") or []
        for tool in tools:
            if not isinstance(tool.get("name"), str) or (tool.get("input_schema") or {}).get("type") != "object":
                raise ProtocolError(400, "tools.0.custom.input_schema.type: Input should be 'object'")
        choice = body.get("tool_choice")
        if choice is not None:
            if choice.get("type") == "tool" and choice.get("name") not in {t["name"] for t in tools}:
                raise ProtocolError(400, "tool_choice.name: tool not found in tools")
            if choice.get("type") in ("tool", "any") and body["model"] in NO_FORCED_TOOL:
                raise ProtocolError(
                    400, f"tool_choice: forcing tool use is not supported with {body['model']}; use output_config.format"
                )
        output = body.get("output_config") or {}
        for key in sorted(set(output) - {"effort", "format"}):
            raise ProtocolError(400, f"output_config.{key}: Extra inputs are not permitted")
        if "effort" in output:
            if body["model"] in NO_EFFORT:
                raise ProtocolError(400, f"output_config.effort: effort is not supported for {body['model']}")
            if output["effort"] not in EFFORTS:
                raise ProtocolError(400, "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'")
        if "format" in output:
            fmt = output["format"]
            if fmt.get("type") != "json_schema" or not isinstance(fmt.get("schema"), dict):
                raise ProtocolError(400, "output_config.format: expected {type: json_schema, schema: {...}}")
            check_output_schema(fmt["schema"])

    def handle(self, rec: Recorded, action: Reply | None) -> dict[str, Any]:
        body = rec.body
        action = action or Reply()
        choice = body.get("tool_choice") or {}
        forced = next(
            (t for t in body.get("tools") or [] if choice.get("type") == "tool" and t["name"] == choice.get("name")), None
        )
        json_format = ((body.get("output_config") or {}).get("format") or {}).get("schema")
        if json_format is not None and action.text is None and action.data is None:
            action = Reply(
                data=minimal_instance(json_format),
                finish=action.finish,
                prompt_tokens=action.prompt_tokens,
                completion_tokens=action.completion_tokens,
                model=action.model,
            )
        if forced is not None and action.text is None:
            data = action.data if action.data is not None else minimal_instance(forced["input_schema"])
            content = [{"type": "tool_use", "id": f"toolu_{next(_ids):04d}", "name": forced["name"], "input": data}]
            out_text = json.dumps(data)
            stop = "tool_use"
        else:
            out_text = (
                action.text
                if action.text is not None
                else (json.dumps(action.data) if action.data is not None else "Hello from the Anthropic test server.")
            )
            content = [{"type": "text", "text": out_text}]
            stop = "end_turn"
        if action.finish == "length":
            stop = "max_tokens"
        prompt = (
            action.prompt_tokens
            if action.prompt_tokens is not None
            else word_tokens(json.dumps(body["messages"])) + word_tokens(body.get("system", ""))
        )
        completion = action.completion_tokens if action.completion_tokens is not None else word_tokens(out_text)
        return {
            "id": f"msg_{next(_ids):06d}",
            "type": "message",
            "role": "assistant",
            "model": action.model or body["model"],
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": prompt,
                "output_tokens": completion,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }

    def error_body(self, status: int, message: str, kind: str, param: str | None) -> bytes:
        kind = kind or {
            401: "authentication_error",
            404: "not_found_error",
            429: "rate_limit_error",
            529: "overloaded_error",
        }.get(status, "api_error" if status >= 500 else "invalid_request_error")
        return json.dumps(
            {"type": "error", "error": {"type": kind, "message": message or f"HTTP {status}"}, "request_id": "req_test"}
        ).encode()
