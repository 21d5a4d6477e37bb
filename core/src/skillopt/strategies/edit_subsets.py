"""``edit-subsets``: one merge, and proposals that apply different subsets of its edits.

The ranking keeps the step's top edits up to the budget; when one of them hurts, the
whole candidate is rejected and the good edits with it. This sampler keeps the
ranking's choice as the first proposal and adds others from the same merged edits: when
the merge offers more edits than the budget, other budget-sized subsets (seeded draws,
each distinct); when everything fits, the choice minus one edit each (so a harmful edit
is left out of one of them). The candidates race on the same val items, so a subset
without the harmful edit can win where the full set would have lost.
"""

from __future__ import annotations

import itertools
import math
import random
from typing import TYPE_CHECKING, Any

import attrs

from skillopt.hookspecs import hookimpl
from skillopt.strategies import Sampler

if TYPE_CHECKING:
    from collections.abc import Callable

    from skillopt.hookspecs import Register
    from skillopt.records import Patch


#: seeded draws tried when the subsets are too many to list
DRAWS = 200


def _field(patch: Patch) -> str:
    """What a subset varies: bounded edits, else a rewrite's suggestions ('' = neither)."""
    return "edits" if patch.edits else ("suggestions" if patch.suggestions else "")


def subsets(n: int, size: int, k: int, seed: int, exclude: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Up to ``k`` distinct sorted index subsets of ``range(n)`` of ``size``, none equal to
    ``exclude``, in a seeded order."""
    rng = random.Random(seed)
    taken = {tuple(sorted(exclude))}
    out: list[tuple[int, ...]] = []
    if math.comb(n, size) <= DRAWS:
        pool = [c for c in itertools.combinations(range(n), size) if c not in taken]
        rng.shuffle(pool)
        return pool[:k]
    for _ in range(DRAWS):
        pick = tuple(sorted(rng.sample(range(n), size)))
        if pick not in taken:
            taken.add(pick)
            out.append(pick)
            if len(out) >= k:
                break
    return out


class EditSubsets(Sampler):
    """K proposals from one merge: the ranking's choice, then other subsets of the merged edits."""

    name = "edit-subsets"
    summary = "K proposals per step from one merge: the ranked edits, then other subsets of the merged edits (P x N)"

    def variants(self, merged: Patch, selected: Patch, budget: int | None, k: int, seed: int) -> tuple[Patch, ...]:
        field = _field(merged)
        if k <= 1 or not field:
            return (selected,)
        offered, chosen = getattr(merged, field), getattr(selected, field)
        index = {item: i for i, item in reversed(list(enumerate(offered)))}
        picked = tuple(index[c] for c in chosen if c in index)
        if len(offered) > len(chosen) and chosen:
            others = subsets(len(offered), len(chosen), k - 1, seed, picked)
        elif len(chosen) >= 2:
            others = [tuple(i for i in picked if i != drop) for drop in picked][: k - 1]
        else:
            others = []
        subset_of: Callable[[tuple[int, ...]], dict[str, Any]] = lambda subset: {field: tuple(offered[i] for i in subset)}
        return (selected, *(attrs.evolve(selected, **subset_of(subset)) for subset in others))


@hookimpl
def skillopt_register_strategies(register: Register[type[Sampler]]) -> None:
    register(EditSubsets)
