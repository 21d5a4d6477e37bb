"""Shared pieces of the sample generator: claims whose truth code decides, and items.

A family builds candidate :class:`Claim` objects whose ``holds`` flag is *computed*
(exhaustive residue checks, brute-force counts, exact rational grids), never typed in.
:func:`choose` then keeps exactly one true claim and enough false ones, and
:func:`assemble` turns the draft into a row in the normalised item schema.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from fractions import Fraction

import attrs

LABELS = "ABCDEFG"
MIN_CHOICES = 4


@attrs.frozen(kw_only=True)
class Claim:
    """One candidate choice; ``evidence`` says how code established ``holds``."""

    text: str
    holds: bool
    evidence: str


@attrs.frozen(kw_only=True)
class Draft:
    """A question before its choices are labelled."""

    question: str
    claims: tuple[Claim, ...]
    theorem_types: tuple[str, ...]
    theorem: str
    sketch: str


def fmt(value: int | Fraction) -> str:
    """Exact numbers as text: ``7``, ``-3``, ``7/2``."""
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def signed(value: int | Fraction) -> str:
    """``+ 3`` / ``- 3`` for writing ``x + c`` with the sign folded in."""
    value = Fraction(value)
    return f"+ {fmt(value)}" if value >= 0 else f"- {fmt(-value)}"


def value_claims(truth: int | Fraction, candidates: Iterable[int | Fraction], how: str) -> list[Claim]:
    """Claims "the answer is v" for a numeric question whose answer ``truth`` code computed."""
    claims = [Claim(text=fmt(truth), holds=True, evidence=f"{how} gives {fmt(truth)}")]
    seen = {Fraction(truth)}
    for value in candidates:
        value = Fraction(value)
        if value in seen or value < 0:
            continue
        seen.add(value)
        claims.append(Claim(text=fmt(value), holds=False, evidence=f"{how} gives {fmt(truth)}, not {fmt(value)}"))
    return claims


def choose(rng: random.Random, claims: list[Claim], n_choices: int) -> tuple[Claim, ...]:
    """The first true claim plus up to ``n_choices - 1`` false ones (distinct texts), rng-picked."""
    true = [c for c in claims if c.holds]
    if not true:
        raise AssertionError(f"no true claim among {[c.text for c in claims]}")
    texts = {true[0].text}
    false = []
    for claim in claims:
        if not claim.holds and claim.text not in texts:
            texts.add(claim.text)
            false.append(claim)
    n_choices = min(n_choices, len(false) + 1)
    if n_choices < MIN_CHOICES:
        raise AssertionError(f"only {len(false)} false claims: {[c.text for c in claims]}")
    return (true[0], *rng.sample(false, n_choices - 1))


def assemble(draft: Draft, item_id: str, rng: random.Random) -> dict:
    """A normalised item row; the correct choice lands at an rng-chosen position."""
    claims = list(draft.claims)
    if sum(c.holds for c in claims) != 1:
        raise AssertionError(f"{item_id}: exactly one choice must hold, got {[(c.text, c.holds) for c in claims]}")
    if len({c.text for c in claims}) != len(claims):
        raise AssertionError(f"{item_id}: duplicate choice texts")
    rng.shuffle(claims)
    choices = [{"label": LABELS[i], "text": c.text} for i, c in enumerate(claims)]
    correct = next(choices[i] for i, c in enumerate(claims) if c.holds)
    checks = " ".join(f'"{c.text}" {"holds" if c.holds else "fails"}: {c.evidence}.' for c in draft.claims)
    return {
        "id": item_id,
        "question": draft.question,
        "choices": choices,
        "correct_choice": dict(correct),
        "theorem_type": list(draft.theorem_types),
        "theorem": draft.theorem,
        "sketch": f"{draft.sketch} Checks: {checks}",
        "paper_link": "",
    }


def first_counterexample(values: Iterable, fails: Callable) -> object | None:
    """The first value for which ``fails(value)`` is true, or None."""
    for value in values:
        if fails(value):
            return value
    return None


def primes_upto(n: int) -> list[int]:
    sieve = bytearray([1]) * (n + 1)
    sieve[0:2] = b"\x00\x00"
    for i in range(2, int(n**0.5) + 1):
        if sieve[i]:
            sieve[i * i :: i] = bytearray(len(sieve[i * i :: i]))
    return [i for i, flag in enumerate(sieve) if flag]


def binom(n: int, k: int) -> int:
    """C(n, k), 0 outside 0 <= k <= n (so identities can be checked at the edges)."""
    from math import comb

    return comb(n, k) if 0 <= k <= n else 0


def fib(n: int) -> int:
    """F(n) with F(0) = 0, F(1) = F(2) = 1."""
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a
