"""Evaluation subsets: seeded and stratified by task type (upstream takes the first N)."""

from __future__ import annotations

import random
from collections import defaultdict

from skillopt.records import Task


def subset(tasks: list[Task], n: int, seed: int) -> list[Task]:
    """``n`` tasks (0 = all), spread over task types in proportion, in a stable order."""
    if not n or n >= len(tasks):
        return list(tasks)
    groups: dict[str, list[Task]] = defaultdict(list)
    for t in tasks:
        groups[t.task_type].append(t)
    rng = random.Random(seed + 4242)
    for items in groups.values():
        rng.shuffle(items)
    chosen: list[Task] = []
    kinds = sorted(groups)
    while len(chosen) < n:
        for kind in kinds:
            if groups[kind] and len(chosen) < n:
                chosen.append(groups[kind].pop())
    order = {t.id: i for i, t in enumerate(tasks)}
    return sorted(chosen, key=lambda t: order[t.id])
