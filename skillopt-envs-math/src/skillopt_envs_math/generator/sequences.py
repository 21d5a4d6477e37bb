"""Sequences-and-series families: closed forms, concrete sums, recurrences, Fibonacci.

Closed forms are compared with the sums and recurrences they claim to describe, term by
term in exact arithmetic, for n = 1..30; concrete values are summed directly.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from fractions import Fraction as Q

from skillopt_envs_math.generator.core import Claim, Draft, choose, fib, fmt, signed, value_claims

N_CHECK = range(1, 31)


def _formula_claims(seq: Callable[[int], Q], forms: list[tuple[str, Callable[[int], Q]]], prefix: str = "") -> list[Claim]:
    claims = []
    for text, form in forms:
        bad = next((n for n in N_CHECK if Q(seq(n)) != Q(form(n))), None)
        if bad is None:
            claims.append(Claim(text=prefix + text, holds=True, evidence="agrees for n = 1..30"))
        else:
            claims.append(
                Claim(
                    text=prefix + text,
                    holds=False,
                    evidence=f"at n = {bad} the true value is {fmt(Q(seq(bad)))}, this gives {fmt(Q(form(bad)))}",
                )
            )
    return claims


def _partial(term: Callable[[int], Q]) -> Callable[[int], Q]:
    return lambda n: sum((Q(term(k)) for k in range(1, n + 1)), Q(0))


# ---------------------------------------------------------------------- closed forms


def closed_forms(rng: random.Random, index: int) -> Draft:
    theme = index % 8
    if theme == 0:
        text, term = "1 + 2 + … + n", lambda k: k
        forms = [
            ("n(n + 1)/2", lambda n: Q(n * (n + 1), 2)),
            ("n(n - 1)/2", lambda n: Q(n * (n - 1), 2)),
            ("n^2/2", lambda n: Q(n * n, 2)),
            ("(n + 1)(n + 2)/2", lambda n: Q((n + 1) * (n + 2), 2)),
            ("n(n + 1)", lambda n: n * (n + 1)),
        ]
    elif theme == 1:
        text, term = "1^2 + 2^2 + … + n^2", lambda k: k * k
        forms = [
            ("n(n + 1)(2n + 1)/6", lambda n: Q(n * (n + 1) * (2 * n + 1), 6)),
            ("n(n + 1)(2n - 1)/6", lambda n: Q(n * (n + 1) * (2 * n - 1), 6)),
            ("n(n + 1)(2n + 1)/3", lambda n: Q(n * (n + 1) * (2 * n + 1), 3)),
            ("n^2(n + 1)^2/4", lambda n: Q(n * n * (n + 1) ** 2, 4)),
            ("(n + 1)(n + 2)(2n + 3)/6", lambda n: Q((n + 1) * (n + 2) * (2 * n + 3), 6)),
        ]
    elif theme == 2:
        text, term = "1^3 + 2^3 + … + n^3", lambda k: k**3
        forms = [
            ("(n(n + 1)/2)^2", lambda n: Q(n * (n + 1), 2) ** 2),
            ("(n(n - 1)/2)^2", lambda n: Q(n * (n - 1), 2) ** 2),
            ("n^2(n + 1)^2/2", lambda n: Q(n * n * (n + 1) ** 2, 2)),
            ("n(n + 1)(2n + 1)/6", lambda n: Q(n * (n + 1) * (2 * n + 1), 6)),
            ("((n + 1)(n + 2)/2)^2", lambda n: Q((n + 1) * (n + 2), 2) ** 2),
        ]
    elif theme == 3:
        text, term = "1 + 3 + 5 + … + (2n - 1)", lambda k: 2 * k - 1
        forms = [
            ("n^2", lambda n: n * n),
            ("(n + 1)^2", lambda n: (n + 1) ** 2),
            ("n^2 - 1", lambda n: n * n - 1),
            ("2n^2 - n", lambda n: 2 * n * n - n),
            ("n(n - 1)", lambda n: n * (n - 1)),
        ]
    elif theme == 4:
        text, term = "1·2 + 2·3 + … + n(n + 1)", lambda k: k * (k + 1)
        forms = [
            ("n(n + 1)(n + 2)/3", lambda n: Q(n * (n + 1) * (n + 2), 3)),
            ("n(n + 1)(n + 2)/6", lambda n: Q(n * (n + 1) * (n + 2), 6)),
            ("(n - 1)n(n + 1)/3", lambda n: Q((n - 1) * n * (n + 1), 3)),
            ("(n + 1)(n + 2)(n + 3)/3", lambda n: Q((n + 1) * (n + 2) * (n + 3), 3)),
            ("n^2(n + 1)/2", lambda n: Q(n * n * (n + 1), 2)),
        ]
    elif theme == 5:
        text, term = "1/(1·2) + 1/(2·3) + … + 1/(n(n + 1))", lambda k: Q(1, k * (k + 1))
        forms = [
            ("n/(n + 1)", lambda n: Q(n, n + 1)),
            ("(n - 1)/n", lambda n: Q(n - 1, n)),
            ("1/(n + 1)", lambda n: Q(1, n + 1)),
            ("n/(n + 2)", lambda n: Q(n, n + 2)),
            ("(n + 1)/(n + 2)", lambda n: Q(n + 1, n + 2)),
        ]
    elif theme == 6:
        r = rng.randint(2, 5)
        text, seq = f"1 + {r} + {r}^2 + … + {r}^n", lambda n: sum(r**k for k in range(n + 1))
        forms = [
            (f"({r}^(n + 1) - 1)/{r - 1}" if r > 2 else "2^(n + 1) - 1", lambda n: Q(r ** (n + 1) - 1, r - 1)),
            (f"({r}^n - 1)/{r - 1}" if r > 2 else "2^n - 1", lambda n: Q(r**n - 1, r - 1)),
            (f"({r}^(n + 1) - 1)/{r}", lambda n: Q(r ** (n + 1) - 1, r)),
            (f"({r}^(n + 2) - 1)/{r - 1}" if r > 2 else "2^(n + 2) - 1", lambda n: Q(r ** (n + 2) - 1, r - 1)),
            (f"{r}^(n + 1)", lambda n: r ** (n + 1)),
        ]
        return _closed_draft(rng, text, seq, forms)
    else:
        text, term = "1·2 + 2·2^2 + 3·2^3 + … + n·2^n", lambda k: k * 2**k
        forms = [
            ("(n - 1)·2^(n + 1) + 2", lambda n: (n - 1) * 2 ** (n + 1) + 2),
            ("n·2^(n + 1) - 2", lambda n: n * 2 ** (n + 1) - 2),
            ("(n - 1)·2^n + 2", lambda n: (n - 1) * 2**n + 2),
            ("(n - 2)·2^(n + 1) + 2", lambda n: (n - 2) * 2 ** (n + 1) + 2),
            ("n·2^n", lambda n: n * 2**n),
        ]
    return _closed_draft(rng, text, _partial(term), forms)


def _closed_draft(rng, text, seq, forms) -> Draft:
    return Draft(
        question=f"For every integer n ≥ 1, the sum {text} equals which expression?",
        claims=choose(rng, _formula_claims(seq, forms), rng.choice([4, 5])),
        theorem_types=("sequences and series", "closed forms"),
        theorem=f"{text} = {forms[0][0]} for every n ≥ 1.",
        sketch="Induction on n, or telescoping; test n = 1 and n = 2 against each candidate to expose index shifts.",
    )


# ---------------------------------------------------------------------- concrete values


def concrete_sums(rng: random.Random, index: int) -> Draft:
    theme = index % 5
    if theme == 0:
        n = rng.randint(8, 40)
        truth, question = sum(k * k for k in range(1, n + 1)), f"What is 1^2 + 2^2 + … + {n}^2?"
        wrong = [
            sum(k * k for k in range(1, n)),
            sum(k * k for k in range(1, n + 2)),
            n * (n + 1) * (2 * n + 1) // 3,
            (n * (n + 1) // 2) ** 2,
        ]
        theorem = "The sum of the first n squares is n(n + 1)(2n + 1)/6."
    elif theme == 1:
        n = rng.randint(6, 25)
        truth, question = sum(k**3 for k in range(1, n + 1)), f"What is 1^3 + 2^3 + … + {n}^3?"
        wrong = [
            sum(k**3 for k in range(1, n)),
            sum(k**3 for k in range(1, n + 2)),
            (n * (n - 1) // 2) ** 2,
            n * n * (n + 1) ** 2 // 2,
        ]
        theorem = "The sum of the first n cubes is (n(n + 1)/2)^2."
    elif theme == 2:
        a, d, n = rng.randint(1, 9), rng.randint(2, 7), rng.randint(10, 40)
        terms = [a + d * i for i in range(n)]
        truth = sum(terms)
        question = f"What is the sum of the first {n} terms of the arithmetic progression {a}, {a + d}, {a + 2 * d}, …?"
        wrong = [truth + a + d * n, truth - terms[-1], n * (a + a + d * n) // 2, (n + 1) * (a + terms[-1]) // 2, n * terms[-1]]
        theorem = "The sum of n terms of an arithmetic progression is n(first + last)/2, with last = a + (n - 1)d."
    elif theme == 3:
        r, n = rng.randint(2, 4), rng.randint(5, 12)
        truth, question = sum(r**k for k in range(n + 1)), f"What is 1 + {r} + {r}^2 + … + {r}^{n}?"
        wrong = [sum(r**k for k in range(n)), sum(r**k for k in range(n + 2)), r ** (n + 1) - 1, (r**n - 1) // (r - 1) + r**n + 1]
        theorem = "1 + r + … + r^n = (r^(n + 1) - 1)/(r - 1): n + 1 terms."
    else:
        a, d, n = rng.randint(1, 20), rng.randint(2, 9), rng.randint(12, 60)
        last = a + d * (n - 1)
        truth = len(range(a, last + 1, d))
        question = f"How many terms does the arithmetic progression {a}, {a + d}, {a + 2 * d}, …, {last} have?"
        wrong = [truth - 1, truth + 1, truth - 2, truth + 2, last // d, (last - a + 1) // d, (last + a) // d]
        theorem = "A progression from a to L with step d has (L - a)/d + 1 terms (fencepost counting)."
    claims = value_claims(truth, [w for w in wrong if w > 0], "direct summation" if theme != 4 else "listing the terms")
    return Draft(
        question=question,
        claims=choose(rng, claims, rng.choice([4, 5])),
        theorem_types=("sequences and series", "finite sums"),
        theorem=theorem,
        sketch="Count the terms first (fenceposts), then apply the closed form.",
    )


# ---------------------------------------------------------------------- recurrences


def recurrences(rng: random.Random, index: int) -> Draft:
    if index % 2 == 0:
        c, e = rng.randint(2, 5), rng.choice([-3, -2, -1, 1, 2, 3])
        shift = -e * (c - 1)
        first = c + e
        question = f"A sequence is defined by a_1 = {first} and a_(n+1) = {c}·a_n {signed(shift)} for n ≥ 1. Which formula gives a_n for every n ≥ 1?"

        def seq(n: int, c=c, first=first, shift=shift) -> int:
            value = first
            for _ in range(n - 1):
                value = c * value + shift
            return value

        forms = [
            (f"a_n = {c}^n {signed(e)}", lambda n: c**n + e),
            (f"a_n = {c}^(n - 1) {signed(e)}", lambda n: c ** (n - 1) + e),
            (f"a_n = {c}^(n + 1) {signed(e)}", lambda n: c ** (n + 1) + e),
            (f"a_n = {c}^n {signed(-e)}", lambda n: c**n - e),
            (f"a_n = {first}·{c}^(n - 1)", lambda n: first * c ** (n - 1)),
            (f"a_n = {c}^n {signed(e)}n", lambda n: c**n + e * n),
        ]
        theorem = f"The fixed point of x -> {c}x {signed(shift)} is {-e}, so a_n - ({-e}) is geometric with ratio {c}."
    else:
        r, s = rng.choice([(1, 2), (2, 3), (1, 3), (2, 5), (3, 4), (1, 4)])
        question = (
            f"A sequence is defined by a_1 = {r + s}, a_2 = {r * r + s * s} and a_(n+2) = {r + s}·a_(n+1) - {r * s}·a_n "
            f"for n ≥ 1. Which formula gives a_n for every n ≥ 1?"
        )

        def seq(n: int, r=r, s=s) -> int:
            values = [r + s, r * r + s * s]
            while len(values) < n:
                values.append((r + s) * values[-1] - r * s * values[-2])
            return values[n - 1]

        forms = [
            (f"a_n = {r}^n + {s}^n", lambda n: r**n + s**n),
            (f"a_n = {r}^(n - 1) + {s}^(n - 1)", lambda n: r ** (n - 1) + s ** (n - 1)),
            (f"a_n = {r + s}^n", lambda n: (r + s) ** n),
            (f"a_n = {r}^(n + 1) + {s}^(n + 1)", lambda n: r ** (n + 1) + s ** (n + 1)),
            (f"a_n = {s}^n - {r}^n", lambda n: s**n - r**n),
            (f"a_n = {r * s}^n + 1", lambda n: (r * s) ** n + 1),
        ]
        theorem = f"The characteristic polynomial x^2 - {r + s}x + {r * s} has roots {r} and {s}; the initial values fix a_n = {r}^n + {s}^n."
    return Draft(
        question=question,
        claims=choose(rng, _formula_claims(seq, forms), rng.choice([4, 5, 6])),
        theorem_types=("sequences and series", "recurrences"),
        theorem=theorem,
        sketch="Check a candidate against a_1 and a_2 first: index shifts fail there immediately.",
    )


# ---------------------------------------------------------------------- Fibonacci


def fibonacci(rng: random.Random, index: int) -> Draft:
    theme = index % 6
    F = fib
    if theme == 0:
        what, seq = "F_1 + F_2 + … + F_n", _partial(F)
        forms = [
            ("F_(n+2) - 1", lambda n: F(n + 2) - 1),
            ("F_(n+1) - 1", lambda n: F(n + 1) - 1),
            ("F_(n+2)", lambda n: F(n + 2)),
            ("F_(n+2) + 1", lambda n: F(n + 2) + 1),
            ("F_(n+2) - 2", lambda n: F(n + 2) - 2),
        ]
    elif theme == 1:
        what, seq = "F_1^2 + F_2^2 + … + F_n^2", _partial(lambda k: F(k) ** 2)
        forms = [
            ("F_n·F_(n+1)", lambda n: F(n) * F(n + 1)),
            ("F_n^2 + 1", lambda n: F(n) ** 2 + 1),
            ("F_(n+1)^2 - 1", lambda n: F(n + 1) ** 2 - 1),
            ("F_(2n)", lambda n: F(2 * n)),
            ("F_n·F_(n+2)", lambda n: F(n) * F(n + 2)),
        ]
    elif theme == 2:
        what, seq = "F_(n+1)·F_(n+3) - F_(n+2)^2", lambda n: F(n + 1) * F(n + 3) - F(n + 2) ** 2
        forms = [
            ("(-1)^n", lambda n: (-1) ** n),
            ("(-1)^(n+1)", lambda n: (-1) ** (n + 1)),
            ("1", lambda n: 1),
            ("0", lambda n: 0),
            ("-1", lambda n: -1),
        ]
    elif theme == 3:
        what, seq = "F_1 + F_3 + F_5 + … + F_(2n-1)", _partial(lambda k: F(2 * k - 1))
        forms = [
            ("F_(2n)", lambda n: F(2 * n)),
            ("F_(2n-1)", lambda n: F(2 * n - 1)),
            ("F_(2n+1) - 1", lambda n: F(2 * n + 1) - 1),
            ("F_(2n) - 1", lambda n: F(2 * n) - 1),
            ("F_(2n+1)", lambda n: F(2 * n + 1)),
        ]
    elif theme == 4:
        what, seq = "F_2 + F_4 + F_6 + … + F_(2n)", _partial(lambda k: F(2 * k))
        forms = [
            ("F_(2n+1) - 1", lambda n: F(2 * n + 1) - 1),
            ("F_(2n+1)", lambda n: F(2 * n + 1)),
            ("F_(2n) - 1", lambda n: F(2 * n) - 1),
            ("F_(2n+2) - 1", lambda n: F(2 * n + 2) - 1),
            ("F_(2n-1)", lambda n: F(2 * n - 1)),
        ]
    else:
        m = rng.randint(3, 12)
        what, seq = f"gcd(F_n, F_{m})", lambda n: math.gcd(F(n), F(m))
        forms = [
            (f"F_gcd(n, {m})", lambda n: F(math.gcd(n, m))),
            (f"gcd(n, {m})", lambda n: math.gcd(n, m)),
            (f"F_(gcd(n, {m}) + 1)", lambda n: F(math.gcd(n, m) + 1)),
            ("1", lambda n: 1),
            (f"F_(n + {m})", lambda n: F(n + m)),
        ]
    return Draft(
        question=f"Let F_1 = F_2 = 1 and F_(k+2) = F_(k+1) + F_k. For every integer n ≥ 1, {what} equals which expression?",
        claims=choose(rng, _formula_claims(seq, forms), rng.choice([4, 5])),
        theorem_types=("sequences and series", "Fibonacci numbers"),
        theorem=f"{what} = {forms[0][0]} for every n ≥ 1.",
        sketch="Induction using F_(k+2) = F_(k+1) + F_k; small n separate the index-shifted candidates.",
    )


FAMILIES = [
    ("se-closed", 10, closed_forms),
    ("se-value", 10, concrete_sums),
    ("se-recur", 10, recurrences),
    ("se-fib", 10, fibonacci),
]
