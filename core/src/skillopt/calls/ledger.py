"""Usage accounting and hard budgets, shared by every thread of a run.

Every request is *reserved* before it is sent: the budget check and the count happen
under one lock, so ``max_calls`` bounds the requests a provider receives, retries and
schema re-asks included. With a journal attached (the run directory's
``usage.jsonl``) each reservation and outcome is appended as it happens, so a run
killed at any instant resumes with exact totals: a request that was in flight when the
process died stays counted, because it may have been paid for.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from pathlib import Path
from typing import IO, Any

import attrs

from skillopt.errors import BudgetExceeded
from skillopt.legacy import MappingReads
from skillopt.records import Usage


@attrs.frozen(kw_only=True)
class StageTotals(MappingReads):
    """Counts of one ``role/stage`` (or of a whole run). (The run summary's ``usage`` was a
    dict in the first release: mapping reads still work, deprecated.)"""

    #: requests sent to the provider (every attempt: retries and re-asks included)
    requests: int = 0
    #: requests that returned a reply
    calls: int = 0
    #: calls answered from the call cache (no request sent, nothing paid)
    cached_calls: int = 0
    #: tokens and USD the cached calls cost when they were first paid for: what the cache saved
    cached_tokens: int = 0
    cached_cost_usd: float = 0.0
    #: logical calls that failed for good (retries exhausted, schema broken after re-asks)
    failed_calls: int = 0
    #: replies cut at their token cap
    truncated: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    #: second copies of straggling requests sent (``model.hedge_after``; counted in ``requests`` too)
    hedges: int = 0
    #: calls whose second copy replied first (its reply is the call's)
    hedges_won: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: StageTotals) -> StageTotals:
        return StageTotals(**{
            f.name: getattr(self, f.name) + getattr(other, f.name) for f in attrs.fields(StageTotals)
        })


@attrs.frozen(kw_only=True)
class LedgerTotals(StageTotals):
    """A snapshot: run totals plus a ``role/stage`` breakdown."""

    by_stage: dict[str, StageTotals] = attrs.field(factory=dict)

    @classmethod
    def of(cls, stages: dict[str, StageTotals]) -> LedgerTotals:
        total = sum(stages.values(), StageTotals())
        return cls(**attrs.asdict(total, recurse=False), by_stage=dict(sorted(stages.items())))

    def role(self, role: str) -> StageTotals:
        return sum((v for k, v in self.by_stage.items() if k.startswith(f"{role}/")), StageTotals())


def _add(counter: dict[str, float], **values: float) -> None:
    for key, value in values.items():
        counter[key] = counter.get(key, 0) + value


class UsageJournal:
    """Append-only ``usage.jsonl``: one short JSON array per reservation or outcome.

    Lines: ``["b", key, scope]`` a request is about to be sent (``["b", key, scope, 1]``: a
    hedge, the second copy of a straggling request); ``["w", key, scope]`` a hedge replied
    first; ``["ok", key, scope,
    prompt, completion, cost|null, truncated]`` it answered; ``["x", key, scope]`` it
    failed; ``["f", key, scope]`` a logical call failed for good; ``["h", key, scope,
    tokens, cost|null]`` a cache hit and the tokens and cost it saved (older journals: the
    first three fields only). A torn last line (a kill mid-write) is skipped.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fh: IO[str] | None = None

    def lines(self) -> list[list[Any]]:
        from skillopt.fsio import read_json_lines

        out, damaged_lines = read_json_lines(self.path, lambda row: isinstance(row, list) and len(row) >= 3)
        damaged = len(damaged_lines)
        if damaged:
            from skillopt.report import warn

            warn(f"{self.path}: {damaged} damaged line(s) skipped; the run's call and cost counters may be low by as much")
        return out

    def write(self, row: list[Any]) -> None:
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - held for the run
        self._fh.write(json.dumps(row, separators=(",", ":")) + "\n")
        self._fh.flush()  # in the kernel before the request leaves: a SIGKILL cannot lose it

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


#: longest a request waits for the calls in flight to report their cost (a slot left open by
#: a call that died without a word must not hold the run for ever)
MAX_COST_WAIT_S = 60.0


class Ledger:
    """Counts requests, replies, tokens and USD per ``role/stage`` and per scope (a
    training step); raises :class:`BudgetExceeded` instead of sending a request once a
    limit is reached. Cache hits are counted but cost nothing.

    A call's cost is known only when its reply is: with ``max_cost_usd`` set, a request
    that, with the calls still in flight (each counted at the dearest call seen so far),
    could cross the budget waits for them to report first. Without that, every worker
    busy when the budget ran out overshot it by one call each (4 workers at $0.01 a call
    and ``max_cost_usd=0.045``: 7 calls paid instead of 5)."""

    def __init__(self, *, max_cost_usd: float | None = None, max_calls: int | None = None, max_tokens: int | None = None) -> None:
        self.max_cost_usd = max_cost_usd
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self._lock = threading.Lock()
        self._reported = threading.Condition(self._lock)
        #: requests sent whose reply (and cost) has not come back yet, in this process
        self._open = 0
        #: the dearest call seen: what a call in flight may still cost
        self._dearest = 0.0
        self._stages: dict[str, dict[str, float]] = defaultdict(dict)
        self._scopes: dict[str, dict[str, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
        self._journal: UsageJournal | None = None
        #: label of the work being paid for now (the trainer sets ``step 3``, ``final`` ...)
        self.scope = ""

    # ---------------------------------------------------------------- persistence

    def attach(self, path: Path) -> None:
        """Continue from a run directory's journal (budgets span sessions and kills)."""
        journal = UsageJournal(path)
        with self._lock:
            for row in journal.lines():
                self._apply(row)
            self._journal = journal

    def close(self) -> None:
        """Close the journal; what is booked afterwards (a hedge's losing copy replying
        after the run ended) is counted in memory only, never appended to a closed run."""
        with self._lock:
            if self._journal is not None:
                self._journal.close()
                self._journal = None

    def _apply(self, row: list[Any]) -> None:
        kind, key, scope = row[0], str(row[1]), str(row[2])
        values: dict[str, float]
        if kind == "b":
            values = {"requests": 1, "hedges": 1} if len(row) > 3 and row[3] else {"requests": 1}
        elif kind == "w":
            values = {"hedges_won": 1}
        elif kind == "ok":
            prompt, completion, cost, truncated = (row[3:7] + [0, 0, None, 0])[:4]
            values = {"calls": 1, "prompt_tokens": int(prompt), "completion_tokens": int(completion), "truncated": int(truncated)}
            if cost is None:
                values["unpriced_calls"] = 1
            else:
                values["cost_usd"] = float(cost)
        elif kind == "f":
            values = {"failed_calls": 1}
        elif kind == "h":
            tokens, saved = (row[3:5] + [0, None])[:2]
            values = {"cached_calls": 1, "cached_tokens": int(tokens or 0), "cached_cost_usd": float(saved or 0.0)}
        else:  # "x": a failed attempt is already counted as a request
            return
        _add(self._stages[key], **values)
        _add(self._scopes[scope][key], **values)

    def _log(self, row: list[Any]) -> None:
        self._apply(row)
        if self._journal is not None:
            self._journal.write(row)

    # ---------------------------------------------------------------- budget

    def check(self) -> None:
        """Raise if any hard limit is already reached."""
        reason = self.exhausted()
        if reason:
            raise BudgetExceeded(reason)

    def exhausted(self) -> str:
        """Why the budget is spent, or '' while there is budget left."""
        with self._lock:
            return self._exhausted()

    def _exhausted(self) -> str:
        requests = cost = tokens = 0.0
        for values in self._stages.values():
            requests += values.get("requests", 0)
            cost += values.get("cost_usd", 0.0)
            tokens += values.get("prompt_tokens", 0) + values.get("completion_tokens", 0)
        if self.max_calls is not None and requests >= self.max_calls:
            return f"call budget spent: {int(requests)} of max_calls={self.max_calls}"
        if self.max_cost_usd is not None and cost >= self.max_cost_usd:
            return f"cost budget spent: ${cost:.4f} of max_cost_usd=${self.max_cost_usd:.4f}"
        if self.max_tokens is not None and tokens >= self.max_tokens:
            return f"token budget spent: {int(tokens)} of max_tokens={self.max_tokens}"
        return ""

    # ---------------------------------------------------------------- events

    # ``scope``: the scope a call is booked under when the caller names it (work that runs
    # beside the trainer's current step: a baseline or an attribution), else :attr:`scope`

    def begin(self, *, role: str, stage: str, scope: str | None = None) -> None:
        """Reserve one request (raises :class:`BudgetExceeded` when none is left)."""
        import time

        with self._lock:
            deadline = time.monotonic() + MAX_COST_WAIT_S
            while True:
                reason = self._exhausted()
                if reason:
                    raise BudgetExceeded(reason)
                left = deadline - time.monotonic()
                if not self._may_cross() or left <= 0:
                    break
                self._reported.wait(min(left, 1.0))
            self._open += 1
            self._log(["b", f"{role}/{stage}", self.scope if scope is None else scope])

    def try_begin(self, *, role: str, stage: str, scope: str | None = None, hedge: bool = False) -> bool:
        """Reserve one request only if the budget has room for it now, with every call in
        flight and this one at the dearest price seen (never waits, never raises): a
        hedge must not cross a budget the call it copies is already inside."""
        with self._lock:
            if self._exhausted() or self._may_cross(extra=1):
                return False
            self._open += 1
            row: list[Any] = ["b", f"{role}/{stage}", self.scope if scope is None else scope]
            self._log([*row, 1] if hedge else row)
            return True

    def hedge_won(self, *, role: str, stage: str, scope: str | None = None) -> None:
        """A hedge replied before the request it copies."""
        with self._lock:
            self._log(["w", f"{role}/{stage}", self.scope if scope is None else scope])

    def _may_cross(self, extra: int = 0) -> bool:
        """Whether the calls in flight (and ``extra`` more), at the dearest price seen, could
        spend the cost budget."""
        if self.max_cost_usd is None or not (self._open + extra):
            return False
        spent = sum(values.get("cost_usd", 0.0) for values in self._stages.values())
        return spent + (self._open + extra) * self._dearest >= self.max_cost_usd

    def _settle(self, cost: float | None = None) -> None:
        """One request in flight came back (caller holds the lock)."""
        self._open = max(0, self._open - 1)
        self._dearest = max(self._dearest, cost or 0.0)
        self._reported.notify_all()

    def abandon(self, *, role: str, stage: str, scope: str | None = None) -> None:
        """A request begun is gone without a reply or a backend error (the run is cancelled,
        or the process is stopping): it is no longer in flight."""
        with self._lock:
            self._settle()

    def record(self, *, role: str, stage: str, usage: Usage, cost_usd: float | None, cached: bool, truncated: bool = False,
               scope: str | None = None) -> None:
        """A reply: paid (after :meth:`begin`) or served from the cache (``usage`` and
        ``cost_usd`` are then what the cached reply cost when it was paid for: saved)."""
        key, scope = f"{role}/{stage}", self.scope if scope is None else scope
        with self._lock:
            if cached:
                self._log(["h", key, scope, usage.prompt_tokens + usage.completion_tokens, cost_usd])
            else:
                self._log(["ok", key, scope, usage.prompt_tokens, usage.completion_tokens, cost_usd, int(truncated)])
                self._settle(cost_usd)

    def record_attempt_failure(self, *, role: str, stage: str, scope: str | None = None) -> None:
        with self._lock:
            self._log(["x", f"{role}/{stage}", self.scope if scope is None else scope])
            self._settle()

    def record_failure(self, *, role: str, stage: str, scope: str | None = None) -> None:
        """A logical call failed for good (after retries or schema re-asks)."""
        with self._lock:
            self._log(["f", f"{role}/{stage}", self.scope if scope is None else scope])

    # ---------------------------------------------------------------- reading

    @staticmethod
    def _totals(stages: dict[str, dict[str, float]]) -> LedgerTotals:
        typed: dict[str, StageTotals] = {}
        money = ("cost_usd", "cached_cost_usd")
        for key, values in stages.items():
            fields: dict[str, Any] = {k: int(v) for k, v in values.items() if k not in money}  # counts; money below
            fields.update({k: round(float(values.get(k, 0.0)), 8) for k in money})
            typed[key] = StageTotals(**fields)
        return LedgerTotals.of(typed)

    def headline(self) -> tuple[int, int, int, float]:
        """(calls, cached calls, tokens, cost) summed without building the typed totals:
        the progress line asks after every item."""
        calls = cached = tokens = 0
        cost = 0.0
        with self._lock:
            for values in self._stages.values():
                calls += int(values.get("calls", 0))
                cached += int(values.get("cached_calls", 0))
                tokens += int(values.get("prompt_tokens", 0) + values.get("completion_tokens", 0))
                cost += values.get("cost_usd", 0.0)
        return calls, cached, tokens, cost

    def totals(self) -> LedgerTotals:
        with self._lock:
            return self._totals({k: dict(v) for k, v in self._stages.items()})

    def scope_totals(self, scope: str) -> LedgerTotals:
        """What one scope (a step) spent, over every session of the run."""
        with self._lock:
            return self._totals({k: dict(v) for k, v in self._scopes.get(scope, {}).items()})
