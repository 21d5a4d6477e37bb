"""Turning a question's derivation (which figures, which operation, which rounding) into its answer.

A derivation is plain data stored with the item, so the optimizer's hidden reference can
show how the answer was obtained and a test can recompute it from the bulletin text with
its own parser. Arithmetic is exact (``Decimal``); rounding is half-up, as a person
rounding by hand would.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal

OPS = ("lookup", "diff", "pct_change", "ratio", "share", "sum", "mean", "argmax", "argmin")


def round_half_up(value: Decimal, decimals: int) -> Decimal:
    return value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def format_answer(value: Decimal, decimals: int, suffix: str = "") -> str:
    rounded = round_half_up(value, decimals)
    if rounded == 0:
        rounded = abs(rounded)  # never "-0.00"
    return f"{rounded:,.{decimals}f}{suffix}"


def evaluate(derivation: dict, figure: Callable[[dict], Decimal]) -> str:
    """The answer string of ``derivation``; ``figure(ref)`` returns one referenced printed figure."""
    op = derivation["op"]
    refs = derivation["refs"]
    if op in ("argmax", "argmin"):
        values = [(figure(ref), ref["column"]) for ref in refs]
        pick = max(values) if op == "argmax" else min(values)
        return pick[1]
    values = [figure(ref) for ref in refs]
    if op == "lookup":
        result = values[0]
    elif op == "diff":
        result = values[1] - values[0]
    elif op == "pct_change":
        result = (values[1] - values[0]) / values[0] * 100
    elif op == "ratio":
        result = values[0] / values[1]
    elif op == "share":
        result = values[0] / values[1] * 100
    elif op == "sum":
        result = sum(values, Decimal(0))
    elif op == "mean":
        result = sum(values, Decimal(0)) / len(values)
    else:
        raise ValueError(f"unknown derivation op {op!r}; expected one of {', '.join(OPS)}")
    result *= Decimal(derivation.get("factor", "1"))
    return format_answer(result, int(derivation.get("decimals", 0)), derivation.get("suffix", ""))
