"""Hedged requests (``model.hedge_after``): a straggling call is sent again, the first reply wins.

The backend is the scripted one with a script that stands for a provider holding one
specific request: the first copy of the request whose text is ``slow`` waits on an event
the test sets; every other request (the hedge included) answers at once. No assertion
compares durations: the held copy is out until the test lets it go.
"""

from __future__ import annotations

import threading
import time

import pytest

from skillopt.calls import CallCache, HedgePolicy, Ledger, ModelClient
from skillopt.calls.hedge import LatencyWindow
from skillopt.config import ConfigSources, resolve_config
from skillopt.errors import BackendError, ConfigError, TransientError
from skillopt.records import CompletionRequest, Message
from skillopt.scripted import ScriptedBackend

P75 = HedgePolicy(percentile=75.0)


class HeldProvider:
    """Answers at once, except the first copy of ``slow``, held until :meth:`release`.

    ``first`` / ``second``: what the first and the second copy of ``slow`` answer (a
    string, or an exception to raise); later copies answer ``later answer``."""

    def __init__(self, first: object = "primary answer", second: object = "hedge answer") -> None:
        self.first, self.second = first, second
        self.copies = 0
        self.arrived = threading.Event()  # the first copy of slow is in
        self.second_in = threading.Event()
        self._release = threading.Event()
        self._lock = threading.Lock()
        #: called when the first copy of ``slow`` is in (see :func:`arm`)
        self.on_arrival = lambda: None

    def release(self) -> None:
        self._release.set()

    def __call__(self, request: CompletionRequest) -> object:
        text = request.messages[-1].content
        if "slow" not in text:
            return f"answer to {text.strip()}"
        with self._lock:
            self.copies += 1
            copy = self.copies
        if copy == 1:
            self.on_arrival()
            self.arrived.set()
            assert self._release.wait(30), "the test never released the held request"
            return self.first
        self.second_in.set()
        return self.second if copy == 2 else "later answer"


def ask(text: str) -> CompletionRequest:
    return CompletionRequest(messages=(Message(role="user", content=text),))


def client(provider: HeldProvider, *, ledger: Ledger | None = None, hedge: HedgePolicy = P75, **kw) -> ModelClient:
    kw.setdefault("cache", None)
    kw.setdefault("cache_mode", "off" if kw["cache"] is None else "read-write")
    return ModelClient(ScriptedBackend(script=provider), role="target", ledger=ledger or Ledger(), hedge=hedge, **kw)


def warm(c: ModelClient, n: int = 8) -> None:
    """``n`` replies observed (all fast: the threshold becomes a few microseconds)."""
    for i in range(n):
        assert c.complete(ask(f"warm {i}")).text == f"answer to warm {i}"


def arm(c: ModelClient, provider: HeldProvider) -> None:
    """No hedge until the first copy of ``slow`` is at the provider, then one at once: the
    window holds only hour-long latencies until it arrives, only microsecond ones after (a
    call in flight reads its threshold again), so the copies arrive in a fixed order."""
    for _ in range(c.hedge.window):
        c.latencies.observe(3600.0)

    def now_hedge() -> None:
        for _ in range(c.hedge.window):
            c.latencies.observe(1e-6)

    provider.on_arrival = now_hedge


def in_thread(fn):
    out: dict[str, object] = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, out


def settle(condition, what: str) -> None:
    """Wait for something another thread does (a synchronisation, not a timing check)."""
    deadline = time.monotonic() + 20
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.005)


def test_a_held_first_copy_is_beaten_by_the_hedge_and_both_are_billed():
    provider = HeldProvider()
    ledger = Ledger()
    c = client(provider, ledger=ledger, pricer=lambda model, usage: 0.01)
    warm(c)
    arm(c, provider)
    reply = c.complete(ask("slow"))
    assert reply.text == "hedge answer"  # the held copy is still out: the hedge's reply is the call's
    totals = ledger.totals()
    assert (totals.requests, totals.calls, totals.hedges, totals.hedges_won) == (10, 9, 1, 1)
    provider.release()  # the loser replies now and is billed too
    settle(lambda: ledger.totals().calls == 10, "the losing copy billed")
    totals = ledger.totals()
    assert totals.cost_usd == pytest.approx(0.10)
    assert totals.by_stage["target/rollout"].hedges_won == 1


def test_no_hedge_before_the_sample_threshold():
    window = LatencyWindow()
    for _ in range(7):
        window.observe(0.001)
    assert window.percentile(75, 8) is None
    window.observe(0.002)
    assert window.percentile(75, 8) == 0.001
    assert window.percentile(90, 8) == 0.002

    provider = HeldProvider()
    c = client(provider)
    warm(c, 7)
    t, out = in_thread(lambda: c.complete(ask("slow")))
    assert provider.arrived.wait(10)
    # with 7 latencies there is no threshold: the held call is never sent again however long it is out
    assert not provider.second_in.wait(0.3)
    provider.release()
    t.join(10)
    assert out["value"].text == "primary answer"
    assert (c.ledger.totals().requests, c.ledger.totals().hedges) == (8, 0)


def test_hedging_off_sends_each_call_once():
    provider = HeldProvider()
    c = client(provider, hedge=HedgePolicy())
    warm(c, 20)
    t, out = in_thread(lambda: c.complete(ask("slow")))
    assert provider.arrived.wait(10)
    assert not provider.second_in.wait(0.3)
    provider.release()
    t.join(10)
    assert out["value"].text == "primary answer"
    assert len(c.latencies) == 0  # nothing estimated when hedging is off


def test_a_failed_hedge_does_not_fail_the_call_while_the_first_copy_is_out():
    provider = HeldProvider(second=TransientError("hedge copy: 503", status=503))
    c = client(provider)
    warm(c)
    arm(c, provider)
    t, out = in_thread(lambda: c.complete(ask("slow")))
    assert provider.second_in.wait(10)
    settle(lambda: c.ledger.totals().requests == 10, "the hedge's failure booked")
    provider.release()
    t.join(10)
    assert out["value"].text == "primary answer"
    totals = c.ledger.totals()
    assert (totals.requests, totals.calls, totals.failed_calls, totals.hedges, totals.hedges_won) == (10, 9, 0, 1, 0)


def test_both_copies_failing_raises_the_first_copys_error_as_without_hedging():
    def failing(hedge: HedgePolicy) -> tuple[BaseException, Ledger]:
        provider = HeldProvider(first=BackendError("model not found (first copy)", status=404),
                                second=BackendError("model not found (hedge)", status=404))
        c = client(provider, hedge=hedge)
        warm(c)
        if hedge.enabled:
            arm(c, provider)
        t, out = in_thread(lambda: c.complete(ask("slow")))
        assert provider.arrived.wait(10)
        if hedge.enabled:
            assert provider.second_in.wait(10)
        provider.release()
        t.join(10)
        return out["error"], c.ledger

    plain_error, plain_ledger = failing(HedgePolicy())
    hedged_error, hedged_ledger = failing(P75)
    assert type(hedged_error) is type(plain_error) is BackendError
    assert str(hedged_error) == str(plain_error) == "model not found (first copy)"
    assert hedged_error.role == "target"
    assert plain_ledger.totals().failed_calls == hedged_ledger.totals().failed_calls == 1
    assert (hedged_ledger.totals().requests, hedged_ledger.totals().hedges) == (10, 1)


def test_retries_after_both_copies_fail_are_unchanged():
    provider = HeldProvider(first=TransientError("503 first copy", status=503), second=TransientError("503 hedge", status=503))
    waits: list[float] = []
    c = client(provider, sleep=waits.append)
    warm(c)
    arm(c, provider)
    t, out = in_thread(lambda: c.complete(ask("slow")))
    assert provider.second_in.wait(10)
    provider.release()
    t.join(10)
    # attempt 1: both copies failed (one retry wait); attempt 2's copies (3rd, 4th of "slow") answer
    assert out["value"].text == "later answer"
    assert len(waits) == 1
    assert c.ledger.totals().failed_calls == 0


@pytest.mark.parametrize("budget", ["max_calls", "max_cost_usd"])
def test_a_hedge_never_crosses_the_budget(budget):
    provider = HeldProvider()
    ledger = Ledger(max_calls=9) if budget == "max_calls" else Ledger(max_cost_usd=0.095)
    c = client(provider, ledger=ledger, pricer=lambda model, usage: 0.01)
    warm(c)  # 8 calls, $0.08
    t, out = in_thread(lambda: c.complete(ask("slow")))  # the 9th request ($0.09 at most): within the budget
    settle(lambda: c.hedges_declined == 1, "the hedge declined for the budget")
    provider.release()
    t.join(10)
    assert out["value"].text == "primary answer"
    totals = ledger.totals()
    assert (totals.requests, totals.hedges, provider.copies) == (9, 0, 1)
    assert totals.cost_usd <= 0.095


def test_the_cache_keeps_the_winners_reply_and_a_replay_gives_it_back(tmp_path):
    provider = HeldProvider()
    c = client(provider, cache=CallCache(tmp_path / "calls.sqlite3"))
    warm(c)
    arm(c, provider)
    assert c.complete(ask("slow")).text == "hedge answer"
    provider.release()
    settle(lambda: c.ledger.totals().calls == 10, "the losing copy billed")
    c.cache.close()
    # what a resumed run sees: the recorded answers, and nothing sent
    replay = ModelClient(ScriptedBackend(script=lambda r: pytest.fail("a replay sent a request")), role="target",
                         ledger=Ledger(), cache=CallCache(tmp_path / "calls.sqlite3"), cache_mode="replay", hedge=P75)
    assert replay.complete(ask("slow")).text == "hedge answer"
    assert [replay.complete(ask(f"warm {i}")).text for i in range(8)] == [f"answer to warm {i}" for i in range(8)]


def test_a_loser_replying_after_the_run_closed_its_journal_is_not_appended(tmp_path):
    provider = HeldProvider()
    ledger = Ledger()
    ledger.attach(tmp_path / "usage.jsonl")
    c = client(provider, ledger=ledger)
    warm(c)
    arm(c, provider)
    assert c.complete(ask("slow")).text == "hedge answer"
    ledger.close()
    lines = (tmp_path / "usage.jsonl").read_text().splitlines()
    provider.release()
    settle(lambda: ledger.totals().calls == 10, "the losing copy counted")
    assert (tmp_path / "usage.jsonl").read_text().splitlines() == lines
    resumed = Ledger()
    resumed.attach(tmp_path / "usage.jsonl")
    assert (resumed.totals().requests, resumed.totals().hedges, resumed.totals().hedges_won) == (10, 1, 1)


@pytest.mark.parametrize(("assignment", "fragment"), [
    ("model.hedge_after=p30", "'hedge_after': 'p30' is not off or a percentile"),
    ("model.target.hedge_after=fast", "config.model.target"),
])
def test_a_bad_hedge_setting_is_refused_naming_the_key(assignment, fragment):
    with pytest.raises(ConfigError) as exc:
        resolve_config(ConfigSources(assignments=(assignment,)))
    assert fragment in str(exc.value)


def test_the_role_setting_overrides_the_shared_one():
    from skillopt.engine.models import client_options

    cfg = resolve_config(ConfigSources(assignments=("model.hedge_after=p90", "model.optimizer.hedge_after=off")))
    backend = ScriptedBackend()
    assert client_options(cfg, "target", backend)["hedge"] == HedgePolicy(percentile=90.0)
    assert client_options(cfg, "optimizer", backend)["hedge"] == HedgePolicy()


class CopyDependentTarget:
    """The toy target as a sampling model stands for it: the first copy of a request gives
    the toy answer, a second copy (a hedge) answers "no idea", so which copy wins changes
    the run. The first copy of the 20th distinct request is held until its hedge is in
    (by then 8 replies are in: every call in flight is one of 4 workers' two copies)."""

    def __init__(self) -> None:
        from toy import toy_target

        self.toy_target = toy_target
        self.copies: dict[str, int] = {}
        self.hedged = threading.Event()
        self._held_key = ""
        self._lock = threading.Lock()

    def __call__(self, request: CompletionRequest) -> object:
        key = "\n".join(m.content for m in request.messages)
        with self._lock:
            copy = self.copies[key] = self.copies.get(key, 0) + 1
            if copy == 1 and len(self.copies) == 20:
                self._held_key = key
            held = copy == 1 and key == self._held_key
            if copy == 2 and key == self._held_key:
                self.hedged.set()
        if held:
            assert self.hedged.wait(20), "the held request was never hedged"
        return self.toy_target(request) if copy == 1 else "no idea"


def test_a_hedged_run_repeated_from_the_call_cache_is_identical(tmp_path):
    import json

    from engine_helpers import make_trainer
    from toy import toy_optimizer

    cache = tmp_path / "calls.sqlite3"

    def trainer(out, target_script):
        t = make_trainer(out, num_epochs=1, train={"max_steps": 2})
        for role, script in (("target", target_script), ("optimizer", toy_optimizer())):
            client = ModelClient(ScriptedBackend(script=script), role=role, ledger=t.ledger, cache=CallCache(cache),
                                 hedge=HedgePolicy(percentile=50.0) if role == "target" else None)
            setattr(t, role, client)
        t.runner.client = t.target
        return t

    target = CopyDependentTarget()
    first = trainer(tmp_path / "paid", target)
    first.train()
    assert target.hedged.is_set()
    totals = first.ledger.totals()
    assert totals.hedges >= 1 and totals.role("target").hedges == totals.hedges  # the held copy waited for one
    again = trainer(tmp_path / "again", lambda r: pytest.fail("a repeated run sent a request"))
    again.train()

    def outcome(run):
        history = json.loads((run / "history.json").read_text())
        keep = [{k: v for k, v in step.items() if not any(w in k for w in ("calls", "tokens", "cost", "usage", "time", "timing"))}
                for step in history]
        summary = json.loads((run / "summary.json").read_text())
        return keep, summary["val"], summary["test"], (run / "best_skill.md").read_text()

    assert outcome(tmp_path / "again") == outcome(tmp_path / "paid")
    assert again.ledger.totals().requests == 0


def test_the_ray_executor_refuses_hedging_naming_the_setting():
    from skillopt.executors.remote import WorkerSpec

    cfg = resolve_config(ConfigSources(assignments=("model.hedge_after=p90", "model.optimizer.hedge_after=off")))
    with pytest.raises(ConfigError, match=r"model.hedge_after=p90 for the target.*model.target.hedge_after=off or engine.executor=threads"):
        WorkerSpec.for_run(cfg)
    optimizer_only = resolve_config(ConfigSources(assignments=("model.optimizer.hedge_after=p90",)))
    with pytest.raises(ConfigError, match="for the optimizer"):
        WorkerSpec.for_run(optimizer_only, roles=("target", "optimizer"))


def test_a_call_sent_before_the_threshold_existed_is_hedged_once_it_does():
    """The run's first wave is sent before any reply: its stragglers are hedged once 8
    replies are in (the threshold is read again while a call is out)."""
    provider = HeldProvider()
    c = client(provider)
    warm(c, 7)
    t, out = in_thread(lambda: c.complete(ask("slow")))
    assert provider.arrived.wait(10)
    assert c.complete(ask("warm 7")).text == "answer to warm 7"  # the 8th reply: now there is a threshold
    t.join(10)
    assert out["value"].text == "hedge answer"
    provider.release()
    assert (c.ledger.totals().hedges, c.ledger.totals().hedges_won) == (1, 1)
