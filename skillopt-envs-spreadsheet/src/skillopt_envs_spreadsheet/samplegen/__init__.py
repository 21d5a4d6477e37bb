"""Deterministic generator of the bundled SpreadsheetBench-style sample.

``python -m skillopt_envs_spreadsheet.samplegen OUT`` (or ``--out OUT``) writes the same
bytes on every run: ``{split}/items.json`` and ``spreadsheet/<id>/{no}_<id>_init.xlsx`` /
``_golden.xlsx`` (the Verified-400 layout), plus ``checksums.json``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from skillopt_envs_spreadsheet.samplegen.cell_numeric import TEMPLATE_FACTORIES as NUMERIC_FACTORIES
from skillopt_envs_spreadsheet.samplegen.cell_text import TEMPLATE_FACTORIES as TEXT_FACTORIES
from skillopt_envs_spreadsheet.samplegen.core import CELL, Template, write_workbook
from skillopt_envs_spreadsheet.samplegen.sheet_tasks import TEMPLATE_FACTORIES as SHEET_FACTORIES

CASES_PER_TASK = 3

# Both variants of a template stay in one split, so no test task is a near-copy of a train task.
SPLIT_OF = {
    "train": ["row-total", "sumif", "dates", "text-clean", "rank", "fill", "two-way",
              "sort", "filter", "group", "columns"],
    "val": ["lookup", "date-parts", "concat", "count", "pivot", "clean-rows"],
    "test": ["total-below", "grades", "split", "running", "share", "row-max", "weighted", "duplicates", "bonus", "time",
             "text-numbers", "dedupe", "reshape", "split-sheets", "append", "top"],
}


def all_templates() -> list[Template]:
    """Every template, two variants per kind."""
    return [factory(v) for factory in (*NUMERIC_FACTORIES, *TEXT_FACTORIES, *SHEET_FACTORIES) for v in (0, 1)]


def family(template: Template) -> str:
    return template.key.rsplit("-", 1)[0]


def split_templates() -> dict[str, list[Template]]:
    """Templates per split, cell- and sheet-level interleaved (so ``env.limit`` keeps both)."""
    by_family: dict[str, list[Template]] = {}
    for t in all_templates():
        by_family.setdefault(family(t), []).append(t)
    assigned = [f for names in SPLIT_OF.values() for f in names]
    if sorted(assigned) != sorted(by_family) or len(assigned) != len(set(assigned)):
        raise RuntimeError("SPLIT_OF must name every template family exactly once")
    out = {}
    for split, names in SPLIT_OF.items():
        chosen = [t for name in names for t in by_family[name]]
        cells = [t for t in chosen if t.instruction_type == CELL]
        sheets = [t for t in chosen if t.instruction_type != CELL]
        mixed = []
        while cells or sheets:
            for pool in (cells, sheets):
                if pool:
                    mixed.append(pool.pop(0))
        out[split] = mixed
    return out


def item_of(template: Template) -> dict:
    return {
        "id": template.key,
        "instruction": template.instruction,
        "instruction_type": template.instruction_type,
        "answer_position": template.answer_position,
        "spreadsheet_path": f"spreadsheet/{template.key}",
        "category": template.category,
    }


def write_task(template: Template, root: Path, cases: int = CASES_PER_TASK) -> list[Path]:
    folder = root / "spreadsheet" / template.key
    written = []
    for no in range(1, cases + 1):
        init, golden = template.case(no)
        for suffix, sheets in (("init", init), ("golden", golden)):
            path = folder / f"{no}_{template.key}_{suffix}.xlsx"
            write_workbook(path, sheets)
            written.append(path)
    return written


def generate(out: Path, *, only: set[str] | None = None) -> dict[str, str]:
    """Write the sample (or only the tasks named in ``only``); returns file -> sha256."""
    out = Path(out)
    checksums: dict[str, str] = {}
    for split, templates in split_templates().items():
        items = [item_of(t) for t in templates]
        if only is None:
            path = out / split / "items.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(items, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        for t in templates:
            if only is not None and t.key not in only:
                continue
            for f in write_task(t, out):
                checksums[f.relative_to(out).as_posix()] = hashlib.sha256(f.read_bytes()).hexdigest()
    if only is None:
        (out / "checksums.json").write_text(json.dumps(dict(sorted(checksums.items())), indent=1) + "\n", encoding="utf-8")
    return checksums


def generate_sample(out: Path) -> None:
    """The sample-generator convention's entry point: the whole sample under ``out``."""
    generate(out)
