"""Items from upstream's CSV/JSON rows (or the bundled sample) as :class:`Task` records.

Row fields (upstream's names, alternatives after ``|``): ``uid|id``, ``question|prompt``,
``ground_truth|answer``, ``category|difficulty`` (the task type, e.g. easy/hard),
``source_files`` and ``source_docs`` (a JSON list, a newline-separated list or a
comma-separated list), optional ``reference``. Files: ``.csv`` (UTF-8, header row),
``.json`` (an array, or ``{"items": [...]}``) or ``.jsonl``.

Sources, first one set wins (the env's split-source chain, see :class:`OfficeQAEnv`):

1. ``env.split_dir``: ``train``/``val``/``test`` each as ``<split>/items.{json,jsonl,csv}``
   or ``<split>.{json,jsonl,csv}``;
2. ``env.data_path``: one file (e.g. upstream's ``officeqa_full.csv``) or a folder holding
   exactly one. Rows with a ``split``/``source_split`` column are split by it; otherwise, if
   any id is in the bundled upstream ID manifest (or ``env.manifest_dir``), by the manifest
   (every manifest id must be present); otherwise by ``env.split_ratio`` and ``env.split_seed``;
3. the bundled synthetic sample (its documents are bundled too).
"""

from __future__ import annotations

import csv
import json
import random
from importlib import resources
from pathlib import Path
from typing import Any

from skillopt.api import SPLITS, ConfigError, Task, canonical_split

ITEM_SUFFIXES = (".json", ".jsonl", ".csv")
PACKAGE = "skillopt_envs_officeqa"


def bundled_dir(*parts: str) -> Path:
    return Path(str(resources.files(PACKAGE).joinpath("data", *parts)))


def parse_list(value: Any) -> list[str]:
    """A JSON list, a newline list or a comma list (upstream's three spellings) as strings."""
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [str(v).strip() for v in value if str(v).strip()]
    text = str(value).strip()
    if not text:
        return []
    if text.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, list):
            return [str(v).strip() for v in data if str(v).strip()]
    separator = "\n" if "\n" in text else ","
    return [part.strip().strip("'\"") for part in text.split(separator) if part.strip().strip("'\"")]


def _first(row: dict, *keys: str) -> Any:
    for key in keys:
        value = row.get(key)
        if value is not None and str(value).strip() != "":
            return value
    return None


def row_to_task(row: dict, split: str) -> Task:
    """One row as a Task (the env's ``to_task``; the core names the file and the row)."""
    uid = _first(row, "uid", "id")
    question = _first(row, "question", "prompt")
    answer = _first(row, "ground_truth", "answer")
    missing = [name for name, value in (("uid|id", uid), ("question", question), ("ground_truth|answer", answer)) if value is None]
    if missing:
        raise ConfigError(f"missing {', '.join(missing)} (OfficeQA rows need uid, question and ground_truth)")
    files = parse_list(row.get("source_files"))
    docs = parse_list(row.get("source_docs"))
    category = str(_first(row, "category", "difficulty") or "default").strip().lower()
    reference = str(row.get("reference") or "").strip()
    if not reference:
        reference = f"Gold answer {answer}; source files: {', '.join(files) or '(none listed)'}; pages: {', '.join(docs) or '(none listed)'}"
    return Task(
        id=str(uid).strip(),
        inputs={"question": str(question).strip(), "source_files": files, "source_docs": docs},
        gold=str(answer).strip(),
        task_type=category,
        reference=reference,
        split=split,
    )


def read_rows(path: Path) -> list[Any]:
    """Rows of a CSV, JSON or JSONL file; errors name the file and the problem."""
    try:
        if path.suffix.lower() == ".csv":
            with path.open(encoding="utf-8-sig", newline="") as handle:
                return list(csv.DictReader(handle))
        text = path.read_text(encoding="utf-8-sig")
        if path.suffix.lower() == ".jsonl":
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError, csv.Error) as exc:
        raise ConfigError(f"{path}: cannot read items ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        data = data["items"]
    if not isinstance(data, list):
        raise ConfigError(f"{path}: expected a JSON array of items (or {{\"items\": [...]}})")
    return data


def split_dir_file(root: Path, split: str) -> Path:
    candidates = [root / split / f"items{s}" for s in ITEM_SUFFIXES] + [root / f"{split}{s}" for s in ITEM_SUFFIXES]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise ConfigError(f"env.split_dir: no items for split '{split}' under {root} (looked for {split}/items.json|jsonl|csv, {split}.json|jsonl|csv)")


def data_file(path: Path) -> Path:
    if path.is_file():
        return path
    if path.is_dir():
        found = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in ITEM_SUFFIXES)
        if len(found) == 1:
            return found[0]
        raise ConfigError(f"env.data_path={path} must hold exactly one .csv/.json/.jsonl items file, found {len(found)}")
    raise ConfigError(f"env.data_path: no such file or directory: {path}")


def manifest_ids(manifest_dir: Path) -> dict[str, list[str]]:
    out = {}
    for split in SPLITS:
        rows = read_rows(split_dir_file(manifest_dir, split))
        out[split] = [str(_first(r, "uid", "id")) for r in rows if isinstance(r, dict)]
    return out


def ratio_counts(n: int, ratio: tuple[int, ...]) -> list[int]:
    """Largest-remainder counts (ties go to the larger weight, then the earlier split)."""
    total = sum(ratio)
    exact = [n * r / total for r in ratio]
    counts = [int(x) for x in exact]
    for i in sorted(range(len(ratio)), key=lambda i: (-(exact[i] - counts[i]), -ratio[i], i))[: n - sum(counts)]:
        counts[i] += 1
    return counts


def parse_ratio(text: str) -> tuple[int, int, int]:
    try:
        parts = tuple(int(p) for p in str(text).split(":"))
    except ValueError:
        parts = ()
    if len(parts) != 3 or min(parts) < 0 or sum(parts) == 0:
        raise ConfigError(f"env.split_ratio must look like train:val:test (e.g. 2:1:7), not {text!r}")
    return parts  # type: ignore[return-value]


def choose_split(rows: list[Any], split: str, *, origin: str, manifest_dir: Path | None, ratio: str, seed: int) -> list[Any]:
    """The rows of ``split``: by their own split column, the ID manifest, or the ratio."""
    dict_rows = [r for r in rows if isinstance(r, dict)]
    column = next((c for c in ("split", "source_split") if dict_rows and all(str(r.get(c) or "").strip() for r in dict_rows)), None)
    if column:
        return [r for r in dict_rows if canonical_split(str(r[column]).strip()) == split]
    manifest = manifest_ids(manifest_dir or bundled_dir("officeqa_id_split"))
    by_id = {str(_first(r, "uid", "id")): r for r in dict_rows}
    if manifest_dir is not None or any(i in by_id for ids in manifest.values() for i in ids):
        missing = [i for i in manifest[split] if i not in by_id]
        if missing:
            raise ConfigError(f"{origin}: {len(missing)} id(s) of the '{split}' manifest are missing, e.g. {', '.join(missing[:5])}")
        return [by_id[i] for i in manifest[split]]
    order = list(rows)
    random.Random(seed).shuffle(order)
    n_train, n_val, _ = ratio_counts(len(order), parse_ratio(ratio))
    return {"train": order[:n_train], "val": order[n_train : n_train + n_val], "test": order[n_train + n_val :]}[split]


def data_path_rows(config, path: Path, split: str) -> tuple[list[Any], str]:
    """(rows of ``split``, the file they come from) for ``env.data_path``."""
    file = data_file(path)
    manifest = Path(config.manifest_dir).expanduser() if config.manifest_dir else None
    if manifest is not None and not manifest.is_dir():
        raise ConfigError(f"env.manifest_dir: no such directory: {manifest}")
    rows = choose_split(read_rows(file), split, origin=str(file), manifest_dir=manifest, ratio=config.split_ratio, seed=config.split_seed)
    return rows, str(file)
