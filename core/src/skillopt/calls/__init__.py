"""The call pipeline every backend runs behind: cache, budget, limits, retries, schema.

Kept in the core so that any backend, including third-party ones and the scripted
test backend, gets identical semantics, and so that the engine can stop a run
cleanly when a budget is spent.
"""

from skillopt.calls.cache import CallCache, request_key
from skillopt.calls.hedge import HedgePolicy
from skillopt.calls.ledger import Ledger, LedgerTotals
from skillopt.calls.pipeline import ModelClient, RetryPolicy
from skillopt.calls.structured import extract_json, validate

__all__ = [
    "CallCache",
    "HedgePolicy",
    "Ledger",
    "LedgerTotals",
    "ModelClient",
    "RetryPolicy",
    "extract_json",
    "request_key",
    "validate",
]
