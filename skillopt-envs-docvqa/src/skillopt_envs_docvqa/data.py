"""Where the items come from: the bundled synthetic set, or ``env.split_dir``.

``env.split_dir`` holds one file per split: upstream's CSV (``train.csv`` or
``train/*.csv``), or normalised JSON items (``train/items.json``, ``train.jsonl`` ...) with
``id``, ``question``, ``answers``, ``topic``, ``image`` and optionally ``layout``/``ocr``,
the format of the bundled set. Without ``split_dir`` the bundled set is used.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from skillopt.envs import read_items, split_file
from skillopt.errors import ConfigError
from skillopt_envs_docvqa.items import DocItem, read_ocr_file, resolve_path, search_bases, sidecar_ocr
from skillopt_envs_docvqa.scoring import gold_list
from skillopt_envs_docvqa.upstream import load_csv

SAMPLE = "sample"


def bundled_root() -> Path:
    return Path(str(resources.files("skillopt_envs_docvqa").joinpath("data", SAMPLE)))


def csv_file(root: Path, split: str) -> Path | None:
    """The split's CSV under ``root``, if it has one."""
    direct = root / f"{split}.csv"
    if direct.is_file():
        return direct
    found = sorted((root / split).glob("*.csv")) if (root / split).is_dir() else []
    return found[0] if found else None


def load_items(split: str, *, split_dir: str = "", data_dir: str = "") -> list[DocItem]:
    root = Path(split_dir).expanduser() if split_dir else bundled_root()
    if split_dir and not root.is_dir():
        raise ConfigError(f"env.split_dir: no such directory: {root}")
    found = csv_file(root, split)
    if found is not None:
        return load_csv(found, data_dir)
    path = split_file(root, split)
    return [item_from_row(row, index, path, data_dir) for index, row in enumerate(read_items(path))]


def item_from_row(row: Any, index: int, path: Path, data_dir: str = "") -> DocItem:
    """A normalised JSON row as an item (paths relative to the items file's folder)."""
    where = f"{path} item {index + 1}"
    if not isinstance(row, dict):
        raise ConfigError(f"{where}: expected a JSON object, got {type(row).__name__}")
    item_id = str(row.get("id") or row.get("questionId") or "").strip()
    if not item_id:
        raise ConfigError(f"{where}: no 'id'")
    where = f"{where} (id {item_id})"
    question = str(row.get("question") or "").strip()
    if not question:
        raise ConfigError(f"{where}: no 'question'")
    answers = gold_list(row.get("answers", row.get("answer", row.get("ground_truth"))))
    if not answers:
        raise ConfigError(f"{where}: no 'answers'")
    image_ref = str(row.get("image") or row.get("image_path") or "").strip()
    if not image_ref:
        raise ConfigError(f"{where}: no 'image'")
    bases = search_bases(path.parent, data_dir)
    image = resolve_path(image_ref, bases=bases, what="image", where=where)
    if row.get("ocr"):
        ocr: str | None = str(row["ocr"])
    elif row.get("layout"):
        ocr = read_ocr_file(resolve_path(str(row["layout"]), bases=bases, what="layout file", where=where))
    else:
        ocr = sidecar_ocr(image)
    return DocItem(
        id=item_id,
        question=question,
        answers=tuple(answers),
        topic=str(row.get("topic") or "default"),
        image=image,
        doc_id=str(row.get("doc_id") or image.stem),
        ocr=ocr,
    )
