"""Hedged requests (``model.hedge_after``) through the official ``openai`` SDK against the
scripted OpenAI-protocol server on 127.0.0.1: the server holds the first copy of one
request until the test releases it, so the hedge's reply is the call's with no clock
involved; the server's request count is what the provider saw."""

from __future__ import annotations

import threading
import time

from backend_testkit import client_for
from servers.base import Hold, Reply

from skillopt.calls import HedgePolicy, Ledger
from skillopt.records import CompletionRequest, Message


def ask(text: str) -> CompletionRequest:
    return CompletionRequest(messages=(Message(role="user", content=text),), max_tokens=32)


def test_the_hedge_answers_a_held_request_and_closing_does_not_wait_for_the_loser(make_compat_scripted, openai_server):
    ledger = Ledger()
    client = client_for(make_compat_scripted(), ledger=ledger, hedge=HedgePolicy(percentile=75.0))
    for i in range(8):  # 8 latencies observed: the threshold exists from here on
        client.complete(ask(f"warm-up {i}"))
    release = threading.Event()
    openai_server.script(Hold(release, then=Reply("the first copy")), Reply("the hedge"))
    try:
        reply = client.complete(ask("Which copy answers?"))
        assert reply.text == "the hedge"
        assert openai_server.count == 10  # both copies reached the provider
        totals = ledger.totals()
        assert (totals.requests, totals.calls, totals.hedges, totals.hedges_won) == (10, 9, 1, 1)
        # the run ends while the loser is still out: closing the client does not wait for it
        closer = threading.Thread(target=client.close, daemon=True)
        closer.start()
        closer.join(10)
        assert not closer.is_alive()
    finally:
        release.set()
    deadline = time.monotonic() + 10
    while ledger._open:  # the loser comes back (a reply or the closed client's error) and leaves the flight
        assert time.monotonic() < deadline, "the losing copy never settled"
        time.sleep(0.01)
    assert ledger.totals().calls == 9  # a reply after the close is not billed into a closed run
