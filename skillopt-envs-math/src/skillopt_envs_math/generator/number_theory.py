"""Number-theory families: divisibility, primes, divisor functions, residues, gcd, n!.

Universal claims are decided exactly where a finite check is a proof: an integer
polynomial's value mod d depends only on n mod d, and "every prime p > B" reduces to
the primes dividing m plus every unit residue class mod m (each holds primes, by
Dirichlet). Statements about all a, b, c are checked exhaustively on a box.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from itertools import product

from skillopt_envs_math.generator.core import Claim, Draft, choose, first_counterexample, primes_upto, value_claims

PRIMES = primes_upto(20000)

# ---------------------------------------------------------------------- polynomial divisibility

POLYS: list[tuple[str, Callable[[int], int], int]] = [
    ("n(n + 1)(n + 2)", lambda n: n * (n + 1) * (n + 2), 3),
    ("n(n + 1)(n + 2)(n + 3)", lambda n: n * (n + 1) * (n + 2) * (n + 3), 4),
    ("n(n + 1)(n + 2)(n + 3)(n + 4)", lambda n: n * (n + 1) * (n + 2) * (n + 3) * (n + 4), 5),
    ("n^3 - n", lambda n: n**3 - n, 3),
    ("n^5 - n", lambda n: n**5 - n, 5),
    ("n^7 - n", lambda n: n**7 - n, 7),
    ("n^4 - n^2", lambda n: n**4 - n**2, 4),
    ("n^3 + 5n", lambda n: n**3 + 5 * n, 3),
    ("2n^3 + 3n^2 + n", lambda n: 2 * n**3 + 3 * n**2 + n, 3),
    ("n^5 - 5n^3 + 4n", lambda n: n**5 - 5 * n**3 + 4 * n, 5),
    ("n^9 - n", lambda n: n**9 - n, 9),
]


def _divides_for_all(f, d: int, parity: int | None = None) -> tuple[bool, str]:
    """Does d divide f(n) for every integer n (of the given parity)? Exact: period lcm(d, 2)."""
    period = 2 * d
    for r in range(period):
        if parity is not None and r % 2 != parity:
            continue
        if f(r) % d:
            n0 = first_counterexample(range(1, 10 * period), lambda n: (parity is None or n % 2 == parity) and f(n) % d != 0)
            return False, f"n = {n0} gives {f(n0)}, which {d} does not divide"
    what = "every residue" if parity is None else ("every odd residue" if parity else "every even residue")
    return True, f"f(n) mod {d} depends only on n mod {period}, and {what} mod {period} was checked"


def poly_divisibility(rng: random.Random, index: int) -> Draft:
    text, f, deg = POLYS[index % len(POLYS)]
    g = 0
    for n in range(deg + 3):
        g = math.gcd(g, f(n))
    q = next(p for p in PRIMES if g % p)
    candidates = [
        (f"For every integer n, {g} divides {text}.", g, None),
        (f"For every integer n, {2 * g} divides {text}.", 2 * g, None),
        (f"For every integer n, {q * g} divides {text}.", q * g, None),
        (f"For every odd integer n, {2 * g} divides {text}.", 2 * g, 1),
        (f"For every even integer n, {2 * g} divides {text}.", 2 * g, 0),
        (f"For every integer n, {g + 1} divides {text}.", g + 1, None),
    ]
    claims = []
    for claim_text, d, parity in candidates:
        holds, why = _divides_for_all(f, d, parity)
        claims.append(Claim(text=claim_text, holds=holds, evidence=why))
    all_hold, _ = _divides_for_all(f, g)
    claims.append(
        Claim(
            text=f"There is an integer n such that {g} does not divide {text}.",
            holds=not all_hold,
            evidence=f"no residue mod {2 * g} gives a value that {g} fails to divide",
        )
    )
    return Draft(
        question=f"Let n range over the integers and consider {text}. Which of the following statements is true?",
        claims=choose(rng, claims, rng.choice([4, 5, 5, 6])),
        theorem_types=("number theory", "divisibility"),
        theorem=f"The greatest integer dividing {text} for every integer n is {g}.",
        sketch=f"{g} is the gcd of the values at n = 0..{deg + 2}, which generate all values; "
        f"divisibility by d is periodic in n with period d.",
    )


# ---------------------------------------------------------------------- prime powers mod m

PRIME_THEMES = [(2, 3), (2, 2), (4, 5), (4, 3), (4, 2), (6, 7), (6, 5), (2, 5), (8, 5), (12, 13)]


def _all_primes_above(bound: int, k: int, m: int) -> tuple[bool, str]:
    """Does m divide p^k - 1 for every prime p > bound? Exact: primes dividing m directly,
    the rest through their unit residue class mod m (every unit class holds primes)."""
    big = max(p for p in PRIMES if m % p == 0) if m > 1 else 1
    direct = [p for p in PRIMES if bound < p <= big]
    units_ok = all(pow(u, k, m) == 1 % m for u in range(1, m) if math.gcd(u, m) == 1)
    direct_ok = all((p**k - 1) % m == 0 for p in direct)
    if units_ok and direct_ok:
        return True, f"primes dividing {m} above {bound} checked directly and every unit residue mod {m} satisfies u^{k} ≡ 1"
    p0 = first_counterexample((p for p in PRIMES if p > bound), lambda p: (p**k - 1) % m != 0)
    return False, f"p = {p0} gives {p0}^{k} - 1 = {p0**k - 1}, not divisible by {m}"


def _all_odd_above(bound: int, k: int, m: int) -> tuple[bool, str]:
    for r in range(2 * m):
        if r % 2 == 1 and (pow(r, k, m) - 1) % m:
            n0 = first_counterexample(range(bound + 1, bound + 4 * m + 3), lambda n: n % 2 == 1 and (n**k - 1) % m != 0)
            return False, f"n = {n0} gives {n0}^{k} - 1 = {n0**k - 1}, not divisible by {m}"
    return True, f"every odd residue mod {2 * m} checked"


def prime_residues(rng: random.Random, index: int) -> Draft:
    k, bound = PRIME_THEMES[index % len(PRIME_THEMES)]
    m = 0
    for p in PRIMES:
        if bound < p < 3000:
            m = math.gcd(m, p**k - 1)
    q = next(p for p in PRIMES if m % p)
    lower = max((p for p in PRIMES if p < bound), default=1)
    claims = []
    for text, (b, e, mod) in [
        (f"For every prime p > {bound}, {m} divides p^{k} - 1.", (bound, k, m)),
        (f"For every prime p > {bound}, {2 * m} divides p^{k} - 1.", (bound, k, 2 * m)),
        (f"For every prime p > {bound}, {q * m} divides p^{k} - 1.", (bound, k, q * m)),
        (f"For every prime p > {bound}, {m} divides p^{k + 1} - 1.", (bound, k + 1, m)),
        (f"For every prime p > {lower}, {m} divides p^{k} - 1.", (lower, k, m)),
    ]:
        holds, why = _all_primes_above(b, e, mod)
        claims.append(Claim(text=text, holds=holds, evidence=why))
    odd_holds, odd_why = _all_odd_above(bound, k, m)
    claims.append(Claim(text=f"For every odd integer n > {bound}, {m} divides n^{k} - 1.", holds=odd_holds, evidence=odd_why))
    main, _ = _all_primes_above(bound, k, m)
    claims.append(
        Claim(
            text=f"There is a prime p > {bound} such that {m} does not divide p^{k} - 1.",
            holds=not main,
            evidence=f"every prime p > {bound} satisfies {m} | p^{k} - 1 (see the first statement)",
        )
    )
    return Draft(
        question=f"Let p denote a prime number. Which of the following statements about p^{k} - 1 is true?",
        claims=choose(rng, claims, rng.choice([4, 5, 6])),
        theorem_types=("number theory", "primes", "modular arithmetic"),
        theorem=f"For every prime p > {bound}, p^{k} ≡ 1 (mod {m}), and {m} is the largest such modulus.",
        sketch=f"Primes above {bound} not dividing {m} fall in unit classes mod {m}; by Euler/Carmichael every unit u has "
        f"u^{k} ≡ 1 (mod {m}), and each unit class contains primes (Dirichlet), so no larger modulus works.",
    )


# ---------------------------------------------------------------------- divisor functions


def divisor_functions(rng: random.Random, index: int) -> Draft:
    while True:
        primes = sorted(rng.sample([2, 3, 5, 7, 11], rng.choice([2, 3])))
        exps = {p: rng.randint(1, 4) for p in primes}
        n = math.prod(p**e for p, e in exps.items())
        if 60 <= n <= 60000:
            break
    divisors = [d for d in range(1, n + 1) if n % d == 0]
    e = list(exps.values())
    tau = len(divisors)
    kind = index % 5
    if kind == 0:
        question, truth = f"How many positive divisors does {n} have?", tau
        wrong = [math.prod(e), tau - 1, tau + 1, math.prod(x + 2 for x in e), sum(x + 1 for x in e), 2 * tau]
        how, theorem = "listing the divisors of n", "If n = p1^e1 ··· pk^ek then n has (e1 + 1)···(ek + 1) divisors."
    elif kind == 1:
        question = f"How many positive divisors of {n} are perfect squares?"
        truth = sum(1 for d in divisors if math.isqrt(d) ** 2 == d)
        wrong = [math.prod(x // 2 for x in e), math.prod((x + 1) // 2 + 1 for x in e), truth + 1, truth - 1, tau // 2]
        how, theorem = "testing each divisor", "Square divisors of p1^e1···pk^ek number (⌊e1/2⌋ + 1)···(⌊ek/2⌋ + 1)."
    elif kind == 2:
        question, truth = f"How many positive divisors d of {n} satisfy d < {n}?", tau - 1
        wrong = [tau, tau - 2, tau // 2, math.prod(e), tau + 1]
        how, theorem = "listing the divisors of n", "n has (e1 + 1)···(ek + 1) divisors, one of which is n itself."
    elif kind == 3:
        question = f"How many integers m with 1 ≤ m ≤ {n} satisfy gcd(m, {n}) = 1?"
        truth = sum(1 for m in range(1, n + 1) if math.gcd(m, n) == 1)
        wrong = [
            truth + 1,
            truth - 1,
            n // 2,
            n - len(primes),
            n * (primes[0] - 1) // primes[0],
            math.prod(p**x - p for p, x in exps.items()),
        ]
        how, theorem = "counting directly", "Euler's totient: φ(n) = n ∏ (1 - 1/p) over the primes p dividing n."
    else:
        question, truth = f"What is the sum of all positive divisors of {n}?", sum(divisors)
        wrong = [
            truth - n,
            truth + 1,
            truth - 1,
            math.prod((p**x - 1) // (p - 1) for p, x in exps.items()),
            math.prod((p ** (x + 2) - 1) // (p - 1) for p, x in exps.items()),
        ]
        how, theorem = "adding the divisors", "σ(p1^e1···pk^ek) = ∏ (p^(e+1) - 1)/(p - 1)."
    factor = " · ".join(f"{p}^{x}" if x > 1 else str(p) for p, x in exps.items())
    claims = value_claims(truth, [w for w in wrong if w > 0], how)
    return Draft(
        question=question,
        claims=choose(rng, claims, rng.choice([4, 5])),
        theorem_types=("number theory", "divisor functions"),
        theorem=theorem,
        sketch=f"{n} = {factor}.",
    )


# ---------------------------------------------------------------------- powers, orders


def _order(a: int, m: int) -> int:
    k, x = 1, a % m
    while x != 1:
        x, k = (x * a) % m, k + 1
    return k


def powers_and_orders(rng: random.Random, index: int) -> Draft:
    kind = index % 3
    if kind == 0:
        m = rng.choice([7, 9, 11, 13, 15, 17, 19, 21, 23, 25])
        a = rng.choice([x for x in range(2, m) if math.gcd(x, m) == 1])
        k = rng.randint(100, 2025)
        truth = pow(a, k, m)
        wrong = [pow(a, k - 1, m), pow(a, k + 1, m), pow(a, k % m, m), (a * k) % m, (m - truth) % m, (a + k) % m]
        question = f"What is the remainder when {a}^{k} is divided by {m}?"
        theorem = "Euler's theorem: if gcd(a, m) = 1 then a^φ(m) ≡ 1 (mod m), so exponents reduce modulo φ(m), not modulo m."
        how = "modular exponentiation"
    else:
        if kind == 1:
            m = rng.choice([p for p in PRIMES if 11 <= p <= 61])
        else:
            m = rng.choice([15, 21, 33, 35, 39, 45, 51, 55, 63, 65])
        a = rng.choice([x for x in range(2, m - 1) if math.gcd(x, m) == 1])
        truth = _order(a, m)
        phi = sum(1 for x in range(1, m) if math.gcd(x, m) == 1)
        wrong = [phi, phi // 2, truth + 1, truth - 1, 2 * truth, m - 1]
        wrong += [d for d in range(2, phi + 1) if phi % d == 0 and d != truth][:3]
        question = f"What is the smallest positive integer k such that {m} divides {a}^k - 1?"
        theorem = "The multiplicative order of a modulo m divides φ(m) (Lagrange) but need not equal it."
        how = "computing successive powers"
    claims = value_claims(truth, [w for w in wrong if w >= 0], how)
    return Draft(
        question=question,
        claims=choose(rng, claims, rng.choice([4, 5, 6])),
        theorem_types=("number theory", "modular arithmetic"),
        theorem=theorem,
        sketch=f"Direct computation modulo {m}.",
    )


# ---------------------------------------------------------------------- gcd statements

GCD_TRUE: list[tuple[str, Callable[[int, int, int], bool]]] = [
    (
        "If gcd(a, b) = 1 and a divides bc, then a divides c.",
        lambda a, b, c: not (math.gcd(a, b) == 1 and (b * c) % a == 0) or c % a == 0,
    ),
    ("gcd(a, b) · lcm(a, b) = ab.", lambda a, b, c: math.gcd(a, b) * math.lcm(a, b) == a * b),
    (
        "If gcd(a, c) = 1 and gcd(b, c) = 1, then gcd(ab, c) = 1.",
        lambda a, b, c: not (math.gcd(a, c) == 1 and math.gcd(b, c) == 1) or math.gcd(a * b, c) == 1,
    ),
    (
        "If a divides c, b divides c and gcd(a, b) = 1, then ab divides c.",
        lambda a, b, c: not (c % a == 0 and c % b == 0 and math.gcd(a, b) == 1) or c % (a * b) == 0,
    ),
    ("gcd(ac, bc) = c · gcd(a, b).", lambda a, b, c: math.gcd(a * c, b * c) == c * math.gcd(a, b)),
    ("gcd(a, b) = gcd(a, b + ac).", lambda a, b, c: math.gcd(a, b) == math.gcd(a, b + a * c)),
]
GCD_FALSE: list[tuple[str, Callable[[int, int, int], bool]]] = [
    ("If a divides bc, then a divides b or a divides c.", lambda a, b, c: (b * c) % a != 0 or b % a == 0 or c % a == 0),
    ("If a divides bc, then a divides c.", lambda a, b, c: (b * c) % a != 0 or c % a == 0),
    ("If a divides c and b divides c, then ab divides c.", lambda a, b, c: not (c % a == 0 and c % b == 0) or c % (a * b) == 0),
    ("gcd(ab, c) = gcd(a, c) · gcd(b, c).", lambda a, b, c: math.gcd(a * b, c) == math.gcd(a, c) * math.gcd(b, c)),
    (
        "If gcd(a, c) = 1 or gcd(b, c) = 1, then gcd(ab, c) = 1.",
        lambda a, b, c: not (math.gcd(a, c) == 1 or math.gcd(b, c) == 1) or math.gcd(a * b, c) == 1,
    ),
    ("gcd(ac, bc) = c^2 · gcd(a, b).", lambda a, b, c: math.gcd(a * c, b * c) == c * c * math.gcd(a, b)),
    ("gcd(a, b, c) · lcm(a, b, c) = abc.", lambda a, b, c: math.gcd(a, b, c) * math.lcm(a, b, c) == a * b * c),
    ("gcd(a, b) = gcd(a, b + c).", lambda a, b, c: math.gcd(a, b) == math.gcd(a, b + c)),
    (
        "If gcd(a, b) = 1 and a divides bc, then a divides b.",
        lambda a, b, c: not (math.gcd(a, b) == 1 and (b * c) % a == 0) or b % a == 0,
    ),
]
BOX = 16


def _check_all(pred) -> tuple[bool, str]:
    for a, b, c in product(range(1, BOX + 1), repeat=3):
        if not pred(a, b, c):
            return False, f"a = {a}, b = {b}, c = {c} is a counterexample"
    return True, f"checked every a, b, c in 1..{BOX}"


def gcd_statements(rng: random.Random, index: int) -> Draft:
    true_text, true_pred = GCD_TRUE[index % len(GCD_TRUE)]
    pool = [(true_text, true_pred), *rng.sample(GCD_FALSE, len(GCD_FALSE))]
    claims = []
    for text, pred in pool:
        holds, why = _check_all(pred)
        claims.append(Claim(text=text, holds=holds, evidence=why))
    return Draft(
        question="Which of the following statements holds for all positive integers a, b and c?",
        claims=choose(rng, claims, rng.choice([4, 5, 6])),
        theorem_types=("number theory", "gcd and lcm"),
        theorem=true_text,
        sketch="Work prime by prime: compare the exponent of each prime p on both sides (Euclid's lemma needs coprimality).",
    )


# ---------------------------------------------------------------------- Legendre's formula


def _valuation(n: int, p: int) -> int:
    v = 0
    while n % p == 0:
        n //= p
        v += 1
    return v


def factorial_valuations(rng: random.Random, index: int) -> Draft:
    n = rng.randint(30, 400)
    if index % 2:
        p = 5
        question = f"How many zeros does the decimal expansion of {n}! end with?"
        theorem = "The number of trailing zeros of n! is the exponent of 5 in n!, i.e. ⌊n/5⌋ + ⌊n/25⌋ + ⌊n/125⌋ + …"
    else:
        p = rng.choice([2, 3, 7])
        question = f"What is the exponent of the prime {p} in the prime factorization of {n}!?"
        theorem = "Legendre's formula: the exponent of p in n! is ⌊n/p⌋ + ⌊n/p^2⌋ + ⌊n/p^3⌋ + …"
    exact = math.factorial(n)
    truth = _valuation(exact, p) if p != 5 else len(str(exact)) - len(str(exact).rstrip("0"))
    wrong = [n // p, n // p + n // p**2, truth + 1, truth - 1, n // (p - 1), n // (2 * p) if p == 5 else n // p**2]
    claims = value_claims(truth, [w for w in wrong if w > 0], f"factoring {n}! exactly")
    return Draft(
        question=question,
        claims=choose(rng, claims, rng.choice([4, 5])),
        theorem_types=("number theory", "factorials"),
        theorem=theorem,
        sketch=f"Each multiple of {p}^j up to {n} contributes one factor {p} for each j.",
    )


FAMILIES = [
    ("nt-poly", 10, poly_divisibility),
    ("nt-prime", 10, prime_residues),
    ("nt-divisor", 10, divisor_functions),
    ("nt-order", 10, powers_and_orders),
    ("nt-gcd", 10, gcd_statements),
    ("nt-factorial", 10, factorial_valuations),
]
