"""The backends behind the core's call pipeline (``skillopt.calls.ModelClient``):
retries honouring Retry-After, fail-fast auth, no stacked SDK retries, the call cache
and replay, the shared in-flight limit, usage, cost and hard budgets, schema re-asks.
Every request goes over HTTP to a scripted provider server; its request count is
the ground truth for "how many calls were paid for".
"""

from __future__ import annotations

import threading
import time

import pytest
from backend_testkit import HTTP_SCRIPTED, client_for
from servers.base import Fail, Raw, Reply, Slow

from skillopt.calls import CallCache, Ledger, RetryPolicy
from skillopt.errors import AuthError, BudgetExceeded, CacheMiss, Cancelled, SchemaError, TransientError
from skillopt.records import CompletionRequest, Message

HELLO = (Message(role="user", content="Say hello."),)
SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"], "additionalProperties": False}


def ask(text: str = "Say hello.", **kw) -> CompletionRequest:
    return CompletionRequest(messages=(Message(role="user", content=text),), max_tokens=kw.pop("max_tokens", 32), **kw)


# --------------------------------------------------------------------------- acceptance


def test_429_twice_with_retry_after_1_then_success_takes_about_2s(make_openai, openai_server):
    backend = make_openai()
    backend.complete(ask("warm-up"))  # connection set up: the timing below is the retry policy's
    openai_server.reset()
    openai_server.script(
        Fail(429, "Rate limit reached", headers={"Retry-After": "1"}),
        Fail(429, "Rate limit reached", headers={"Retry-After": "1"}),
    )
    client = client_for(backend)
    started = time.monotonic()
    completion = client.complete(ask())
    elapsed = time.monotonic() - started
    assert completion.text == "Hello from the OpenAI test server."
    assert openai_server.count == 3
    assert 1.95 <= elapsed < 3.0, elapsed
    print(f"\n429 x2 (Retry-After: 1) then 200: {elapsed:.2f}s")


@pytest.mark.parametrize("scripted_harness", HTTP_SCRIPTED, indirect=True)
def test_rate_limit_retry_honours_retry_after(scripted_harness):
    backend = scripted_harness.make()
    backend.complete(ask("warm-up"))
    scripted_harness.server.reset()
    scripted_harness.server.script(Fail(429, "slow down", headers={"retry-after": "1"}))
    client = client_for(backend)
    started = time.monotonic()
    client.complete(ask())
    assert 0.95 <= time.monotonic() - started < 2.5
    assert scripted_harness.server.count == 2


def test_a_long_retry_after_is_capped_by_the_setting_and_said_on_the_console(openai_server):
    """A provider answering 429 with ``Retry-After: 3600`` used to stall the run silently for
    an hour: the wait is capped by ``model.max_retry_wait_s`` and the run says it waits."""
    import attrs

    from skillopt import report
    from skillopt.config.schema import RunConfig
    from skillopt.engine.models import build_clients

    cfg = RunConfig()
    cfg = attrs.evolve(cfg, model=attrs.evolve(cfg.model, backend="openai", base_url=openai_server.base_url,
                                               api_key=openai_server.api_key, model="gpt-4o-mini", max_retry_wait_s=1.0,
                                               cache="off"))
    clients, _ = build_clients(cfg, ledger=Ledger(), roles=("target",))
    client = clients["target"]
    client.complete(ask("warm-up"))
    openai_server.reset()
    openai_server.script(Fail(429, "Rate limit reached", headers={"Retry-After": "3600"}))
    said: list[tuple[str, str]] = []
    old = report.set_reporter(lambda message, level: said.append((message, level)))
    try:
        started = time.monotonic()
        completion = client.complete(ask())
        elapsed = time.monotonic() - started
    finally:
        report.set_reporter(old)
        client.close()
    assert completion.text == "Hello from the OpenAI test server." and openai_server.count == 2
    assert 0.95 <= elapsed < 3.0, elapsed
    [(message, _)] = said
    assert "waiting 1s on the target provider (openai: rate limited (HTTP 429)" in message
    assert "asked for 3600s" in message and "model.max_retry_wait_s=1" in message and "retry 1 of 5" in message


def test_overlapping_waits_are_said_once(make_openai, openai_server):
    from skillopt import report

    backend = make_openai()
    backend.complete(ask("warm-up"))
    openai_server.reset()
    openai_server.script(*[Fail(429, "busy", headers={"Retry-After": "1"})] * 4)
    client = client_for(backend, retry=RetryPolicy(max_retries=5, max_retry_after_s=5.0))
    said: list[str] = []
    old = report.set_reporter(lambda message, level: said.append(message))
    try:
        threads = [threading.Thread(target=client.complete, args=(ask(f"q{i}"),)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
    finally:
        report.set_reporter(old)
    assert openai_server.count == 8  # four 429s, then four answers
    assert len(said) == 1 and "Retry-After 1s" in said[0]


@pytest.mark.parametrize("scripted_harness", HTTP_SCRIPTED, indirect=True)
def test_401_fails_at_once_naming_the_env_var(scripted_harness, monkeypatch):
    env_var = {
        "openai": "OPENAI_API_KEY",
        "openai-compatible": "OPENAI_COMPATIBLE_API_KEY",
        "azure-openai": "AZURE_OPENAI_API_KEY",
        "anthropic": "ANTHROPIC_API_KEY",
    }[scripted_harness.name]
    wrong = "sk-wrong-key-0123456789abcdefghijkl"
    monkeypatch.setenv(env_var, wrong)
    client = client_for(scripted_harness.make(api_key=""), retry=RetryPolicy(max_retries=5))
    started = time.monotonic()
    with pytest.raises(AuthError) as info:
        client.complete(ask())
    assert time.monotonic() - started < 1.0
    assert scripted_harness.server.count == 1
    message = str(info.value)
    assert env_var in message
    assert f"skillopt keys set {scripted_harness.name}" in message
    assert wrong not in message and wrong[-4:] not in message  # not even OpenAI's masked echo
    assert info.value.__context__ is None and info.value.__cause__ is None


def test_sdk_retries_do_not_stack_on_the_pipeline(make_openai, openai_server):
    openai_server.script(*[Fail(500, "boom")] * 10)
    client = client_for(make_openai(), retry=RetryPolicy(max_retries=2), sleep=lambda s: None)
    with pytest.raises(TransientError):
        client.complete(ask())
    assert openai_server.count == 3  # one request per pipeline attempt, none from the SDK


def test_malformed_body_is_retried_as_transient(make_anthropic, anthropic_server):
    anthropic_server.script(
        Raw(b'{"id": "msg_1", "content": [{"type": "te'), Raw(b"<html>bad gateway</html>", content_type="text/html")
    )
    client = client_for(make_anthropic(), sleep=lambda s: None)
    assert client.complete(ask()).text == "Hello from the Anthropic test server."
    assert anthropic_server.count == 3


def test_cancel_during_a_retry_wait_stops_promptly(make_azure, azure_server):
    azure_server.script(Fail(429, "busy", headers={"retry-after": "30"}))
    cancel = threading.Event()
    client = client_for(make_azure(), cancel=cancel)
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        client.complete(ask())
    assert time.monotonic() - started < 2.0
    assert azure_server.count == 1


# --------------------------------------------------------------------------- cache


def test_identical_call_hits_the_cache_with_no_network_request(make_openai, openai_server, tmp_path):
    cache = CallCache(tmp_path / "calls.sqlite3")
    first = client_for(make_openai(), cache=cache).complete(ask())
    assert openai_server.count == 1
    started = time.perf_counter()
    second = client_for(make_openai(), cache=cache).complete(ask())  # a new run, same call
    hit_ms = (time.perf_counter() - started) * 1000
    assert openai_server.count == 1
    assert second.cached and second.text == first.text and second.cost_usd == 0.0
    print(f"\ncache hit: {hit_ms:.2f} ms, server requests: {openai_server.count}")


def test_no_cache_and_replay_modes(make_openai, openai_server, tmp_path):
    cache = CallCache(tmp_path / "calls.sqlite3")
    with pytest.raises(CacheMiss):  # replay with nothing recorded: no network at all
        client_for(make_openai(), cache=cache, cache_mode="replay").complete(ask())
    assert openai_server.count == 0
    client_for(make_openai(), cache=cache).complete(ask())
    replayed = client_for(make_openai(), cache=cache, cache_mode="replay").complete(ask())
    assert replayed.cached and openai_server.count == 1
    client_for(make_openai(), cache=None, cache_mode="off").complete(ask())  # --no-cache
    assert openai_server.count == 2


def test_cache_key_covers_backend_model_and_parameters(make_openai, make_anthropic, openai_server, anthropic_server, tmp_path):
    cache = CallCache(tmp_path / "calls.sqlite3")
    client_for(make_openai(), cache=cache).complete(ask())
    client_for(make_openai(model="gpt-5.4-mini"), cache=cache).complete(ask())
    client_for(make_openai(), cache=cache).complete(ask(temperature=0.5))
    client_for(make_anthropic(), cache=cache).complete(ask())
    assert openai_server.count == 3 and anthropic_server.count == 1
    assert len(cache) == 4


@pytest.mark.parametrize("scripted_harness", HTTP_SCRIPTED, indirect=True)
def test_keys_never_reach_the_cache_file(scripted_harness, tmp_path):
    backend = scripted_harness.make()
    key = backend.settings.api_key
    path = tmp_path / "calls.sqlite3"
    client_for(backend, cache=CallCache(path)).complete(ask(json_schema=SCHEMA))
    for file in tmp_path.iterdir():
        assert key.encode() not in file.read_bytes()


# --------------------------------------------------------------------------- limits


def test_in_flight_limit_is_shared_by_all_threads(make_openai, openai_server):
    openai_server.script(*[Slow(0.3, Reply("ok"))] * 8)
    backend = make_openai(model="o3-mini")  # a model no other test uses: its own limiter
    clients = [client_for(backend, max_in_flight=2) for _ in range(2)]  # e.g. two roles, one endpoint
    threads = [threading.Thread(target=clients[i % 2].complete, args=(ask(max_tokens=8 + i),)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert openai_server.count == 8
    assert openai_server.max_in_flight == 2


# --------------------------------------------------------------------------- accounting


def test_ledger_counts_tokens_and_usd_per_role_and_stage(make_openai, make_anthropic, openai_server, anthropic_server, tmp_path):
    ledger = Ledger()
    cache = CallCache(tmp_path / "calls.sqlite3")
    openai_server.script(Reply("a", prompt_tokens=1000, completion_tokens=200))
    anthropic_server.script(Reply(data={"answer": "b"}, prompt_tokens=3000, completion_tokens=500))
    target = client_for(make_openai(), role="target", ledger=ledger, cache=cache)
    optimizer = client_for(make_anthropic(), role="optimizer", ledger=ledger, cache=cache)
    target.complete(ask(stage="rollout"))
    optimizer.complete(ask(stage="reflect", json_schema=SCHEMA))
    target.complete(ask(stage="rollout"))  # cached: counted, not paid
    totals = ledger.totals()
    rollout, reflect = totals.by_stage["target/rollout"], totals.by_stage["optimizer/reflect"]
    assert (rollout.calls, rollout.cached_calls, rollout.prompt_tokens, rollout.completion_tokens) == (
        1,
        1,
        1000,
        200,
    )
    assert (reflect.calls, reflect.prompt_tokens, reflect.completion_tokens) == (1, 3000, 500)
    assert rollout.cost_usd == pytest.approx((1000 * 0.15 + 200 * 0.60) / 1e6)  # gpt-4o-mini
    assert reflect.cost_usd == pytest.approx((3000 * 2.00 + 500 * 10.00) / 1e6)  # claude-sonnet-5-5
    assert totals.unpriced_calls == 0


def test_unknown_model_is_counted_unpriced_not_blocked(make_openai, openai_server):
    ledger = Ledger(max_cost_usd=0.0001)
    client = client_for(make_openai(model="local-model"), ledger=ledger)
    assert client.complete(ask("one")).cost_usd is None
    client.complete(ask("two"))
    totals = ledger.totals()
    assert (totals.calls, totals.unpriced_calls, totals.cost_usd) == (2, 2, 0.0)
    assert totals.prompt_tokens > 0


def test_a_server_on_this_machine_costs_nothing(make_compat_scripted, openai_server):
    client = client_for(make_compat_scripted(model="gpt-4o-mini"))  # a priced name, but self-hosted
    assert client.complete(ask()).cost_usd == 0.0


def test_core_price_override_wins(make_openai, openai_server):
    openai_server.script(Reply("a", prompt_tokens=1_000_000, completion_tokens=0))
    client = client_for(make_openai(), pricer=lambda model, usage: usage.prompt_tokens * 9.0 / 1e6)
    assert client.complete(ask()).cost_usd == pytest.approx(9.0)


def test_hard_budgets_stop_before_the_next_paid_call(make_openai, openai_server):
    client = client_for(make_openai(), ledger=Ledger(max_calls=2))
    client.complete(ask("one"))
    client.complete(ask("two"))
    with pytest.raises(BudgetExceeded, match="max_calls=2"):
        client.complete(ask("three"))
    assert openai_server.count == 2

    openai_server.script(Reply("pricey", prompt_tokens=2_000_000, completion_tokens=0))  # $0.30 on gpt-4o-mini
    spender = client_for(make_openai(), ledger=Ledger(max_cost_usd=0.25))
    spender.complete(ask("four"))
    with pytest.raises(BudgetExceeded, match="max_cost_usd"):
        spender.complete(ask("five"))
    assert openai_server.count == 3
    assert spender.ledger.totals().cost_usd == pytest.approx(0.30)


# --------------------------------------------------------------------------- schema


@pytest.mark.parametrize("scripted_harness", HTTP_SCRIPTED, indirect=True)
def test_schema_violation_is_reasked_then_accepted(scripted_harness):
    scripted_harness.server.script(Reply(text="Sure! The answer is Paris."), Reply(data={"answer": "Paris"}))
    completion = client_for(scripted_harness.make()).complete(ask("Capital of France?", json_schema=SCHEMA))
    assert completion.parsed == {"answer": "Paris"}
    assert scripted_harness.server.count == 2
    resent = str(scripted_harness.server.last().body)
    assert "does not match the required JSON schema" in resent


@pytest.mark.parametrize("scripted_harness", HTTP_SCRIPTED, indirect=True)
def test_schema_violation_after_the_reask_limit_is_a_failure(scripted_harness):
    scripted_harness.server.script(*[Reply(data={"wrong": 1})] * 5)
    ledger = Ledger()
    client = client_for(scripted_harness.make(), ledger=ledger, schema_retries=2)
    with pytest.raises(SchemaError, match="missing required key 'answer'"):
        client.complete(ask("Capital of France?", json_schema=SCHEMA))
    assert scripted_harness.server.count == 3
    assert ledger.totals().failed_calls == 1


def test_truncated_output_is_reasked_with_the_reason(make_openai, openai_server):
    openai_server.script(Reply(text='{"answer": "Par', finish="length"), Reply(data={"answer": "Paris"}))
    completion = client_for(make_openai()).complete(ask("Capital of France?", json_schema=SCHEMA))
    assert completion.parsed == {"answer": "Paris"}
    assert "cut off at max_tokens" in str(openai_server.last().body)
