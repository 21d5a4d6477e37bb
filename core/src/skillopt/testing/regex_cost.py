"""Checks that a module's regular expressions cost time linear in their input.

Python's ``re`` backtracks: a pattern such as ``[A-Za-z0-9_-]*password`` retries every
split of a long run of word characters, at every start position, so one 6,000
character token costs tens of millions of steps. Two checks, for tests of code that runs
patterns over text an attacker (or a pasted log) controls:

* :func:`backtracking_repeats` reads a compiled pattern's structure and names every
  repeat that may backtrack over more than ``limit`` characters (a greedy or lazy
  repeat with a large or no upper bound, outside an atomic group). The remedy is a
  possessive repeat (``*+``, ``++``, ``{n,}+``) or an atomic group, plus a start guard
  (``(?<![class])``) so one run is scanned from its start only;
* :func:`scaling_ratio` times a function on an input and on ``factor`` times that input
  (best of several CPU-time measurements): about ``factor`` for linear cost, about
  ``factor ** 2`` for quadratic. It is a ratio, so a slow machine does not fail it.
"""

from __future__ import annotations

import gc
import re
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any


def compiled_patterns(module: ModuleType) -> list[re.Pattern[str]]:
    """Every compiled pattern a module holds at its top level (in tuples and dicts too)."""
    found: list[re.Pattern[str]] = []

    def collect(value: Any, depth: int = 0) -> None:
        if isinstance(value, re.Pattern):
            if value not in found:
                found.append(value)
        elif isinstance(value, (tuple, list)) and depth < 4:
            for item in value:
                collect(item, depth + 1)
        elif isinstance(value, dict) and depth < 4:
            for item in value.values():
                collect(item, depth + 1)

    for value in vars(module).values():
        collect(value)
    return found


def backtracking_repeats(pattern: re.Pattern[str], *, limit: int) -> list[str]:
    """The repeats of ``pattern`` that may backtrack over more than ``limit`` characters,
    described as ``"{min,max} of <item>"`` (empty when there is none)."""
    # the parser's own modules: typeshed stubs `re` as one module (only the deprecated sre_* aliases are typed)
    from re import _constants as c, _parser  # type: ignore[attr-defined]

    offenders: list[str] = []

    def walk(items: Any, atomic: bool) -> None:
        for op, arg in items:
            if op in (c.MAX_REPEAT, c.MIN_REPEAT):
                low, high, body = arg
                if not atomic and (high == c.MAXREPEAT or high > limit):
                    top = "" if high == c.MAXREPEAT else str(high)
                    offenders.append(f"{{{low},{top}}} of {list(body)!r:.60}")
                walk(body, atomic)
            elif op == c.POSSESSIVE_REPEAT:
                walk(arg[2], atomic)
            elif op == c.ATOMIC_GROUP:
                walk(arg, True)
            elif op == c.SUBPATTERN:
                walk(arg[3], atomic)
            elif op == c.BRANCH:
                for branch in arg[1]:
                    walk(branch, atomic)
            elif op in (c.ASSERT, c.ASSERT_NOT):
                walk(arg[1], atomic)
            elif op == c.GROUPREF_EXISTS:
                for branch in arg[1:]:
                    if branch is not None:
                        walk(branch, atomic)

    walk(_parser.parse(pattern.pattern, pattern.flags), False)
    return offenders


def _best_cpu_time(fn: Callable[[str], Any], text: str, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        fn(text)
        best = min(best, time.process_time() - start)
    return max(best, 1e-6)


def scaling_ratio(fn: Callable[[str], Any], make: Callable[[int], str], *, size: int, factor: int = 8,
                  repeats: int = 5) -> float:
    """CPU time of ``fn(make(size * factor))`` over that of ``fn(make(size))``, each the
    best of ``repeats`` runs with the garbage collector paused."""
    small, large = make(size), make(size * factor)
    enabled = gc.isenabled()
    gc.disable()
    try:
        fn(small)  # warm caches (compiled patterns, lazy imports)
        return _best_cpu_time(fn, large, max(2, repeats // 2)) / _best_cpu_time(fn, small, repeats)
    finally:
        if enabled:
            gc.enable()
