"""The backend contract, run against every backend.

local runs the real SmolLM2 in-process; openai-compatible talks to a real
llama_cpp.server subprocess serving the same model; openai, azure-openai and anthropic
talk to scripted servers that speak their wire protocols, through the real SDKs.
"""

from __future__ import annotations

import json
import threading
import time

import pytest
from backend_testkit import ALL_BACKENDS, client_for
from servers.base import Fail, Reply, Slow

from skillopt.errors import (
    AuthError,
    BadRequestError,
    CallTimeout,
    Cancelled,
    ContextLengthError,
    RateLimitError,
    TransientError,
)
from skillopt.records import CompletionRequest, Message
from skillopt.testing import check_backend_contract
from skillopt_backends import prices

pytestmark = pytest.mark.parametrize("harness", ALL_BACKENDS, indirect=True)

HELLO = (Message(role="user", content="Say hello."),)
STORY = (Message(role="user", content="Write a very long story about a cat who travels the world."),)
SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}, "confidence": {"type": "number", "minimum": 0, "maximum": 1}},
    "required": ["answer"],
}


def long_answer(harness) -> int:
    """Tokens for a call that must be cut short. The llama.cpp server keeps generating
    for a client that left (it notices only when it writes), so keep its leftover small."""
    return 400 if harness.name == "local" else 120


def test_text_completion(harness):
    completion = harness.make().complete(CompletionRequest(messages=HELLO, max_tokens=16))
    assert completion.text.strip()
    assert completion.model
    assert completion.finish_reason in ("stop", "length")
    assert completion.latency_s > 0


def test_structured_output_through_the_pipeline(harness):
    client = client_for(harness.make(), role="optimizer")
    request = CompletionRequest(
        messages=(Message(role="user", content='What is the capital of France? Reply with JSON {"answer": "..."}.'),),
        max_tokens=64,
        json_schema=SCHEMA,
        stage="reflect",
    )
    completion = client.complete(request)
    assert isinstance(completion.parsed, dict)
    assert isinstance(completion.parsed["answer"], str)
    assert json.loads(completion.text) == completion.parsed


def test_usage_and_cost(harness):
    completion = harness.make().complete(CompletionRequest(messages=HELLO, max_tokens=16))
    assert completion.usage.prompt_tokens > 0
    assert completion.usage.completion_tokens > 0
    if harness.name in ("local", "openai-compatible"):  # in-process / a server on 127.0.0.1: free
        assert completion.cost_usd == 0.0
    else:
        expected = prices.cost_usd(completion.model, completion.usage)
        assert expected is not None and expected > 0
        assert completion.cost_usd == pytest.approx(expected)


def test_identity_is_stable_and_secret_free(harness):
    first, second = harness.make(), harness.make()
    assert first.identity() == second.identity()
    key = first.settings.api_key
    if key:
        assert key not in json.dumps(first.identity())
    check_backend_contract(first)  # the core's own checker: text, usage, schema, identity


def test_timeout_is_a_call_timeout(harness):
    backend = harness.make()
    if harness.server is not None:
        harness.server.script(Slow(2.0, Reply("too late")))
        request = CompletionRequest(messages=HELLO, max_tokens=16, timeout_s=0.3)
        limit = 1.5
    else:  # a real model, asked for more than it can write in 0.2 s
        request = CompletionRequest(messages=STORY, max_tokens=long_answer(harness), timeout_s=0.2)
        limit = 30.0  # stops at the next token after the deadline; generous for a loaded CPU
    started = time.monotonic()
    with pytest.raises(CallTimeout) as info:
        backend.complete(request)
    assert time.monotonic() - started < limit
    assert "timeout_s" in str(info.value)


def test_close_cancels_the_call_in_flight(harness):
    backend = harness.make()
    if harness.server is not None:
        harness.server.script(Slow(3.0, Reply("too late")))
        request = CompletionRequest(messages=HELLO, max_tokens=16)
    else:  # uninterrupted, this would return a 120-400 token story
        request = CompletionRequest(messages=STORY, max_tokens=long_answer(harness))
    threading.Timer(0.4, backend.close).start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        backend.complete(request)
    # A real model stops at its next token; under a loaded CPU one token can take a while.
    assert time.monotonic() - started < (2.5 if harness.server is not None else 30.0)
    with pytest.raises(Cancelled):  # and a closed backend takes no new work
        backend.complete(CompletionRequest(messages=HELLO, max_tokens=4))


def test_a_cancelled_run_makes_no_call(harness):
    cancel = threading.Event()
    cancel.set()
    client = client_for(harness.make(), cancel=cancel)
    with pytest.raises(Cancelled):
        client.complete(CompletionRequest(messages=HELLO, max_tokens=4))
    if harness.server is not None:
        assert harness.server.count == 0


def test_error_classes(harness):
    """Each backend's real failure modes map to the classified errors."""
    if harness.server is not None:
        cases = [
            (Fail(401), AuthError),
            (Fail(400, "This model's maximum context length is 128000 tokens.", "context_length_exceeded"), ContextLengthError),
            (Fail(400, "Invalid value for 'stop'.", param="stop"), BadRequestError),
            (Fail(429, "slow down", headers={"retry-after": "7"}), RateLimitError),
            (Fail(500, "boom"), TransientError),
            (Fail(503, "overloaded"), TransientError),
        ]
        backend = harness.make()
        for action, expected in cases:
            harness.server.script(action)
            with pytest.raises(expected) as info:
                backend.complete(CompletionRequest(messages=HELLO, max_tokens=8))
            if expected is RateLimitError:
                assert info.value.retry_after == 7.0
        return
    if harness.name == "local":
        with pytest.raises(BadRequestError, match="text-only"):
            harness.make().complete(
                CompletionRequest(messages=(Message(role="user", content="What is this?", images=("x.png",)),))
            )
        small = harness.make(options={"n_ctx": 512})
    else:
        small = harness.make()  # the llama.cpp server runs with n_ctx=2048
    # a generous deadline: the one-slot llama.cpp server may still be writing the reply an earlier test cancelled
    with pytest.raises(ContextLengthError):
        small.complete(CompletionRequest(messages=(Message(role="user", content="word " * 3000),), max_tokens=8, timeout_s=600))
