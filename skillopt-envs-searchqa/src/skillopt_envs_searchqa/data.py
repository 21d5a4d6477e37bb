"""Where SearchQA items come from, and turning them into :class:`Task` records.

Item schema (upstream's, one JSON object per item): ``id``, ``question``, ``context``
(snippets as ``[DOC] [TLE] title [PAR] text`` blocks) and ``answers`` (a list of
accepted answers, or one string). Optional: ``task_type``, ``reference`` (optimizer-only
notes), ``split``.

Sources, first match wins:

1. ``env.data_path`` / ``env.split_dir``: a split directory (``train/items.json`` ...),
   or one JSON/JSONL file whose items carry ``split`` or are cut by ``env.split_ratio``;
2. ``env.data = "sample"``: the bundled synthetic sample;
3. the materialised real data (``skillopt searchqa materialize``), when present;
   ``env.data = "real"`` makes it required;
4. otherwise (``env.data = "auto"``) the bundled sample.
"""

from __future__ import annotations

import random
from importlib import resources
from pathlib import Path
from typing import Any

import attrs

from skillopt.errors import ConfigError
from skillopt.records import Task

SPLITS = ("train", "val", "test")
REQUIRED_FIELDS = ("id", "question", "context", "answers")
DATA_CHOICES = ("auto", "sample", "real")
SAMPLE_PACKAGE = "skillopt_envs_searchqa"


def default_materialized_dir() -> Path:
    """Where ``skillopt searchqa materialize`` writes by default (under the user data dir)."""
    from skillopt import paths

    return paths.data_dir() / "envs" / "searchqa" / "searchqa_split"


def is_split_dir(path: Path) -> bool:
    from skillopt.envs import split_file

    try:
        for split in SPLITS:
            split_file(path, split)
    except ConfigError:
        return False
    return True


@attrs.frozen(kw_only=True)
class DataSource:
    """One resolved data source; ``describe()`` is what the run prints."""

    kind: str  # "sample", "split-dir", "file", "materialized"
    path: Path | None = None
    ratio: str = "2:1:7"
    seed: int = 42

    def describe(self) -> str:
        if self.kind == "sample":
            return "bundled synthetic sample (CC0-1.0, not the real SearchQA benchmark)"
        if self.kind == "materialized":
            return f"real SearchQA, materialized at {self.path}"
        if self.kind == "split-dir":
            return f"split directory {self.path}"
        return f"items file {self.path}"

    @property
    def is_sample(self) -> bool:
        return self.kind == "sample"


def resolve_source(config) -> DataSource:
    """The data source ``config`` (a SearchQAConfig) points at; errors say what to fix."""
    data = config.data
    if data not in DATA_CHOICES:
        raise ConfigError(f"env.data must be one of {', '.join(DATA_CHOICES)}, not {data!r}")
    explicit = config.data_path or config.split_dir
    if config.data_path and config.split_dir:
        raise ConfigError("set env.data_path or env.split_dir, not both")
    if explicit:
        path = Path(explicit).expanduser()
        key = "env.data_path" if config.data_path else "env.split_dir"
        if path.is_dir():
            if not is_split_dir(path):
                raise ConfigError(
                    f"{key}={path} is a directory without train/val/test items "
                    "(expected train/items.json, val/items.json, test/items.json or train.jsonl ...)"
                )
            return DataSource(kind="split-dir", path=path)
        if path.is_file():
            if config.split_dir:
                raise ConfigError(f"env.split_dir={path} is a file; use env.data_path for one items file")
            return DataSource(kind="file", path=path, ratio=config.split_ratio, seed=config.split_seed)
        raise ConfigError(f"{key}: no such file or directory: {path}")
    if data == "sample":
        return DataSource(kind="sample")
    materialized = default_materialized_dir()
    if is_split_dir(materialized):
        return DataSource(kind="materialized", path=materialized)
    if data == "real":
        raise ConfigError(
            "env.data=real (the paper preset) needs the real SearchQA data, and none is materialized at "
            f"{materialized}. Run `skillopt searchqa materialize` (needs `pip install datasets` and network), "
            "or point --set env.data_path=FILE.jsonl at your own items; or use the bundled sample with "
            "--preset small (or --set env.data=sample)."
        )
    return DataSource(kind="sample")


# --------------------------------------------------------------------------- items -> tasks


def check_item(item: Any, where: str) -> dict[str, Any]:
    """An item with the required fields, or a ConfigError naming what is missing."""
    if not isinstance(item, dict):
        raise ConfigError(f"{where}: expected a JSON object, got {type(item).__name__}")
    missing = [f for f in REQUIRED_FIELDS if f not in item]
    if missing:
        raise ConfigError(f"{where}: missing field(s) {', '.join(missing)} (SearchQA items need {', '.join(REQUIRED_FIELDS)})")
    answers = item["answers"]
    if isinstance(answers, str):
        answers = [answers]
    if not isinstance(answers, list) or not [a for a in answers if str(a).strip()]:
        raise ConfigError(f"{where}: 'answers' must be a non-empty list of strings")
    if not str(item["question"]).strip():
        raise ConfigError(f"{where}: empty 'question'")
    return {**item, "answers": [str(a) for a in answers]}


def item_to_task(item: dict[str, Any], split: str, where: str) -> Task:
    item = check_item(item, where)
    return Task(
        id=str(item["id"]),
        inputs={"question": str(item["question"]), "context": str(item["context"] or "")},
        gold=list(item["answers"]),
        task_type=str(item.get("task_type") or "qa"),
        reference=str(item.get("reference") or ""),
        split=split,
    )


def tasks_from_items(items: list[Any], split: str, origin: str) -> list[Task]:
    tasks = [item_to_task(item, split, f"{origin} item {i + 1}") for i, item in enumerate(items)]
    seen: set[str] = set()
    for task in tasks:
        if task.id in seen:
            raise ConfigError(f"{origin}: duplicate item id {task.id!r}")
        seen.add(task.id)
    return tasks


# --------------------------------------------------------------------------- loading


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


def split_by_ratio(items: list[dict], ratio: tuple[int, int, int], seed: int) -> dict[str, list[dict]]:
    order = list(items)
    random.Random(seed).shuffle(order)
    n_train, n_val, _ = ratio_counts(len(order), ratio)
    return {"train": order[:n_train], "val": order[n_train : n_train + n_val], "test": order[n_train + n_val :]}


def load_source(source: DataSource, split: str) -> list[Task]:
    from skillopt.envs import canonical_split, read_items, split_file

    if source.kind == "sample":
        node = resources.files(SAMPLE_PACKAGE).joinpath("data", "sample", f"{split}.json")
        import json

        return tasks_from_items(json.loads(node.read_text(encoding="utf-8")), split, f"bundled sample {split}.json")
    if source.kind in ("split-dir", "materialized"):
        path = split_file(source.path, split)
        return tasks_from_items(_read(path, read_items), split, str(path))
    items = _read(source.path, read_items)
    if items and all(isinstance(i, dict) and "split" in i for i in items):
        chosen = [i for i in items if canonical_split(str(i["split"])) == split]
    else:
        chosen = split_by_ratio(items, parse_ratio(source.ratio), source.seed)[split]
    return tasks_from_items(chosen, split, str(source.path))


def _read(path: Path, reader) -> list[Any]:
    import json

    try:
        return reader(path)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not valid JSON/JSONL ({exc})") from None
