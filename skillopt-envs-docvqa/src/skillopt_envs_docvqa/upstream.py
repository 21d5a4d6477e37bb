"""Upstream's DocVQA CSV format, one file per split.

Columns: ``questionId`` or ``id``; ``question``, optionally ending in a ``document_path:
<path>`` tail that names the image (split off here); ``answer`` or ``ground_truth``, a
Python-literal (or JSON) list string such as ``"['1,250.00', '$1,250.00']"``;
``image_path`` (wins over the tail); ``topic`` (the task type, e.g. ``table/list``,
optional). Optional extras read here: ``docId`` and ``ocr_path`` (a layout JSON or text
file with the page's OCR). Relative paths resolve against ``env.data_dir``, then the CSV's
folder.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from skillopt.api import ConfigError
from skillopt_envs_docvqa.items import DocItem, read_ocr_file, resolve_path, search_bases, sidecar_ocr
from skillopt_envs_docvqa.scoring import gold_list

_DOCUMENT_PATH = re.compile(r"\s*\bdocument_path\s*:\s*", re.IGNORECASE)
ID_COLUMNS = ("questionId", "id")
ANSWER_COLUMNS = ("answer", "ground_truth", "answers")


def split_question(text: str) -> tuple[str, str]:
    """``(question, document path)``; the path is ``""`` when there is no tail."""
    m = _DOCUMENT_PATH.search(text or "")
    if not m:
        return (text or "").strip(), ""
    return text[: m.start()].strip(), text[m.end() :].strip()


def _first_column(header: list[str], names: tuple[str, ...], path: Path) -> str:
    for name in names:
        if name in header:
            return name
    raise ConfigError(f"{path}: missing column {' or '.join(repr(n) for n in names)} (the CSV has: {', '.join(header) or 'no header'})")


def load_csv(path: Path, data_dir: str = "") -> list[DocItem]:
    """Every row of one split's CSV as an item; any bad row is an error naming it."""
    path = Path(path)
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            header = list(reader.fieldnames or [])
            rows = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ConfigError(f"{path}: cannot read the CSV ({exc})") from exc
    id_col = _first_column(header, ID_COLUMNS, path)
    _first_column(header, ("question",), path)
    answer_col = _first_column(header, ANSWER_COLUMNS, path)
    bases = search_bases(path.parent, data_dir)
    items = []
    for number, row in enumerate(rows, 2):  # line 1 is the header
        item_id = (row.get(id_col) or "").strip()
        where = f"{path} line {number}" + (f" (id {item_id})" if item_id else "")
        if not item_id:
            raise ConfigError(f"{where}: empty {id_col!r}")
        question, tail = split_question(row.get("question") or "")
        if not question:
            raise ConfigError(f"{where}: empty 'question'")
        answers = gold_list(row.get(answer_col) or "")
        if not answers:
            raise ConfigError(f"{where}: no answer in {answer_col!r}")
        image_ref = (row.get("image_path") or "").strip() or tail
        if not image_ref:
            raise ConfigError(f"{where}: no image (empty 'image_path' and no 'document_path:' in the question)")
        image = resolve_path(image_ref, bases=bases, what="image", where=where)
        ocr_ref = (row.get("ocr_path") or "").strip()
        ocr = read_ocr_file(resolve_path(ocr_ref, bases=bases, what="OCR file", where=where)) if ocr_ref else sidecar_ocr(image)
        items.append(
            DocItem(
                id=item_id,
                question=question,
                answers=tuple(answers),
                topic=(row.get("topic") or "").strip() or "default",
                image=image,
                doc_id=(row.get("docId") or "").strip() or image.stem,
                ocr=ocr,
            )
        )
    return items
