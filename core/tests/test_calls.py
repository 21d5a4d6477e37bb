"""The call pipeline around every backend: cache, replay, budgets, retries, schema re-asks.

The scripted backend stands in for a provider here: each test scripts exactly the
replies or failures a real provider would produce.
"""

from __future__ import annotations

import pytest

from skillopt.calls import CallCache, Ledger, ModelClient, RetryPolicy
from skillopt.errors import AuthError, BudgetExceeded, CacheMiss, RateLimitError, SchemaError, TransientError
from skillopt.records import CompletionRequest, Message
from skillopt.scripted import ScriptedBackend

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def request(text="hi", **kw):
    return CompletionRequest(messages=(Message(role="user", content=text),), **kw)


def sequence(*replies):
    it = iter(replies)
    return lambda _req: next(it)


def test_identical_call_hits_the_cache_and_costs_nothing(tmp_path):
    backend = ScriptedBackend(script=lambda r: "answer")
    ledger = Ledger()
    client = ModelClient(backend, role="target", ledger=ledger, cache=CallCache(tmp_path / "c.sqlite3"))
    first = client.complete(request())
    second = client.complete(request())
    assert len(backend.requests) == 1
    assert second.cached and not first.cached and second.text == "answer"
    totals = ledger.totals()
    assert totals.calls == 1 and totals.cached_calls == 1


def test_a_cache_hit_books_the_tokens_and_cost_it_saved_across_sessions(tmp_path):
    """A step served from the cache used to read as 0 tokens and $0 with nothing saying
    why: each hit now books what the reply cost when it was paid for, in the journal too."""
    import json

    backend = ScriptedBackend(script=lambda r: "answer")
    price = lambda model, usage: usage.prompt_tokens * 1e-3
    ledger = Ledger()
    ledger.attach(tmp_path / "usage.jsonl")
    client = ModelClient(backend, role="target", ledger=ledger, cache=CallCache(tmp_path / "c.sqlite3"), pricer=price)
    paid = client.complete(request())
    client.complete(request())
    ledger.close()
    totals = ledger.totals()
    tokens = paid.usage.prompt_tokens + paid.usage.completion_tokens
    assert (totals.cached_calls, totals.cached_tokens, totals.cached_cost_usd) == (1, tokens, round(paid.cost_usd, 8))
    assert totals.tokens == tokens and totals.cost_usd == round(paid.cost_usd, 8)  # the hit itself costs nothing
    again = Ledger()
    again.attach(tmp_path / "usage.jsonl")  # a resumed session reads the same
    assert again.totals().cached_tokens == tokens and again.totals().cached_cost_usd == round(paid.cost_usd, 8)
    with open(tmp_path / "usage.jsonl", "a") as fh:  # a journal written before hits carried their savings
        fh.write(json.dumps(["h", "target/other", ""]) + "\n")
    old = Ledger()
    old.attach(tmp_path / "usage.jsonl")
    assert old.totals().cached_calls == 2 and old.totals().cached_tokens == tokens


def test_cache_survives_a_new_process_and_distinguishes_parameters(tmp_path):
    path = tmp_path / "c.sqlite3"
    ModelClient(ScriptedBackend(script=lambda r: "a"), role="target", cache=CallCache(path)).complete(request(seed=1))
    backend = ScriptedBackend(script=lambda r: "b")
    client = ModelClient(backend, role="target", cache=CallCache(path))
    assert client.complete(request(seed=1)).text == "a"
    assert client.complete(request(seed=2)).text == "b"
    assert len(backend.requests) == 1


def test_replay_mode_fails_on_a_miss_instead_of_calling(tmp_path):
    backend = ScriptedBackend(script=lambda r: "x")
    client = ModelClient(backend, role="target", cache=CallCache(tmp_path / "c.sqlite3"), cache_mode="replay")
    with pytest.raises(CacheMiss, match="replay mode"):
        client.complete(request())
    assert backend.requests == []


def test_no_cache_mode_always_calls(tmp_path):
    backend = ScriptedBackend(script=lambda r: "x")
    client = ModelClient(backend, role="target", cache=CallCache(tmp_path / "c.sqlite3"), cache_mode="off")
    client.complete(request())
    client.complete(request())
    assert len(backend.requests) == 2


def test_call_budget_stops_before_the_call_that_would_exceed_it():
    backend = ScriptedBackend(script=lambda r: "x")
    client = ModelClient(backend, role="target", ledger=Ledger(max_calls=2), cache=None, cache_mode="off")
    client.complete(request("1"))
    client.complete(request("2"))
    with pytest.raises(BudgetExceeded, match="max_calls=2"):
        client.complete(request("3"))
    assert len(backend.requests) == 2


def test_cost_budget_uses_priced_usage():
    backend = ScriptedBackend(script=lambda r: "x" * 400)
    pricer = lambda model, usage: usage.completion_tokens * 0.01
    ledger = Ledger(max_cost_usd=1.0)
    client = ModelClient(backend, role="optimizer", ledger=ledger, cache=None, cache_mode="off", pricer=pricer)
    client.complete(request())
    assert ledger.totals().cost_usd == pytest.approx(1.01)
    with pytest.raises(BudgetExceeded, match="cost budget"):
        client.complete(request("again"))


def _spend_concurrently(ledger: Ledger, workers: int, price: float) -> int:
    """``workers`` threads each sending calls until the budget stops them; the calls overlap
    (each reply waits until every worker has sent once), as a run's rollout threads do."""
    import threading
    import time

    from skillopt.records import Usage

    sent, lock, first_wave = [0], threading.Lock(), threading.Barrier(workers)

    def work() -> None:
        waited = False
        while True:
            try:
                ledger.begin(role="target", stage="rollout")
            except BudgetExceeded:
                return
            with lock:
                sent[0] += 1
            if not waited:
                first_wave.wait()
                waited = True
            time.sleep(0.005)
            ledger.record(role="target", stage="rollout", usage=Usage(), cost_usd=price, cached=False)

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return sent[0]


def test_calls_in_flight_do_not_overshoot_the_cost_budget():
    """4 workers at $0.01 a call and max_cost_usd=0.045: the budget is crossed by the 5th
    call, and no call is sent while those in flight could cross it (before: 7 or 8 calls)."""
    ledger = Ledger(max_cost_usd=0.045)
    assert _spend_concurrently(ledger, 4, 0.01) == 5
    assert ledger.totals().cost_usd == pytest.approx(0.05)


def test_a_call_abandoned_in_flight_frees_its_place():
    ledger = Ledger(max_cost_usd=0.025)
    for _ in range(2):
        ledger.begin(role="target", stage="rollout")
    from skillopt.records import Usage

    ledger.record(role="target", stage="rollout", usage=Usage(), cost_usd=0.01, cached=False)
    ledger.abandon(role="target", stage="rollout")  # the other one died without a reply
    ledger.begin(role="target", stage="rollout")  # $0.01 spent, nothing in flight: sent at once
    assert ledger.totals().requests == 3


def test_rate_limit_is_retried_after_the_advertised_delay():
    delays = []
    backend = ScriptedBackend(script=sequence(RateLimitError("429", retry_after=1.0), RateLimitError("429", retry_after=1.0), "ok"))
    client = ModelClient(backend, role="target", cache=None, cache_mode="off", sleep=delays.append)
    assert client.complete(request()).text == "ok"
    assert len(delays) == 2 and all(1.0 <= d <= 1.1 for d in delays)


def test_transient_errors_back_off_exponentially_with_jitter_then_give_up():
    delays = []
    backend = ScriptedBackend(script=lambda r: TransientError("500"))
    client = ModelClient(backend, role="target", cache=None, cache_mode="off", sleep=delays.append,
                         retry=RetryPolicy(max_retries=3, base_delay_s=1.0, jitter=0.5))
    with pytest.raises(TransientError):
        client.complete(request())
    assert len(backend.requests) == 4 and len(delays) == 3
    assert 0.5 <= delays[0] <= 1.0 and 1.0 <= delays[1] <= 2.0 and 2.0 <= delays[2] <= 4.0


def test_auth_errors_fail_fast_without_retry():
    delays = []
    backend = ScriptedBackend(script=lambda r: AuthError("set OPENAI_API_KEY"))
    client = ModelClient(backend, role="target", cache=None, cache_mode="off", sleep=delays.append)
    with pytest.raises(AuthError, match="OPENAI_API_KEY"):
        client.complete(request())
    assert len(backend.requests) == 1 and delays == []


def test_broken_json_is_re_asked_with_the_problem_then_accepted(tmp_path):
    backend = ScriptedBackend(script=sequence("not json at all", '{"n": "three"}', '{"n": 3}'))
    client = ModelClient(backend, role="optimizer", cache=CallCache(tmp_path / "c.sqlite3"), schema_retries=2)
    out = client.complete(request(json_schema=SCHEMA))
    assert out.parsed == {"n": 3}
    assert len(backend.requests) == 3
    reask = backend.requests[2].messages[-1].content
    assert "expected integer" in reask and "$.n" in reask


def test_schema_failure_after_re_asks_is_an_error_and_is_not_cached(tmp_path):
    backend = ScriptedBackend(script=lambda r: '{"m": 1}')
    ledger = Ledger()
    client = ModelClient(backend, role="optimizer", ledger=ledger, cache=CallCache(tmp_path / "c.sqlite3"), schema_retries=1)
    with pytest.raises(SchemaError, match="missing required key 'n'"):
        client.complete(request(json_schema=SCHEMA))
    with pytest.raises(SchemaError):
        client.complete(request(json_schema=SCHEMA))
    assert len(backend.requests) == 4
    assert ledger.totals().failed_calls == 2


def test_json_in_a_fence_or_prose_is_extracted_but_two_objects_are_refused():
    from skillopt.calls import extract_json

    assert extract_json('Sure:\n```json\n{"n": 1}\n```') == {"n": 1}
    assert extract_json('Here it is {"n": 2} hope it helps') == {"n": 2}
    with pytest.raises(ValueError, match="2 JSON objects"):
        extract_json('{"n": 1} or {"n": 2}')


def test_role_settings_override_request_parameters():
    from skillopt.backends import BackendSettings

    backend = ScriptedBackend(BackendSettings(name="scripted", temperature=0.3, max_tokens=77))
    ModelClient(backend, role="target", cache=None, cache_mode="off").complete(request(max_tokens=5))
    sent = backend.requests[0]
    assert sent.temperature == 0.3 and sent.max_tokens == 77 and sent.role == "target"
