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

from skillopt.api import ConfigError
from skillopt_envs_docvqa.items import DocItem, read_ocr_file, resolve_path, search_bases, sidecar_ocr
from skillopt_envs_docvqa.scoring import gold_list


def bundled_root() -> Path:
    return Path(str(resources.files("skillopt_envs_docvqa").joinpath("data", "sample")))


def csv_file(root: Path, split: str) -> Path | None:
    """The split's CSV under ``root``, if it has one."""
    direct = root / f"{split}.csv"
    if direct.is_file():
        return direct
    found = sorted((root / split).glob("*.csv")) if (root / split).is_dir() else []
    return found[0] if found else None


def item_from_row(row: dict[str, Any], folder: Path, data_dir: str = "") -> DocItem:
    """A normalised JSON row as an item (paths relative to ``folder``, the items file's)."""
    item_id = str(row.get("id") or row.get("questionId") or "").strip()
    if not item_id:
        raise ConfigError("no 'id'")
    where = f"id {item_id}"
    question = str(row.get("question") or "").strip()
    if not question:
        raise ConfigError(f"{where}: no 'question'")
    answers = gold_list(row.get("answers", row.get("answer", row.get("ground_truth"))))
    if not answers:
        raise ConfigError(f"{where}: no 'answers'")
    image_ref = str(row.get("image") or row.get("image_path") or "").strip()
    if not image_ref:
        raise ConfigError(f"{where}: no 'image'")
    bases = search_bases(folder, data_dir)
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
