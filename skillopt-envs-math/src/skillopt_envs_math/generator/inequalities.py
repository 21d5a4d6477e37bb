"""Inequality families: AM-GM optimisation, equality cases, statements over the reals.

Everything is decided in exact rational arithmetic on finite grids that contain the
relevant points (the optimum, the equality locus, the counterexamples): a false claim
comes with the grid point that refutes it, a true one with the check that passed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction as Q
from itertools import product

from skillopt_envs_math.generator.core import Claim, Draft, choose, fmt

# ---------------------------------------------------------------------- helpers


def _extremum(f: Callable[[Q], Q], grid: list[Q], *, maximum: bool = False) -> tuple[Q, list[Q]]:
    values = [(f(x), x) for x in grid]
    best = max(v for v, _ in values) if maximum else min(v for v, _ in values)
    return best, [x for v, x in values if v == best]


def _optimum_claim(text: str, best: Q, where: list, value: Q, at: list, n_points: int) -> Claim:
    """ "The optimum is ``value``, attained only at ``at``" against the grid's optimum."""
    holds = best == value and sorted(where) == sorted(at)
    if holds:
        evidence = f"exact evaluation on {n_points} grid points containing the optimiser"
    elif best != value:
        evidence = f"the optimum is {fmt(best)}, not {fmt(value)}"
    else:
        evidence = "the optimum is attained at " + ", ".join(_point(w) for w in where)
    return Claim(text=text, holds=holds, evidence=evidence)


def _point(w) -> str:
    return fmt(w) if isinstance(w, Q | int) else "(" + ", ".join(fmt(c) for c in w) + ")"


# ---------------------------------------------------------------------- a x + b / x


def reciprocal_minimum(rng: random.Random, index: int) -> Draft:
    t = rng.randint(2, 6)
    if index % 2 == 0:
        k = rng.randint(1, 5)
        a, b = k, k * t * t
        f = lambda x: a * x + Q(b) / x
        lo, domain = Q(1, 12), "x > 0"
        grid = [Q(i, 12) for i in range(1, 12 * 4 * t * t + 1)]
        fx = f"{a}x + {b}/x" if a != 1 else f"x + {b}/x"
        star, star_val = Q(t), Q(2 * k * t)
        wrong_x, wrong_v = Q(t * t), Q(k * t)
        theorem = f"AM-GM: for x > 0, {fx} ≥ 2·sqrt({a}·{b}) = {fmt(star_val)}, with equality iff {a}x = {b}/x, i.e. x = {t}."
        sketch = f"{fx} - {fmt(star_val)} = {a}(x - {t})^2 / x ≥ 0."
    else:
        s = t + rng.randint(1, 3)
        b = t * t
        f = lambda x: x + Q(b) / x
        lo, domain = Q(s), f"x ≥ {s}"
        grid = [s + Q(i, 12) for i in range(12 * 4 * s)]
        fx = f"x + {b}/x"
        star, star_val = Q(s), s + Q(b, s)
        wrong_x, wrong_v = Q(t), Q(2 * t)
        theorem = (
            f"AM-GM gives x + {b}/x ≥ {2 * t} with equality only at x = {t}, which lies outside {domain}; there f is increasing."
        )
        sketch = f"f'(x) = 1 - {b}/x^2 > 0 for x > {t}, so the minimum on {domain} is at the endpoint x = {s}."
    best, where = _extremum(f, grid)
    n = len(grid)
    claims = [
        _optimum_claim(
            f"The minimum value of f on {domain} is {fmt(star_val)}, attained only at x = {fmt(star)}.",
            best,
            where,
            star_val,
            [star],
            n,
        ),
        _optimum_claim(
            f"The minimum value of f on {domain} is {fmt(star_val)}, attained only at x = {fmt(wrong_x)}.",
            best,
            where,
            star_val,
            [wrong_x],
            n,
        ),
        _optimum_claim(
            f"The minimum value of f on {domain} is {fmt(wrong_v)}, attained only at x = {fmt(star)}.",
            best,
            where,
            wrong_v,
            [star],
            n,
        ),
        _optimum_claim(
            f"The minimum value of f on {domain} is {fmt(f(Q(1)) if lo <= 1 else f(lo + 1))}, attained only at x = {fmt(1 if lo <= 1 else lo + 1)}.",
            best,
            where,
            f(Q(1)) if lo <= 1 else f(lo + 1),
            [Q(1) if lo <= 1 else lo + 1],
            n,
        ),
    ]
    if index % 2:
        claims.append(
            _optimum_claim(
                f"The minimum value of f on {domain} is {2 * t}, attained only at x = {t}.", best, where, Q(2 * t), [Q(t)], n
            )
        )
    attained = best in [f(x) for x in grid]
    claims.append(
        Claim(
            text=f"f has no minimum on {domain}: its infimum {fmt(star_val)} is not attained.",
            holds=not attained,
            evidence=f"f({fmt(star)}) = {fmt(f(star))} attains it",
        )
    )
    claims.append(
        Claim(
            text=f"f(x) ≥ {fmt(star_val)} on {domain}, with equality at exactly two values of x.",
            holds=len(where) == 2,
            evidence=f"equality only at x = {', '.join(fmt(w) for w in where)} on the grid",
        )
    )
    return Draft(
        question=f"Let f(x) = {fx} for real {domain}. Which of the following statements is true?",
        claims=choose(rng, claims, rng.choice([4, 5])),
        theorem_types=("inequality", "AM-GM", "optimization"),
        theorem=theorem,
        sketch=sketch,
    )


# ---------------------------------------------------------------------- weighted product


def weighted_product(rng: random.Random, index: int) -> Draft:
    p, q = rng.sample(range(1, 6), 2)
    u = rng.randint(1, 3)
    total = 2 * p * q * u
    steps = 2 * (p + q) * 6
    grid = [Q(total, p) * Q(i, steps) for i in range(1, steps)]  # x in (0, S/p), y = (S - p x)/q
    f = lambda x: x * (total - p * x) / q
    best, where = _extremum(f, grid, maximum=True)
    pts = [(x, (total - p * x) / q) for x in where]
    star = (Q(total, 2 * p), Q(total, 2 * q))
    star_val = Q(total * total, 4 * p * q)
    eq = Q(total, p + q)
    n = len(grid)

    def claim(text: str, value: Q, at: list) -> Claim:
        holds = best == value and sorted(pts) == sorted(at)
        if holds:
            evidence = f"exact evaluation at {n} points of the constraint line"
        elif best != value:
            evidence = f"the maximum is {fmt(best)}, not {fmt(value)}"
        else:
            evidence = "the maximum is attained at " + ", ".join(_point(w) for w in pts)
        return Claim(text=text, holds=holds, evidence=evidence)

    claims = [
        claim(
            f"The maximum of xy is {fmt(star_val)}, attained only at x = {fmt(star[0])}, y = {fmt(star[1])}.", star_val, [star]
        ),
        claim(f"The maximum of xy is {fmt(eq * eq)}, attained only at x = y = {fmt(eq)}.", eq * eq, [(eq, eq)]),
        claim(f"The maximum of xy is {fmt(star_val)}, attained only at x = y = {fmt(eq)}.", star_val, [(eq, eq)]),
        claim(
            f"The maximum of xy is {fmt(Q(total * total, 4))}, attained only at x = y = {fmt(Q(total, 2))}.",
            Q(total * total, 4),
            [(Q(total, 2), Q(total, 2))],
        ),
        claim(
            f"The maximum of xy is {fmt(2 * star_val)}, attained only at x = {fmt(star[0])}, y = {fmt(star[1])}.",
            2 * star_val,
            [star],
        ),
        Claim(
            text=f"xy has no maximum under this constraint: its supremum {fmt(star_val)} is not attained.",
            holds=all(f(x) != star_val for x in grid),
            evidence=f"x = {fmt(star[0])}, y = {fmt(star[1])} satisfies the constraint and gives {fmt(f(star[0]))}",
        ),
    ]
    return Draft(
        question=f"Let x and y be positive real numbers with {p if p > 1 else ''}x + {q if q > 1 else ''}y = {total}. Which statement about the product xy is true?",
        claims=choose(rng, claims, rng.choice([4, 5])),
        theorem_types=("inequality", "AM-GM", "optimization"),
        theorem=f"AM-GM on {p}x and {q}y: {p}x·{q}y ≤ (({p}x + {q}y)/2)^2, with equality iff {p}x = {q}y.",
        sketch=f"xy = ({p}x)({q}y)/{p * q} ≤ ({total}/2)^2/{p * q} = {fmt(star_val)}, with equality iff {p}x = {q}y = {total // 2}.",
    )


# ---------------------------------------------------------------------- statements over the reals

HALF_GRID = [Q(i, 2) for i in range(-6, 7)]


def _sqrt_ge(lhs: Q, prod: Q) -> bool:
    """lhs ≥ sqrt(prod) for prod ≥ 0, exactly."""
    return lhs >= 0 and lhs * lhs >= prod


FORALL_TRUE = [
    ("For all real x and y, x^2 + y^2 ≥ 2xy.", lambda x, y: x * x + y * y >= 2 * x * y),
    ("For all real x and y, (x + y)^2 ≤ 2(x^2 + y^2).", lambda x, y: (x + y) ** 2 <= 2 * (x * x + y * y)),
    ("For all real x and y, |x + y| ≤ |x| + |y|.", lambda x, y: abs(x + y) <= abs(x) + abs(y)),
    ("For all real x and y, x^4 + y^4 ≥ x^3 y + x y^3.", lambda x, y: x**4 + y**4 >= x**3 * y + x * y**3),
    ("For all real x and y, ||x| - |y|| ≤ |x - y|.", lambda x, y: abs(abs(x) - abs(y)) <= abs(x - y)),
    (
        "For all nonnegative real x and y, x^3 + y^3 ≥ x^2 y + x y^2.",
        lambda x, y: x < 0 or y < 0 or x**3 + y**3 >= x * x * y + x * y * y,
    ),
    ("For all real x and y, x^2 + y^2 + 1 ≥ xy + x + y.", lambda x, y: x * x + y * y + 1 >= x * y + x + y),
    ("For all nonnegative real x and y, (x + y)/2 ≥ sqrt(xy).", lambda x, y: x < 0 or y < 0 or _sqrt_ge((x + y) / 2, x * y)),
]
FORALL_FALSE = [
    ("For all real x and y, x^3 + y^3 ≥ x^2 y + x y^2.", lambda x, y: x**3 + y**3 >= x * x * y + x * y * y),
    ("For all real x and y, x^2 + y^2 ≥ 3xy.", lambda x, y: x * x + y * y >= 3 * x * y),
    ("For all real x and y, (x + y)^2 ≤ x^2 + y^2.", lambda x, y: (x + y) ** 2 <= x * x + y * y),
    ("For all real x and y, |x - y| ≤ |x| - |y|.", lambda x, y: abs(x - y) <= abs(x) - abs(y)),
    ("For all real x and y, x^2 + y^2 > 2xy.", lambda x, y: x * x + y * y > 2 * x * y),
    ("For all real x and y, x^2 + y^2 + 1 > xy + x + y.", lambda x, y: x * x + y * y + 1 > x * y + x + y),
    ("For all real x and y with xy ≥ 0, (x + y)/2 ≥ sqrt(xy).", lambda x, y: x * y < 0 or _sqrt_ge((x + y) / 2, x * y)),
    ("For all real x and y, x^4 + y^4 ≥ 2x^3 y.", lambda x, y: x**4 + y**4 >= 2 * x**3 * y),
    ("For all real x and y, |x + y| < |x| + |y|.", lambda x, y: abs(x + y) < abs(x) + abs(y)),
]


def _check_grid(pred) -> tuple[bool, str]:
    for x, y in product(HALF_GRID, repeat=2):
        if not pred(x, y):
            return False, f"x = {fmt(x)}, y = {fmt(y)} violates it"
    return True, "exact check on the grid x, y in {-3, -5/2, …, 3}"


def real_statements(rng: random.Random, index: int) -> Draft:
    true_text, true_pred = FORALL_TRUE[index % len(FORALL_TRUE)]
    claims = []
    for text, pred in [(true_text, true_pred), *rng.sample(FORALL_FALSE, len(FORALL_FALSE))]:
        holds, why = _check_grid(pred)
        claims.append(Claim(text=text, holds=holds, evidence=why))
    return Draft(
        question="Which of the following statements is true?",
        claims=choose(rng, claims, rng.choice([4, 5, 6])),
        theorem_types=("inequality", "real inequalities"),
        theorem=true_text,
        sketch="Each true inequality is a sum of squares or the triangle inequality in disguise; "
        "check the stated domain and whether the inequality is strict (equality cases).",
    )


# ---------------------------------------------------------------------- equality cases

EqTheme = tuple[str, int, Callable, Callable, list[tuple[str, Callable]]]
SMALL = [Q(i) for i in range(-2, 3)]
NONNEG = [Q(i, 2) for i in range(7)]
POS = [Q(i, 2) for i in range(1, 7)]


def _eq_themes(n: int) -> list[tuple[str, list, Callable, list[tuple[str, Callable]]]]:
    """(statement, grid points, equality test, [(condition, predicate)]) — first condition is the intended one."""
    return [
        (
            "for nonnegative reals x and y, (x + y)/2 ≥ sqrt(xy)",
            list(product(NONNEG, repeat=2)),
            lambda x, y: ((x + y) / 2) ** 2 == x * y,
            [
                ("x = y", lambda x, y: x == y),
                ("x = y = 0", lambda x, y: x == 0 and y == 0),
                ("x = 0 or y = 0", lambda x, y: x == 0 or y == 0),
                ("x = 2y", lambda x, y: x == 2 * y),
                ("xy = 1", lambda x, y: x * y == 1),
            ],
        ),
        (
            "for real x and y, |x + y| ≤ |x| + |y|",
            list(product(HALF_GRID, repeat=2)),
            lambda x, y: abs(x + y) == abs(x) + abs(y),
            [
                ("xy ≥ 0", lambda x, y: x * y >= 0),
                ("xy > 0", lambda x, y: x * y > 0),
                ("x = y", lambda x, y: x == y),
                ("x ≥ 0 and y ≥ 0", lambda x, y: x >= 0 and y >= 0),
                ("x = -y", lambda x, y: x == -y),
            ],
        ),
        (
            "for real a, b, x, y, (ax + by)^2 ≤ (a^2 + b^2)(x^2 + y^2)",
            list(product(SMALL, repeat=4)),
            lambda a, b, x, y: (a * x + b * y) ** 2 == (a * a + b * b) * (x * x + y * y),
            [
                ("ay = bx", lambda a, b, x, y: a * y == b * x),
                ("a = x and b = y", lambda a, b, x, y: a == x and b == y),
                ("ax + by = 0", lambda a, b, x, y: a * x + b * y == 0),
                ("ay = -bx", lambda a, b, x, y: a * y == -b * x),
                ("a = b and x = y", lambda a, b, x, y: a == b and x == y),
            ],
        ),
        (
            "for real x, y, z, x^2 + y^2 + z^2 ≥ xy + yz + zx",
            list(product(SMALL, repeat=3)),
            lambda x, y, z: x * x + y * y + z * z == x * y + y * z + z * x,
            [
                ("x = y = z", lambda x, y, z: x == y == z),
                ("x + y + z = 0", lambda x, y, z: x + y + z == 0),
                ("x = y = z = 0", lambda x, y, z: x == y == z == 0),
                ("xyz = 0", lambda x, y, z: x * y * z == 0),
                ("two of x, y, z are equal", lambda x, y, z: x == y or y == z or x == z),
            ],
        ),
        (
            "for positive reals a and b, a/b + b/a ≥ 2",
            list(product(POS, repeat=2)),
            lambda a, b: a / b + b / a == 2,
            [
                ("a = b", lambda a, b: a == b),
                ("ab = 1", lambda a, b: a * b == 1),
                ("a = 2b", lambda a, b: a == 2 * b),
                ("a = b = 1", lambda a, b: a == b == 1),
                ("a + b = 2", lambda a, b: a + b == 2),
            ],
        ),
        (
            f"for real x ≥ -1, (1 + x)^{n} ≥ 1 + {n}x",
            [(Q(i, 2),) for i in range(-2, 9)],
            lambda x: (1 + x) ** n == 1 + n * x,
            [
                ("x = 0", lambda x: x == 0),
                ("x = -1", lambda x: x == -1),
                ("x = 0 or x = -1", lambda x: x in (0, -1)),
                ("x ≥ 0", lambda x: x >= 0),
                (f"x = {n}", lambda x: x == n),
            ],
        ),
    ]


def equality_cases(rng: random.Random, index: int) -> Draft:
    themes = _eq_themes(rng.randint(2, 6))
    statement, grid, is_eq, conditions = themes[index % len(themes)]
    claims = []
    for cond_text, pred in conditions:
        wrong = next((pt for pt in grid if is_eq(*pt) != pred(*pt)), None)
        if wrong is None:
            claims.append(
                Claim(
                    text=f"Exactly when {cond_text}.",
                    holds=True,
                    evidence=f"equality and the condition agree at all {len(grid)} grid points",
                )
            )
        else:
            kind = "equality holds but the condition fails" if is_eq(*wrong) else "the condition holds but equality fails"
            claims.append(Claim(text=f"Exactly when {cond_text}.", holds=False, evidence=f"at {_point(wrong)} {kind}"))
    never = next((pt for pt in grid if is_eq(*pt)), None)
    claims.append(
        Claim(
            text="Never: the inequality is always strict.",
            holds=never is None,
            evidence=f"equality holds at {_point(never)}" if never is not None else "no equality point on the grid",
        )
    )
    return Draft(
        question=f"It is a theorem that {statement}. When does equality hold?",
        claims=choose(rng, claims, rng.choice([4, 5, 6])),
        theorem_types=("inequality", "equality cases"),
        theorem=f"{statement[0].upper()}{statement[1:]}, with equality exactly when {conditions[0][0]}.",
        sketch="Write the difference of the two sides as a sum of squares (or use the equality case of the triangle/"
        "Bernoulli inequality) and read off when every square vanishes.",
    )


FAMILIES = [
    ("in-recip", 10, reciprocal_minimum),
    ("in-product", 10, weighted_product),
    ("in-forall", 10, real_statements),
    ("in-equality", 10, equality_cases),
]
