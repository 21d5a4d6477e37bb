"""Combinatorics families: binomial identities, counting by brute force, pigeonhole.

Counts are obtained by enumerating the objects themselves (tuples, subsets,
permutations, functions, lattice paths), never from the closed formula the question
is about; identities are checked term by term over a range of n.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from itertools import combinations, combinations_with_replacement, permutations, product

from skillopt_envs_math.generator.core import Claim, Draft, binom, choose, fib, value_claims

# ---------------------------------------------------------------------- identities

Expr = tuple[str, Callable[[int], int]]


def _identity_claims(lhs: Callable[[int], int], exprs: list[Expr], start: int, stop: int = 26) -> list[Claim]:
    claims = []
    for text, rhs in exprs:
        bad = next((n for n in range(start, stop) if lhs(n) != rhs(n)), None)
        if bad is None:
            claims.append(Claim(text=text, holds=True, evidence=f"both sides agree for n = {start}..{stop - 1}"))
        else:
            claims.append(Claim(text=text, holds=False, evidence=f"at n = {bad} the sum is {lhs(bad)} but this gives {rhs(bad)}"))
    return claims


def binomial_identities(rng: random.Random, index: int) -> Draft:
    theme = index % 7
    start = 1
    if theme == 0:
        k = rng.randint(1, 5)
        lhs_text = f"C({k}, {k}) + C({k + 1}, {k}) + … + C(n, {k})"
        lhs = lambda n: sum(binom(i, k) for i in range(k, n + 1))
        start = k
        exprs = [
            (f"C(n + 1, {k + 1})", lambda n: binom(n + 1, k + 1)),
            (f"C(n, {k + 1})", lambda n: binom(n, k + 1)),
            (f"C(n + 1, {k})", lambda n: binom(n + 1, k)),
            (f"C(n + 2, {k + 1})", lambda n: binom(n + 2, k + 1)),
            (f"C(n + 1, {k + 1}) - 1", lambda n: binom(n + 1, k + 1) - 1),
        ]
        theorem = "Hockey-stick identity: the sum of C(i, k) for i = k..n equals C(n + 1, k + 1)."
    elif theme == 1:
        lhs_text, lhs = "C(n, 0)^2 + C(n, 1)^2 + … + C(n, n)^2", lambda n: sum(binom(n, i) ** 2 for i in range(n + 1))
        exprs = [
            ("C(2n, n)", lambda n: binom(2 * n, n)),
            ("C(2n, n - 1)", lambda n: binom(2 * n, n - 1)),
            ("4^n", lambda n: 4**n),
            ("C(2n + 1, n)", lambda n: binom(2 * n + 1, n)),
            ("2^n", lambda n: 2**n),
        ]
        theorem = "Vandermonde with m = n: the sum of C(n, k)C(n, n - k) over k is C(2n, n)."
    elif theme == 2:
        lhs_text, lhs = "0·C(n, 0) + 1·C(n, 1) + … + n·C(n, n)", lambda n: sum(i * binom(n, i) for i in range(n + 1))
        exprs = [
            ("n·2^(n - 1)", lambda n: n * 2 ** (n - 1)),
            ("n·2^n", lambda n: n * 2**n),
            ("(n + 1)·2^(n - 1)", lambda n: (n + 1) * 2 ** (n - 1)),
            ("2^n - 1", lambda n: 2**n - 1),
            ("n^2", lambda n: n * n),
        ]
        theorem = "k·C(n, k) = n·C(n - 1, k - 1), so the sum is n·2^(n - 1)."
    elif theme == 3:
        start = 2
        lhs_text, lhs = "0^2·C(n, 0) + 1^2·C(n, 1) + … + n^2·C(n, n)", lambda n: sum(i * i * binom(n, i) for i in range(n + 1))
        exprs = [
            ("n(n + 1)·2^(n - 2)", lambda n: n * (n + 1) * 2 ** (n - 2)),
            ("n^2·2^(n - 1)", lambda n: n * n * 2 ** (n - 1)),
            ("n(n - 1)·2^(n - 2)", lambda n: n * (n - 1) * 2 ** (n - 2)),
            ("n(n + 1)·2^(n - 1)", lambda n: n * (n + 1) * 2 ** (n - 1)),
            ("n·2^(n - 1)", lambda n: n * 2 ** (n - 1)),
        ]
        theorem = "k^2 = k(k - 1) + k gives n(n - 1)2^(n - 2) + n·2^(n - 1) = n(n + 1)2^(n - 2)."
    elif theme == 4:
        m = rng.randint(1, 4)
        r = rng.randint(1, 3)
        lhs_text = f"C(n, 0)·C({m}, {r}) + C(n, 1)·C({m}, {r - 1}) + … + C(n, {r})·C({m}, 0)"
        lhs = lambda n: sum(binom(n, i) * binom(m, r - i) for i in range(r + 1))
        exprs = [
            (f"C(n + {m}, {r})", lambda n: binom(n + m, r)),
            (f"C(n + {m}, {r - 1})", lambda n: binom(n + m, r - 1)),
            (f"C(n + {m - 1}, {r})" if m > 1 else f"C(n, {r})", lambda n: binom(n + m - 1, r)),
            (f"C(n + {m + 1}, {r})", lambda n: binom(n + m + 1, r)),
            (f"C(n, {r})·C({m}, {r})", lambda n: binom(n, r) * binom(m, r)),
        ]
        theorem = "Vandermonde's identity: the sum over k of C(n, k)C(m, r - k) is C(n + m, r)."
    elif theme == 5:
        return _domain_identity(
            rng,
            "C(n, 0) - C(n, 1) + C(n, 2) - … + (-1)^n C(n, n)",
            lambda n: sum((-1) ** i * binom(n, i) for i in range(n + 1)),
            [
                ("0", 1, lambda n: 0),
                ("0", 0, lambda n: 0),
                ("1", 1, lambda n: 1),
                ("(-1)^n", 1, lambda n: (-1) ** n),
                ("2^(n - 1)", 1, lambda n: 2 ** (n - 1)),
            ],
            "(1 - 1)^n = 0 for n ≥ 1, while for n = 0 the sum is C(0, 0) = 1.",
        )
    else:
        return _domain_identity(
            rng,
            "C(n, 0) + C(n, 2) + C(n, 4) + … (all even k ≤ n)",
            lambda n: sum(binom(n, i) for i in range(0, n + 1, 2)),
            [
                ("2^(n - 1)", 1, lambda n: 2 ** (n - 1)),
                ("2^(n - 1)", 0, lambda n: 2 ** (n - 1)),
                ("2^n", 1, lambda n: 2**n),
                ("2^(n - 2)", 1, lambda n: 2 ** (n - 2)),
                ("2^(n - 1) + 1", 1, lambda n: 2 ** (n - 1) + 1),
            ],
            "Adding (1 + 1)^n and (1 - 1)^n gives twice the even part; (1 - 1)^0 = 1 breaks n = 0.",
        )
    claims = _identity_claims(lhs, exprs, start)
    return Draft(
        question=f"For every integer n ≥ {start}, the sum {lhs_text} equals which expression?",
        claims=choose(rng, claims, rng.choice([4, 5])),
        theorem_types=("combinatorics", "binomial identities"),
        theorem=theorem,
        sketch="Double counting or the binomial theorem; an off-by-one in an index changes the value.",
    )


def _domain_identity(rng, lhs_text, lhs, variants, theorem) -> Draft:
    """Identities whose catch is the range of n (``for every n ≥ 0`` vs ``n ≥ 1``)."""
    claims = []
    for rhs_text, start, rhs in variants:
        bad = next((n for n in range(start, 26) if lhs(n) != rhs(n)), None)
        text = f"{lhs_text} = {rhs_text} for every integer n ≥ {start}."
        if bad is None:
            claims.append(Claim(text=text, holds=True, evidence=f"checked n = {start}..25"))
        else:
            claims.append(Claim(text=text, holds=False, evidence=f"at n = {bad} the sum is {lhs(bad)}, not {rhs(bad)}"))
    return Draft(
        question="Which of the following statements is true?",
        claims=choose(rng, claims, rng.choice([4, 5])),
        theorem_types=("combinatorics", "binomial identities"),
        theorem=theorem,
        sketch="Evaluate (1 + x)^n at x = ±1 and check the smallest n separately.",
    )


# ---------------------------------------------------------------------- counting by enumeration


def counting(rng: random.Random, index: int) -> Draft:
    kind = index % 8
    if kind in (0, 1):
        k, n = rng.randint(2, 4), rng.randint(5, 12)
        positive = kind == 1
        low = 1 if positive else 0
        truth = sum(1 for xs in product(range(low, n + 1), repeat=k - 1) if sum(xs) <= n - low)
        what = "positive" if positive else "nonnegative"
        unknowns = " + ".join(f"x{i}" for i in range(1, k + 1)) if k <= 3 else f"x1 + x2 + … + x{k}"
        question = f"How many solutions in {what} integers does {unknowns} = {n} have?"
        wrong = [
            binom(n + k - 1, k - 1),
            binom(n - 1, k - 1),
            binom(n + k, k - 1),
            binom(n - 1, k),
            binom(n + k - 1, k),
            n ** (k - 1),
        ]
        theorem = "Stars and bars: C(n + k - 1, k - 1) nonnegative and C(n - 1, k - 1) positive solutions."
    elif kind == 2:
        n = rng.randint(5, 14)
        truth = sum(1 for mask in range(1 << n) if mask & (mask >> 1) == 0)
        question = f"How many subsets of {{1, 2, …, {n}}} (including the empty set) contain no two consecutive integers?"
        wrong = [fib(n + 1), fib(n + 3), fib(n + 2) - 1, 2 ** (n - 1), n + 1]
        theorem = "The count a(n) satisfies a(n) = a(n - 1) + a(n - 2), a(1) = 2, a(2) = 3, so a(n) = F(n + 2)."
    elif kind == 3:
        a, b = rng.randint(2, 7), rng.randint(2, 7)
        grid = [[1] * (b + 1) for _ in range(a + 1)]
        for i in range(1, a + 1):
            for j in range(1, b + 1):
                grid[i][j] = grid[i - 1][j] + grid[i][j - 1]
        truth = grid[a][b]
        question = f"How many lattice paths go from (0, 0) to ({a}, {b}) using unit steps right (1, 0) and up (0, 1)?"
        wrong = [binom(a + b, a + 1), binom(a + b - 1, a), (a + 1) * (b + 1), 2 ** (a + b), binom(a + b, a) - 1]
        theorem = "A path is a choice of which a of the a + b steps go right: C(a + b, a)."
    elif kind == 4:
        n = rng.randint(4, 8)
        truth = sum(1 for p in permutations(range(n)) if all(p[i] != i for i in range(n)))
        d_prev = sum(1 for p in permutations(range(n - 1)) if all(p[i] != i for i in range(n - 1)))
        question = f"How many permutations of {n} distinct objects leave no object in its original position?"
        wrong = [
            d_prev,
            math.factorial(n) - math.factorial(n - 1),
            (n - 1) * math.factorial(n - 1),
            n * d_prev,
            truth + 1,
            math.factorial(n) // 2,
        ]
        theorem = "Derangements: D(n) = n! (1 - 1/1! + 1/2! - … + (-1)^n/n!), and D(n) = nD(n - 1) + (-1)^n."
    elif kind == 5:
        n, k = rng.randint(4, 7), rng.randint(2, 4)
        truth = sum(1 for f in product(range(k), repeat=n) if len(set(f)) == k)
        question = f"How many functions from a {n}-element set onto a {k}-element set (surjections) are there?"
        wrong = [
            k**n,
            k**n - k,
            binom(n - 1, k - 1),
            truth // math.factorial(k),
            k**n - k * (k - 1) ** n,
            math.factorial(k) * binom(n, k),
        ]
        theorem = "Inclusion-exclusion: the number of surjections is the sum over j of (-1)^j C(k, j)(k - j)^n."
    elif kind == 6:
        n = rng.randint(5, 20)
        truth = sum(1 for i, j in combinations(range(n), 2) if (j - i) % n not in (1, n - 1))
        question = f"How many diagonals does a convex polygon with {n} vertices have?"
        wrong = [n * (n - 1) // 2, n * (n - 3), (n - 1) * (n - 3) // 2, n * (n - 2) // 2, n * (n - 3) // 2 + n]
        theorem = "Each vertex joins n - 3 non-neighbours; each diagonal is counted twice: n(n - 3)/2."
    else:
        n, k = rng.randint(7, 13), rng.randint(2, 4)
        truth = sum(1 for s in combinations(range(1, n + 1), k) if all(s[i + 1] - s[i] > 1 for i in range(k - 1)))
        question = f"How many {k}-element subsets of {{1, 2, …, {n}}} contain no two consecutive integers?"
        wrong = [binom(n - k, k), binom(n - k + 1, k - 1), binom(n - k + 2, k), binom(n, k) - (n - 1), binom(n - k, k - 1)]
        theorem = "Subtracting i - 1 from the i-th smallest element maps them bijectively to k-subsets of {1, …, n - k + 1}."
    claims = value_claims(truth, [w for w in wrong if w > 0], "enumerating all candidates")
    return Draft(
        question=question,
        claims=choose(rng, claims, rng.choice([4, 5, 5, 6])),
        theorem_types=("combinatorics", "counting"),
        theorem=theorem,
        sketch="Set up the bijection carefully; most wrong answers come from an off-by-one in n or k.",
    )


# ---------------------------------------------------------------------- pigeonhole


def _residue_claim(text: str, count: int, modulus: int, test) -> Claim:
    """ "Among any ``count`` integers, ``test`` holds for some pair": decided on residue multisets."""
    for residues in combinations_with_replacement(range(modulus), count):
        if not any(test(a, b) for a, b in combinations(residues, 2)):
            return Claim(
                text=text, holds=False, evidence=f"integers with residues {list(residues)} mod {modulus} are a counterexample"
            )
    return Claim(text=text, holds=True, evidence=f"every multiset of {count} residues mod {modulus} contains such a pair")


def _subset_claim(text: str, count: int, top: int, test, every: bool = False) -> Claim:
    for subset in combinations(range(1, top + 1), count):
        pairs = [test(a, b) for a, b in combinations(subset, 2)]
        if not (all(pairs) if every else any(pairs)):
            return Claim(text=text, holds=False, evidence=f"{list(subset)} is a counterexample")
    return Claim(text=text, holds=True, evidence=f"checked every {count}-subset of 1..{top}")


def pigeonhole(rng: random.Random, index: int) -> Draft:
    theme = index % 3
    if theme == 0:
        m = rng.randint(3, 6)
        diff = lambda mod: lambda a, b: (a - b) % mod == 0
        claims = [
            _residue_claim(f"Among any {m + 1} integers, some two have a difference divisible by {m}.", m + 1, m, diff(m)),
            _residue_claim(f"Among any {m} integers, some two have a difference divisible by {m}.", m, m, diff(m)),
            _residue_claim(
                f"Among any {m + 1} integers, some two have a difference divisible by {2 * m}.", m + 1, 2 * m, diff(2 * m)
            ),
            _residue_claim(
                f"Among any {m + 1} integers, some two have a sum divisible by {m}.", m + 1, m, lambda a, b: (a + b) % m == 0
            ),
            _residue_claim(
                f"Among any {m - 1} integers, some two have a difference divisible by {m - 1}.", m - 1, m - 1, diff(m - 1)
            ),
        ]
        claims.append(
            _subset_claim(
                f"Among any {m + 1} integers, every two have a difference divisible by {m}.",
                m + 1,
                2 * m + 1,
                diff(m),
                every=True,
            )
        )
        theorem = f"Pigeonhole: {m + 1} integers fall into the {m} residue classes mod {m}, so two share a class."
    else:
        n = rng.randint(3, 6)
        if theme == 1:
            rel, word, every = (lambda a, b: math.gcd(a, b) == 1), "some two are coprime", "every two of them are coprime"
            theorem = f"Pigeonhole on the {n} pairs {{1, 2}}, {{3, 4}}, …: two chosen numbers are consecutive, hence coprime."
        else:
            rel, word = (lambda a, b: a % b == 0 or b % a == 0), "one of them divides another"
            every = "for every two of them, one divides the other"
            theorem = f"Write each number as 2^e·(odd part); only {n} odd parts are below {2 * n}, so two numbers share one."
        claims = [
            _subset_claim(f"Among any {n + 1} numbers chosen from 1, 2, …, {2 * n}, {word}.", n + 1, 2 * n, rel),
            _subset_claim(f"Among any {n} numbers chosen from 1, 2, …, {2 * n}, {word}.", n, 2 * n, rel),
            _subset_claim(f"Among any {n + 1} numbers chosen from 1, 2, …, {2 * n + 1}, {word}.", n + 1, 2 * n + 1, rel),
            _subset_claim(f"Among any {n + 1} numbers chosen from 1, 2, …, {2 * n}, {every}.", n + 1, 2 * n, rel, every=True),
            _subset_claim(f"Among any {n} numbers chosen from 1, 2, …, {2 * n - 1}, {word}.", n, 2 * n - 1, rel),
        ]
        if theme == 1:
            claims += [
                _subset_claim(
                    f"Among any {n + 1} numbers chosen from 1, 2, …, {2 * n}, some two have a common factor greater than 1.",
                    n + 1,
                    2 * n,
                    lambda a, b: math.gcd(a, b) > 1,
                ),
                _subset_claim(
                    f"Among any {n + 1} numbers chosen from 1, 2, …, {2 * n}, some two are both even.",
                    n + 1,
                    2 * n,
                    lambda a, b: a % 2 == 0 and b % 2 == 0,
                ),
            ]
    return Draft(
        question="Which of the following statements is true?",
        claims=choose(rng, claims, rng.choice([4, 5])),
        theorem_types=("combinatorics", "pigeonhole principle"),
        theorem=theorem,
        sketch="Count boxes and objects exactly; one object fewer, or one more box, and an explicit counterexample exists.",
    )


FAMILIES = [
    ("co-identity", 10, binomial_identities),
    ("co-count", 20, counting),
    ("co-pigeon", 10, pigeonhole),
]
