"""``ModelClient``: a backend wrapped with cache, budget, concurrency, retries and schema.

Order per call: budget check → cache → (limit in flight → backend → classify → retry)
→ schema validation with bounded re-asks → ledger → cache store. Auth and bad-request
errors fail at once; rate limits honour ``Retry-After`` up to ``model.max_retry_wait_s``
(a provider asking for an hour does not stall a run for an hour); other transient errors
back off exponentially with jitter. A wait of a second or more is said on the console,
once for the waits that overlap it. Backends must disable their SDK's own retries.
With ``model.hedge_after`` set, an attempt still out after that percentile of the role's
observed latency is sent once more and the first reply wins (:mod:`skillopt.calls.hedge`).
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import attrs

from skillopt.backends import Backend
from skillopt.calls.cache import CallCache, request_key
from skillopt.calls.hedge import HedgePolicy, LatencyWindow
from skillopt.calls.ledger import Ledger
from skillopt.calls.structured import extract_json, validate
from skillopt.errors import BackendError, CacheMiss, Cancelled, RateLimitError, SchemaError
from skillopt.records import Completion, CompletionRequest, Message, Usage
from skillopt.redact import redact_text

_LIMITERS: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_LIMITERS_LOCK = threading.Lock()


def shared_limiter(key: str, limit: int) -> threading.BoundedSemaphore:
    """One semaphore per backend endpoint (not per model) and limit, per process: every
    thread and both roles of a run share it."""
    with _LIMITERS_LOCK:
        sem = _LIMITERS.get((key, limit))
        if sem is None:
            sem = _LIMITERS[(key, limit)] = threading.BoundedSemaphore(limit)
        return sem


@attrs.frozen(kw_only=True)
class RetryPolicy:
    max_retries: int = 5
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    jitter: float = 0.5
    #: the longest a provider's ``Retry-After`` makes one retry wait (``model.max_retry_wait_s``)
    max_retry_after_s: float = 60.0

    def delay(self, attempt: int, error: BackendError, rng: random.Random) -> float:
        if isinstance(error, RateLimitError) and error.retry_after is not None:
            return min(max(0.0, error.retry_after), self.max_retry_after_s) + rng.uniform(0.0, 0.1)
        exp = min(self.max_delay_s, self.base_delay_s * (2**attempt))
        return float(exp * rng.uniform(1.0 - self.jitter, 1.0))

    def longest_wait(self, attempt: int) -> float:
        """The most retry ``attempt`` (0-based) can wait, whatever the provider asks."""
        return float(max(min(self.max_delay_s, self.base_delay_s * (2**attempt)), self.max_retry_after_s + 0.1))


#: waits shorter than this are not worth a line on the console
WAIT_NOTICE_S = 1.0


def wait_message(role: str, backend: str, error: BackendError, delay: float, attempt: int, policy: RetryPolicy) -> str:
    """The console line of a run waiting on its provider before a retry."""
    reason = "rate limited (HTTP 429)" if isinstance(error, RateLimitError) else (
        f"HTTP {error.status}" if error.status else type(error).__name__)
    asked = getattr(error, "retry_after", None)
    why = ""
    if asked is not None and asked > policy.max_retry_after_s:
        why = f"; it asked for {asked:g}s (Retry-After), capped by model.max_retry_wait_s={policy.max_retry_after_s:g}"
    elif asked is not None:
        why = f"; Retry-After {asked:g}s"
    return (f"waiting {delay:.0f}s on the {role} provider ({backend}: {reason}{why}) before retry "
            f"{attempt + 1} of {policy.max_retries}")


Pricer = Callable[[str, Usage], "float | None"]


class ModelClient:
    """What the engine and envs call. Thread-safe; one per role per run."""

    def __init__(
        self,
        backend: Backend,
        *,
        role: str,
        ledger: Ledger | None = None,
        cache: CallCache | None = None,
        cache_mode: str = "read-write",
        max_in_flight: int = 16,
        retry: RetryPolicy = RetryPolicy(),
        schema_retries: int = 2,
        pricer: Pricer | None = None,
        cancel: threading.Event | None = None,
        sleep: Callable[[float], None] | None = None,
        seed: int = 0,
        hedge: HedgePolicy | None = None,
        latencies: LatencyWindow | None = None,
    ) -> None:
        self.backend = backend
        self.role = role
        self.ledger = ledger or Ledger()
        self.cache = cache if cache_mode != "off" else None
        self.cache_mode = cache_mode
        self.identity = backend.identity()
        #: the calls in flight to this endpoint (a worker's client: its own local limit)
        self.limiter: contextlib.AbstractContextManager[Any] = shared_limiter(self.endpoint_key, max_in_flight)
        self.retry = retry
        self.schema_retries = schema_retries
        self.pricer = pricer
        self.cancel = cancel or threading.Event()
        self._sleep = sleep
        self._rng = random.Random(seed)
        self._rng_lock = threading.Lock()
        #: requests of this client between their in-flight slot and their reply
        self.in_flight = 0
        self._flight_lock = threading.Lock()
        self._flight_watchers: list[Callable[[int], None]] = []
        #: when the last wait said on the console ends (waits that overlap it are not said again)
        self._said_until = 0.0
        #: when a straggling call is sent again (``model.hedge_after``), and the latencies seen
        self.hedge = hedge or HedgePolicy()
        self.latencies = latencies if latencies is not None else LatencyWindow(self.hedge.window)
        #: hedges not sent because the budget had no room for them
        self.hedges_declined = 0

    @property
    def model(self) -> str:
        return self.backend.settings.model

    @property
    def endpoint_key(self) -> str:
        """What the in-flight limit is shared by: the backend and its endpoint (not the model)."""
        return repr((self.identity.get("backend"), self.identity.get("base_url") or self.identity.get("endpoint") or ""))

    def close(self) -> None:
        """Stop this client and release its backend (calls in flight are abandoned)."""
        self.cancel.set()
        self.backend.close()
        if self.cache is not None:
            self.cache.close()

    # ---------------------------------------------------------------- public

    def for_stage(self, label: str) -> StageClient:
        """This client with its calls booked under pipeline stage ``label`` in the ledger."""
        return StageClient(self, label)

    def watch_flight(self, callback: Callable[[int], None]) -> None:
        """Call ``callback(n)`` whenever the number of this client's requests in flight
        changes (the engine lends idle rollout workers to work run ahead of its turn
        while the optimizer's calls are out)."""
        self._flight_watchers.append(callback)

    def _flight(self, change: int) -> None:
        with self._flight_lock:
            self.in_flight += change
            n = self.in_flight
        for callback in self._flight_watchers:
            callback(n)

    def in_lane(self, scope: str, priority: Any = 0) -> StageClient:
        """This client with its calls booked under ledger scope ``scope`` (whatever the
        run's current scope is) and its rollouts scheduled at ``priority`` (see
        :class:`StageClient`)."""
        return StageClient(self, "", scope=scope, priority=priority)

    def complete(self, request: CompletionRequest, *, label: str = "", scope: str | None = None) -> Completion:
        """Answer ``request``; the ledger books it under ``role/label`` (default: the
        request's own stage) in ``scope`` (default: the ledger's current scope)."""
        request = self._effective(request)
        label = label or request.stage
        key = request_key(self.identity, request) if self.cache is not None else ""
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.ledger.record(role=self.role, stage=label, usage=hit.usage, cost_usd=hit.cost_usd, cached=True, scope=scope)  # saved
                return attrs.evolve(hit, cached=True, cost_usd=0.0)
            if self.cache_mode == "replay":
                raise CacheMiss(
                    f"replay mode: no recorded answer for this {request.stage} call to {self.backend.name}"
                    f" ({self.identity.get('model') or 'default model'}); run once with model.cache=read-write",
                    backend=self.backend.name,
                )
        completion = self._complete_valid(request, label, scope)
        if self.cache is not None:
            self.cache.put(key, self.identity, request, completion)
        return completion

    # ---------------------------------------------------------------- internals

    def _effective(self, request: CompletionRequest) -> CompletionRequest:
        s = self.backend.settings
        changes: dict[str, Any] = {"role": self.role}
        if s.temperature is not None:
            changes["temperature"] = s.temperature
        if s.max_tokens is not None:
            changes["max_tokens"] = s.max_tokens
        if s.reasoning_effort and request.reasoning_effort is None:
            changes["reasoning_effort"] = s.reasoning_effort
        if request.timeout_s is None:
            changes["timeout_s"] = s.timeout_s
        return attrs.evolve(request, **changes)

    def _complete_valid(self, request: CompletionRequest, label: str, scope: str | None = None) -> Completion:
        schema = request.json_schema
        asked = request
        problems: list[str] = []
        for _ in range(self.schema_retries + 1):
            completion = self._call_with_retries(asked, label, scope)
            if schema is None:
                return completion
            try:
                parsed = completion.parsed if completion.parsed is not None else extract_json(completion.text)
                problems = validate(parsed, schema)
            except ValueError as exc:
                parsed, problems = None, [str(exc)]
            if completion.finish_reason == "length" and problems:
                problems.append("the reply was cut off at max_tokens")
            if not problems:
                return attrs.evolve(completion, parsed=parsed)
            asked = attrs.evolve(
                asked,
                messages=asked.messages
                + (
                    Message(role="assistant", content=completion.text[:4000]),
                    Message(
                        role="user",
                        content="Your reply does not match the required JSON schema: "
                        + "; ".join(problems[:5])
                        + ". Reply again with only one JSON object that matches the schema.",
                    ),
                ),
            )
        self.ledger.record_failure(role=self.role, stage=label, scope=scope)
        raise SchemaError(
            f"{self.backend.name} reply broke the JSON schema after {self.schema_retries} re-asks: "
            + redact_text("; ".join(problems[:3])),
            backend=self.backend.name,
        )

    def _call_with_retries(self, request: CompletionRequest, label: str, scope: str | None = None) -> Completion:
        attempt = 0
        while True:
            if self.cancel.is_set():
                raise Cancelled("run cancelled")
            try:
                return self._attempt(request, label, scope)
            except BackendError as exc:
                if not exc.retryable or attempt >= self.retry.max_retries:
                    self.ledger.record_failure(role=self.role, stage=label, scope=scope)
                    exc.role = self.role
                    raise
                with self._rng_lock:
                    delay = self.retry.delay(attempt, exc, self._rng)
                    now = time.monotonic()
                    say_it = delay >= WAIT_NOTICE_S and now >= self._said_until
                    if say_it:
                        self._said_until = now + delay
                if say_it:
                    from skillopt.report import say

                    say(wait_message(self.role, self.backend.name, exc, delay, attempt, self.retry))
                attempt += 1
                self._wait(delay)

    def _attempt(self, request: CompletionRequest, label: str, scope: str | None) -> Completion:
        """One attempt: the request sent (and, hedging, sent again when it straggles),
        its reply billed. Raises the backend's error."""
        if self.hedge.enabled:
            from skillopt.calls.hedge import race

            return race(self, request, label, scope)
        with self._reserved(label, scope):
            started = time.monotonic()
            try:
                completion = self.backend.complete(request)
            except BackendError:
                self.ledger.record_attempt_failure(role=self.role, stage=label, scope=scope)
                raise
            except BaseException:
                self.ledger.abandon(role=self.role, stage=label, scope=scope)
                raise
            latency = time.monotonic() - started
        return self._billed(completion, latency, label, scope)

    def hedge_threshold(self) -> float | None:
        """Seconds after which a call of this role is sent again (None: not now, or never)."""
        if self.hedge.percentile is None:
            return None
        return self.latencies.percentile(self.hedge.percentile, self.hedge.min_samples)

    def _billed(self, completion: Completion, latency: float, label: str, scope: str | None) -> Completion:
        """A reply priced, scrubbed and booked in the ledger."""
        cost = completion.cost_usd
        if self.pricer is not None:
            priced = self.pricer(completion.model or self.model, completion.usage)
            if priced is not None:
                cost = priced
        completion = attrs.evolve(scrub_reply(completion), cost_usd=cost, latency_s=completion.latency_s or latency)
        self.ledger.record(role=self.role, stage=label, usage=completion.usage, cost_usd=cost, cached=False,
                           truncated=completion.finish_reason == "length", scope=scope)
        return completion

    @contextlib.contextmanager
    def _reserved(self, label: str, scope: str | None = None) -> Iterator[None]:
        """One request's in-flight slot, and the request reserved in the ledger (journaled
        before it is sent), held while it is sent."""
        release = self._reserve(label, scope)
        try:
            yield
        finally:
            release()

    def _reserve(self, label: str, scope: str | None = None) -> Callable[[], None]:
        """Take an in-flight slot (waiting for one) and reserve the request in the ledger;
        returns what gives the slot back once the request is answered."""
        self.limiter.__enter__()
        try:
            self.ledger.begin(role=self.role, stage=label, scope=scope)
        except BaseException:
            self.limiter.__exit__(None, None, None)
            raise
        self._flight(1)

        def release() -> None:
            self._flight(-1)
            self.limiter.__exit__(None, None, None)

        return release

    def _try_reserve(self, label: str, scope: str | None = None) -> tuple[Callable[[], None] | None, bool]:
        """A hedge's slot and reservation, without waiting for either: (release, False)
        when taken, (None, False) when every slot is busy, (None, True) when the budget
        has no room for one more request (:meth:`Ledger.try_begin`)."""
        acquire = getattr(self.limiter, "acquire", None)
        if acquire is not None and not acquire(blocking=False):
            return None, False
        if not self.ledger.try_begin(role=self.role, stage=label, scope=scope, hedge=True):
            if acquire is not None:
                self.limiter.__exit__(None, None, None)
            return None, True
        self._flight(1)

        def release() -> None:
            self._flight(-1)
            if acquire is not None:
                self.limiter.__exit__(None, None, None)

        return release, False

    def _wait(self, seconds: float) -> None:
        if self._sleep is not None:
            self._sleep(seconds)
            return
        if self.cancel.wait(seconds):
            raise Cancelled("run cancelled")


def scrub_reply(completion: Completion) -> Completion:
    """The reply with every known or key-shaped secret masked, before it is cached, stored
    or shown to the optimizer: a provider that echoes a key ("Incorrect API key provided:
    sk-…") must not plant it in the run."""
    text = redact_text(completion.text)
    trace = tuple(attrs.evolve(t, content=redact_text(t.content)) for t in completion.trace)
    if text == completion.text and trace == completion.trace:
        return completion
    from skillopt.redact import redact_data

    parsed = redact_data(completion.parsed) if completion.parsed is not None else None
    return attrs.evolve(completion, text=text, parsed=parsed, trace=trace)


class StageClient:
    """A :class:`ModelClient` whose calls are booked under one pipeline stage.

    The engine hands envs and edit policies these views, so the ledger reads
    ``target/gate`` or ``optimizer/select`` whatever the env or policy names its
    requests. Everything else is the underlying client's.

    A view may also carry a *lane*: the ledger ``scope`` its calls are booked under
    (work the engine runs beside the current step, such as the baseline during step 1,
    is booked where it belongs, not under the step that happens to be running) and the
    ``priority`` its rollouts get worker slots at (0: the critical path; higher numbers
    wait while lower ones have items waiting; an int or the engine's shared
    :class:`~skillopt.engine.slots.Priority`).
    """

    def __init__(self, client: ModelClient, label: str, *, scope: str | None = None, priority: Any = 0):
        self.client = client
        self.label = label
        self.scope = scope
        self.priority = priority

    def complete(self, request: CompletionRequest) -> Completion:
        return self.client.complete(request, label=self.label, scope=self.scope)

    def for_stage(self, label: str) -> StageClient:
        return StageClient(self.client, label, scope=self.scope, priority=self.priority)

    def in_lane(self, scope: str, priority: Any = 0) -> StageClient:
        return StageClient(self.client, self.label, scope=scope, priority=priority)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)
