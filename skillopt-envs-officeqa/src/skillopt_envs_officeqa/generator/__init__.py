"""The bundled synthetic OfficeQA sample: bulletins, parsed-JSON twins and questions.

``rendered()`` returns every file of the sample as ``{relative path: text}``;
``generate_sample(out)`` puts them on disk. Both are deterministic (one seed, no clock, no environment), so a test
can regenerate the sample and compare it byte for byte with the shipped one.

Layout (under ``data/sample``): ``docs/treasury_bulletin_YYYY_MM.txt``,
``docs/jsons/treasury_bulletin_YYYY_MM.json``, ``{train,val,test}/items.json`` and
``split_manifest.json``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from skillopt_envs_officeqa.generator.bulletin import Issue, Rendered, render_issue
from skillopt_envs_officeqa.generator.questions import (
    ACROSS,
    EASY,
    HARD,
    SUMMARY_FIGURES,
    Context,
    answer_of,
    figure_from_series,
)
from skillopt_envs_officeqa.generator.series import TABLE_BY_KEY, Month, Series, build_series

SEED = 1949
ISSUE_YEARS = (1948, 1949, 1950, 1951)
ISSUE_MONTHS = (3, 6, 9, 12)
EASY_PER_ISSUE = 4
HARD_PER_ISSUE = 5
SPLIT_COUNTS = {"train": 48, "val": 30}  # the rest is test
LICENCE = "CC0-1.0"


def issues() -> list[Issue]:
    months = [(y, m) for y in ISSUE_YEARS for m in ISSUE_MONTHS]
    return [Issue(y, m, i) for i, (y, m) in enumerate(months)]


def corpus_series(all_issues: list[Issue]) -> Series:
    """Every month any issue shows, plus the year-ago months its summary cites."""
    first = min(i.months[0] for i in all_issues).plus(-12)
    last = max(i.latest for i in all_issues)
    return build_series(first, last, SEED)


def _item(number: int, question: str, derivation: dict, category: str, series: Series, pages: dict[str, Rendered],
          by_file: dict[str, Issue]) -> dict:  # fmt: skip
    if derivation["op"] not in ("argmax", "argmin") and "decimals" not in derivation:
        # a plain figure is answered at the precision the table prints it
        derivation = {**derivation, "decimals": max(printed_decimals(ref) for ref in derivation["refs"])}
    files: list[str] = []
    docs: list[str] = []
    for ref in derivation["refs"]:
        issue = by_file[ref["file"]]
        url = issue.url(pages[ref["file"]].table_pages[ref["table"]])
        if ref["file"] not in files:
            files.append(ref["file"])
        if url not in docs:
            docs.append(url)
    answer = answer_of(derivation, series)
    return {
        "uid": f"SYN{number:04d}",
        "question": question,
        "answer": answer,
        "category": category,
        "source_files": files,
        "source_docs": docs,
        "derivation": derivation,
        "reference": explain(derivation, answer, series, pages),
    }


def printed_decimals(ref: dict) -> int:
    table = SUMMARY_FIGURES[ref["column"]][0] if ref["table"] == "summary" else ref["table"]
    return TABLE_BY_KEY[table].decimals


def explain(derivation: dict, answer: str, series: Series, pages: dict[str, Rendered]) -> str:
    """The optimizer's hidden reference: where each figure is and what was done with it."""
    figure = figure_from_series(series)
    parts = []
    for ref in derivation["refs"]:
        page = pages[ref["file"]].table_pages[ref["table"]]
        where = "summary of fiscal operations" if ref["table"] == "summary" else f"table '{TABLE_BY_KEY[ref['table']].title}'"
        month = Month.parse(ref["month"]).name
        parts.append(f"{ref['file']} page {page}, {where}, {month}, {ref['column']} = {figure(ref)}")
    steps = derivation["op"]
    if derivation.get("factor", "1") != "1":
        steps += f" x {derivation['factor']}"
    if derivation["op"] not in ("lookup", "argmax", "argmin"):
        steps += f", rounded to {derivation['decimals']} decimals"
    return f"Answer {answer} ({steps}) from: " + "; ".join(parts)


def build_items(all_issues: list[Issue], series: Series, pages: dict[str, Rendered]) -> list[dict]:
    by_file = {i.file_name: i for i in all_issues}
    items: list[dict] = []
    seen: set[str] = set()

    def add(make, ctx: Context, category: str, *extra) -> None:
        for _ in range(50):
            made = make(ctx, *extra)
            if made is not None and made[0] not in seen:
                question, derivation = made
                seen.add(question)
                items.append(_item(len(items) + 1, question, derivation, category, series, pages, by_file))
                return
        raise RuntimeError(f"could not draw a new question from {make.__name__} for {ctx.issue.stem}")

    for issue in all_issues:
        rng = random.Random(f"{SEED}:questions:{issue.stem}")
        ctx = Context(issue, pages[issue.file_name], series, rng)
        for make in rng.sample(EASY, EASY_PER_ISSUE):
            add(make, ctx, "easy")
        for make in rng.sample(HARD, HARD_PER_ISSUE):
            add(make, ctx, "hard")
    for k, issue in enumerate(all_issues[: len(all_issues) - len(ISSUE_MONTHS)]):
        later = all_issues[k + len(ISSUE_MONTHS)]  # the same month a year later
        rng = random.Random(f"{SEED}:across:{issue.stem}")
        add(ACROSS[k % len(ACROSS)], Context(issue, pages[issue.file_name], series, rng), "hard", later)
    return items


def split_items(items: list[dict]) -> dict[str, list[dict]]:
    order = list(items)
    random.Random(f"{SEED}:split").shuffle(order)
    n_train, n_val = SPLIT_COUNTS["train"], SPLIT_COUNTS["val"]
    parts = {"train": order[:n_train], "val": order[n_train : n_train + n_val], "test": order[n_train + n_val :]}
    return {split: sorted(rows, key=lambda r: r["uid"]) for split, rows in parts.items()}


def rendered() -> dict[str, str]:
    """Every file of the sample, keyed by its path relative to ``data/sample``."""
    all_issues = issues()
    series = corpus_series(all_issues)
    pages = {issue.file_name: render_issue(issue, series, SEED) for issue in all_issues}
    files: dict[str, str] = {}
    for issue in all_issues:
        out = pages[issue.file_name]
        files[f"docs/{issue.file_name}"] = out.text
        files[f"docs/jsons/{issue.stem}.json"] = _json(out.twin)
    splits = split_items(build_items(all_issues, series, pages))
    for split, rows in splits.items():
        files[f"{split}/items.json"] = _json(rows)
    files["split_manifest.json"] = _json({
        "benchmark": "OfficeQA (synthetic sample)",
        "generator": "python -m skillopt_envs_officeqa.generator",
        "seed": SEED,
        "licence": LICENCE,
        "documents": [i.file_name for i in all_issues],
        "counts": {split: len(rows) for split, rows in splits.items()},
        "categories": {split: {c: sum(r["category"] == c for r in rows) for c in ("easy", "hard")} for split, rows in splits.items()},
    })  # fmt: skip
    return files


def _json(data) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def default_out_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "data" / "sample"


def generate_sample(out: Path) -> None:
    for rel, text in rendered().items():
        path = Path(out) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
