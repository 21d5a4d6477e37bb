"""Usage accounting and hard budgets, shared by every thread of a run."""

from __future__ import annotations

import threading
from collections import defaultdict

import attrs

from skillopt.errors import BudgetExceeded
from skillopt.records import Usage


@attrs.define
class StageTotals:
    calls: int = 0
    cached_calls: int = 0
    failed_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


@attrs.frozen(kw_only=True)
class LedgerTotals:
    """A snapshot: run totals plus a ``role/stage`` breakdown."""

    calls: int = 0
    cached_calls: int = 0
    failed_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    by_stage: dict[str, dict[str, float]] = attrs.field(factory=dict)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class Ledger:
    """Counts paid calls, tokens and USD; raises :class:`BudgetExceeded` before a call
    that would start after a limit is reached. Cache hits are counted but cost nothing."""

    def __init__(self, *, max_cost_usd: float | None = None, max_calls: int | None = None, max_tokens: int | None = None):
        self.max_cost_usd = max_cost_usd
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self._lock = threading.Lock()
        self._stages: dict[str, StageTotals] = defaultdict(StageTotals)
        self._unpriced = 0

    def check(self) -> None:
        """Raise if any hard limit is already reached."""
        reason = self.exhausted()
        if reason:
            raise BudgetExceeded(reason)

    def exhausted(self) -> str:
        """Why the budget is spent, or '' while there is budget left."""
        t = self.totals()
        if self.max_calls is not None and t.calls >= self.max_calls:
            return f"call budget spent: {t.calls} of max_calls={self.max_calls}"
        if self.max_cost_usd is not None and t.cost_usd >= self.max_cost_usd:
            return f"cost budget spent: ${t.cost_usd:.4f} of max_cost_usd=${self.max_cost_usd:.4f}"
        if self.max_tokens is not None and t.tokens >= self.max_tokens:
            return f"token budget spent: {t.tokens} of max_tokens={self.max_tokens}"
        return ""

    def record(self, *, role: str, stage: str, usage: Usage, cost_usd: float | None, cached: bool) -> None:
        with self._lock:
            s = self._stages[f"{role}/{stage}"]
            if cached:
                s.cached_calls += 1
                return
            s.calls += 1
            s.prompt_tokens += usage.prompt_tokens
            s.completion_tokens += usage.completion_tokens
            if cost_usd is None:
                self._unpriced += 1
            else:
                s.cost_usd += cost_usd

    def record_failure(self, *, role: str, stage: str) -> None:
        with self._lock:
            self._stages[f"{role}/{stage}"].failed_calls += 1

    def totals(self) -> LedgerTotals:
        with self._lock:
            stages = {k: attrs.asdict(v) for k, v in sorted(self._stages.items())}
            unpriced = self._unpriced
        return LedgerTotals(
            calls=sum(s["calls"] for s in stages.values()),
            cached_calls=sum(s["cached_calls"] for s in stages.values()),
            failed_calls=sum(s["failed_calls"] for s in stages.values()),
            prompt_tokens=sum(s["prompt_tokens"] for s in stages.values()),
            completion_tokens=sum(s["completion_tokens"] for s in stages.values()),
            cost_usd=round(sum(s["cost_usd"] for s in stages.values()), 8),
            unpriced_calls=unpriced,
            by_stage=stages,
        )

    def restore(self, totals: LedgerTotals) -> None:
        """Continue counting from a resumed run's totals, so budgets span sessions."""
        with self._lock:
            self._stages.clear()
            for key, values in totals.by_stage.items():
                self._stages[key] = StageTotals(**{k: values.get(k, 0) for k in attrs.fields_dict(StageTotals)})
            self._unpriced = totals.unpriced_calls
