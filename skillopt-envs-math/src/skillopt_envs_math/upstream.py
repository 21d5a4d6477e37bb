"""Loading the real LiveMathematicianBench by the upstream ID manifests.

The benchmark is four monthly files ``data/YYYYMM/qa_YYYYMM_final.json`` (JSON arrays).
An item's id is ``<month>:<no>``, and the month is taken from the *file name*: upstream
reads it from the row, where it may be missing, so ids of different months collide.
The manifests (shipped in this package) fix which ids form train/val/test; a manifest
id that the files do not hold is an error naming it, never a silently smaller split.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

from skillopt.api import ConfigError
from skillopt_envs_math.items import MathItem, item_from_row

MONTHLY_FILE = re.compile(r"^qa_(\d{6})_final\.json$")
MANIFEST = "livemathematicianbench_id_split"


def bundled_manifest_dir():
    """The upstream ID split shipped inside this package."""
    return resources.files("skillopt_envs_math").joinpath("data", MANIFEST)


def read_manifest(root, split: str) -> list[dict[str, Any]]:
    """Manifest entries of ``split`` (``{id, month, no, source_file, paper_link}``)."""
    node = root.joinpath(split, "items.json")
    if not node.is_file():
        raise ConfigError(f"manifest {root}: no {split}/items.json")
    entries = json.loads(node.read_text(encoding="utf-8"))
    if not isinstance(entries, list):
        raise ConfigError(f"manifest {root}/{split}/items.json must be a JSON array")
    for entry in entries:
        if not isinstance(entry, dict) or not str(entry.get("id", "")).count(":") == 1:
            raise ConfigError(f"manifest {root}/{split}/items.json: bad entry {entry!r} (need an id '<month>:<no>')")
    return entries


def monthly_files(data_path: Path) -> dict[str, Path]:
    """``month -> file`` for every ``qa_YYYYMM_final.json`` at or below ``data_path``."""
    if data_path.is_file():
        found = [data_path]
    elif data_path.is_dir():
        found = sorted(p for p in data_path.rglob("qa_*_final.json") if p.is_file())
    else:
        raise ConfigError(f"env.data_path: no such file or directory: {data_path}")
    months: dict[str, Path] = {}
    for path in found:
        match = MONTHLY_FILE.match(path.name)
        if not match:
            raise ConfigError(f"env.data_path: {path.name} is not named qa_YYYYMM_final.json")
        month = match.group(1)
        if month in months:
            raise ConfigError(f"env.data_path: month {month} appears twice: {months[month]} and {path}")
        months[month] = path
    return months


def _rows(path: Path) -> list[Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: invalid JSON: {exc}") from None
    if isinstance(data, dict):
        for key in ("items", "data", "questions"):
            if isinstance(data.get(key), list):
                return data[key]
    if not isinstance(data, list):
        raise ConfigError(f"{path}: expected a JSON array of questions")
    return data


def load_month(path: Path, month: str) -> dict[str, MathItem]:
    """Every item of one monthly file, keyed ``<month>:<no>`` (``no`` = row number from 1 if absent)."""
    items: dict[str, MathItem] = {}
    for index, row in enumerate(_rows(path)):
        number = row.get("no", index + 1) if isinstance(row, dict) else index + 1
        item_id = f"{month}:{number}"
        if item_id in items:
            raise ConfigError(f"{path}: two rows have no={number}")
        items[item_id] = item_from_row(row, item_id=item_id, source=str(path))
    return items


def load_split(data_path: Path, split: str, manifest_root=None) -> list[MathItem]:
    """The items of ``split`` in manifest order, read from the monthly files under ``data_path``."""
    root = manifest_root if manifest_root is not None else bundled_manifest_dir()
    entries = read_manifest(root, split)
    files = monthly_files(data_path)
    wanted_months = sorted({e["id"].split(":")[0] for e in entries})
    absent = [m for m in wanted_months if m not in files]
    if absent:
        raise ConfigError(
            f"env.data_path={data_path}: no qa_<month>_final.json for month(s) {', '.join(absent)} "
            f"(needed by split '{split}'; found months: {', '.join(sorted(files)) or 'none'})"
        )
    by_id: dict[str, MathItem] = {}
    for month in wanted_months:
        by_id.update(load_month(files[month], month))
    missing = [e["id"] for e in entries if e["id"] not in by_id]
    if missing:
        raise ConfigError(
            f"{len(missing)} id(s) of split '{split}' are not in the files under {data_path}: "
            f"{', '.join(missing[:5])}{' …' if len(missing) > 5 else ''}; check that the files match the "
            "manifest's source revision, or pass env.manifest_dir for a different split"
        )
    return [by_id[e["id"]] for e in entries]
