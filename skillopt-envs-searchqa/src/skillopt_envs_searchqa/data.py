"""SearchQA items: turning one item row into a :class:`Task`, and where the real data live.

Item schema (upstream's, one JSON object per item): ``id``, ``question``, ``context``
(snippets as ``[DOC] [TLE] title [PAR] text`` blocks) and ``answers`` (a list of
accepted answers, or one string). Optional: ``task_type``, ``reference`` (optimizer-only
notes), ``split``.

Sources (the core's chain, see :class:`~skillopt_envs_searchqa.env.SearchQAEnv`), first
match wins:

1. ``env.data_path`` / ``env.split_dir``: a split directory (``train/items.json`` ...),
   or one JSON/JSONL file whose items carry ``split`` or are cut by ``env.split_ratio``;
2. ``env.data = "sample"``: the bundled synthetic sample;
3. the materialised real data (``skillopt searchqa materialize``), when present;
   ``env.data = "real"`` makes it required;
4. otherwise (``env.data = "auto"``) the bundled sample.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from skillopt.api import ConfigError, Task

SPLITS = ("train", "val", "test")
REQUIRED_FIELDS = ("id", "question", "context", "answers")
DATA_CHOICES = ("auto", "sample", "real")


def default_materialized_dir() -> Path:
    """Where ``skillopt searchqa materialize`` writes by default (under the user data dir)."""
    from skillopt.api import data_dir

    return data_dir() / "envs" / "searchqa" / "searchqa_split"


def is_split_dir(path: Path) -> bool:
    from skillopt.api import split_file

    try:
        for split in SPLITS:
            split_file(path, split)
    except ConfigError:
        return False
    return True


# --------------------------------------------------------------------------- items -> tasks


def item_to_task(item: dict[str, Any], split: str) -> Task:
    """A task from one item row; a ConfigError says what is missing or empty."""
    missing = [f for f in REQUIRED_FIELDS if f not in item]
    if missing:
        raise ConfigError(f"missing field(s) {', '.join(missing)} (SearchQA items need {', '.join(REQUIRED_FIELDS)})")
    answers = item["answers"]
    if isinstance(answers, str):
        answers = [answers]
    if not isinstance(answers, list) or not [a for a in answers if str(a).strip()]:
        raise ConfigError("'answers' must be a non-empty list of strings")
    if not str(item["question"]).strip():
        raise ConfigError("empty 'question'")
    return Task(
        id=str(item["id"]),
        inputs={"question": str(item["question"]), "context": str(item["context"] or "")},
        gold=[str(a) for a in answers],
        task_type=str(item.get("task_type") or "qa"),
        reference=str(item.get("reference") or ""),
        split=split,
    )


# --------------------------------------------------------------------------- one items file without splits


def parse_ratio(text: str) -> tuple[int, int, int]:
    try:
        parts = tuple(int(p) for p in str(text).split(":"))
    except ValueError:
        parts = ()
    if len(parts) != 3 or any(p < 0 for p in parts) or sum(parts) == 0:
        raise ConfigError(f"env.split_ratio must look like train:val:test with whole numbers (e.g. 2:1:7), not {text!r}")
    return parts  # type: ignore[return-value]


def ratio_counts(n: int, ratio: tuple[int, int, int]) -> tuple[int, int, int]:
    """Largest-remainder counts for ``n`` items (ties go to the larger weight, then the earlier split)."""
    total = sum(ratio)
    exact = [n * r / total for r in ratio]
    counts = [int(x) for x in exact]
    order = sorted(range(3), key=lambda i: (-(exact[i] - counts[i]), -ratio[i], i))
    for i in order[: n - sum(counts)]:
        counts[i] += 1
    return counts[0], counts[1], counts[2]


def split_by_ratio(items: list[Any], ratio: tuple[int, int, int], seed: int) -> dict[str, list[Any]]:
    order = list(items)
    random.Random(seed).shuffle(order)
    n_train, n_val, _ = ratio_counts(len(order), ratio)
    return {"train": order[:n_train], "val": order[n_train : n_train + n_val], "test": order[n_train + n_val :]}
