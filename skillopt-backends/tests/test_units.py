"""Pure logic: prices, wire capabilities, Retry-After parsing, error mapping."""

from __future__ import annotations

import email.utils
import time

import pytest

from skillopt.errors import AuthError, BadRequestError, ConfigError, ContextLengthError, RateLimitError, TransientError
from skillopt.records import Usage
from skillopt_backends.capabilities import caps_for, claude_caps_for, is_reasoning_model, strict_schema_ok
from skillopt_backends.errors import ErrorContext, from_status, retry_after_seconds
from skillopt_backends.prices import cost_usd, price_of

CTX = ErrorContext(
    backend="openai",
    role="target",
    model="gpt-4o-mini",
    endpoint="https://api.example/v1",
    key_source="OPENAI_API_KEY",
    key_help="set OPENAI_API_KEY, or run `skillopt keys set openai`",
)


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("gpt-4o-2024-08-06", "gpt-4o"),
        ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("claude-3-5-haiku-latest", "claude-3-5-haiku"),
        ("openai/gpt-5.4-mini", "gpt-5.4-mini"),
    ],
)
def test_snapshots_and_aliases_resolve_to_their_family(model, family):
    assert price_of(model) is price_of(family) is not None


@pytest.mark.parametrize("model", ["gpt-4o-audio-preview", "gpt-6-sol", "llama3:8b", "", "gpt-4o-mini-tts"])
def test_unknown_models_are_unpriced_not_guessed(model):
    assert price_of(model) is None and cost_usd(model, Usage(prompt_tokens=10)) is None


def test_cost_bills_cached_and_cache_write_tokens_at_their_rates():
    usage = Usage(prompt_tokens=10_000, completion_tokens=1_000, cached_tokens=4_000)
    assert cost_usd("gpt-4o-mini", usage) == pytest.approx((6_000 * 0.15 + 4_000 * 0.075 + 1_000 * 0.60) / 1e6)
    written = cost_usd("claude-haiku-4-5", usage, cache_write_tokens=2_000)
    assert written == pytest.approx((4_000 * 1.00 + 4_000 * 0.10 + 2_000 * 1.25 + 1_000 * 5.00) / 1e6)
    # no published cache rate: cached tokens are billed at the full input rate (estimate errs high)
    assert cost_usd("claude-opus-5-5", usage) == pytest.approx((10_000 * 4.00 + 1_000 * 20.00) / 1e6)


@pytest.mark.parametrize(
    ("model", "reasoning"),
    [
        ("o1", True),
        ("o3-mini", True),
        ("o4-mini-2025-04-16", True),
        ("gpt-5", True),
        ("gpt-5.4-mini", True),
        ("gpt-6-sol", True),
        ("gpt-5-chat-latest", False),
        ("gpt-5.3-chat-latest", False),
        ("gpt-4o", False),
        ("gpt-4.1-mini", False),
        ("omni-moderation", False),
    ],
)
def test_reasoning_models_by_name(model, reasoning):
    assert is_reasoning_model(model) is reasoning


def test_wire_caps_options_override_the_name():
    assert caps_for("o1-mini", {}, role_path="model.target").reasoning_effort is False
    caps = caps_for("gpt-4o", {"reasoning": "true", "max_tokens_param": "max_tokens"}, role_path="model.target")
    assert caps.reasoning and caps.max_tokens_param == "max_tokens"
    assert caps_for("gpt-5", {}, role_path="m", assume_reasoning_by_name=False).reasoning is False
    with pytest.raises(ConfigError, match="model.target.options.structured"):
        caps_for("gpt-4o", {"structured": "xml"}, role_path="model.target")
    with pytest.raises(ConfigError, match="'reasoning' must be true or false"):
        caps_for("gpt-4o", {"reasoning": "maybe"}, role_path="model.target")


def test_strict_schema_detection():
    closed = {
        "type": "object",
        "properties": {
            "a": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"b": {"type": "string"}},
                    "required": ["b"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["a"],
        "additionalProperties": False,
    }
    assert strict_schema_ok(closed)
    assert not strict_schema_ok({**closed, "required": []})
    nested_open = {**closed, "properties": {"a": {"type": "array", "items": {"type": "object", "properties": {}}}}}
    assert not strict_schema_ok(nested_open)


@pytest.mark.parametrize(
    ("model", "structured", "effort"),
    [
        ("claude-sonnet-5-5", "json_schema", True),
        ("claude-opus-4-5", "json_schema", True),
        ("claude-sonnet-4-6", "json_schema", True),
        ("claude-sonnet-4-5-20250929", "json_schema", False),
        ("claude-haiku-4-5", "json_schema", False),
        ("claude-sonnet-4-20250514", "tool", False),
        ("claude-opus-4-1", "tool", False),
        ("claude-3-7-sonnet-latest", "tool", False),
        ("claude-fable-5-1", "json_schema", True),
    ],
)
def test_claude_caps(model, structured, effort):
    caps = claude_caps_for(model, {}, role_path="model.optimizer")
    assert (caps.structured, caps.effort) == (structured, effort)


def test_retry_after_forms():
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    when = email.utils.formatdate(time.time() + 5, usegmt=True)
    assert 3.5 < retry_after_seconds({"retry-after": when}) <= 5.0
    assert retry_after_seconds({"retry-after": "soon"}) is None and retry_after_seconds({}) is None


def test_status_mapping():
    assert isinstance(from_status(401, ctx=CTX, message="Incorrect API key provided: sk-ab***cd"), AuthError)
    assert "sk-ab" not in str(from_status(401, ctx=CTX, message="Incorrect API key provided: sk-ab***cd"))
    assert isinstance(from_status(403, ctx=CTX), AuthError)
    quota = from_status(429, ctx=CTX, message="You exceeded your current quota", code="insufficient_quota")
    assert isinstance(quota, BadRequestError) and "billing" in str(quota)  # not retried: waiting will not help
    limited = from_status(429, ctx=CTX, headers={"retry-after": "2"})
    assert isinstance(limited, RateLimitError) and limited.retry_after == 2.0
    for status in (408, 409, 500, 502, 503, 529):
        assert isinstance(from_status(status, ctx=CTX), TransientError)
    assert isinstance(from_status(400, ctx=CTX, message="prompt is too long: 210000 tokens > 200000 maximum"), ContextLengthError)
    assert isinstance(from_status(413, ctx=CTX), ContextLengthError)
    assert "model.target.temperature" in str(from_status(400, ctx=CTX, message="bad", param="temperature"))
    assert "model.target.model" in str(from_status(404, ctx=CTX, message="The model `x` does not exist", code="model_not_found"))
    assert "ends in /v1" in str(from_status(404, ctx=CTX, message="Not Found"))
    assert "options.structured=json_object" in str(
        from_status(500, ctx=CTX, message="1 validation error: ('body', 'response_format', 'type') Input should be 'text'")
    )


def test_list_price_is_the_price_table_for_estimates(make_openai, make_anthropic):
    from skillopt.records import Usage
    from skillopt_backends import prices

    usage = Usage(prompt_tokens=1_000_000, completion_tokens=0)
    openai = make_openai(model="gpt-4o-mini")
    assert openai.list_price(usage) == pytest.approx(prices.cost_usd("gpt-4o-mini", usage)) and openai.list_price(usage) > 0
    anthropic = make_anthropic()
    assert anthropic.list_price(usage) == pytest.approx(prices.cost_usd(anthropic.model_name, usage))
    assert make_openai(model="my-own-finetune").list_price(usage) is None  # unknown: never guessed
