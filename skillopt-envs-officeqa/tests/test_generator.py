"""The bundled sample: deterministic, equal to a regeneration, and every answer re-derived
from the bulletin TEXT by a parser written here, independent of the generator's code."""

import json
import re
from collections import Counter
from decimal import ROUND_HALF_UP, Decimal
from importlib import resources
from pathlib import Path

import pytest

from skillopt.testing import check_sample_regenerates
from skillopt_envs_officeqa.env import OfficeQAEnv
from skillopt_envs_officeqa.generator import rendered

SAMPLE = Path(str(resources.files("skillopt_envs_officeqa").joinpath("data", "sample")))
ABBR = ["Jan.", "Feb.", "Mar.", "Apr.", "May", "June", "July", "Aug.", "Sept.", "Oct.", "Nov.", "Dec."]
TITLES = {"receipts": "Budget Receipts by Source", "outlays": "Budget Expenditures by Function",
          "debt": "Public Debt Outstanding by Type of Security, End of Month", "rates": "Average Yields and Interest Rates"}


def items(split):
    return json.loads((SAMPLE / split / "items.json").read_text(encoding="utf-8"))


def test_generation_is_deterministic_and_equals_the_bundled_sample():
    first, second = rendered(), rendered()
    assert first == second
    check_sample_regenerates(OfficeQAEnv)
    for rel, text in first.items():  # byte for byte, not only as equal JSON
        assert (SAMPLE / rel).read_text(encoding="utf-8") == text, f"{rel} differs from a regeneration"


def test_size_splits_and_categories():
    splits = {s: items(s) for s in ("train", "val", "test")}
    rows = [r for v in splits.values() for r in v]
    assert len(rows) >= 120
    assert len({r["uid"] for r in rows}) == len(rows) and len({r["question"] for r in rows}) == len(rows)
    for split, part in splits.items():
        assert set(Counter(r["category"] for r in part)) == {"easy", "hard"}, split
    docs = sorted(p.name for p in (SAMPLE / "docs").glob("treasury_bulletin_*.txt"))
    assert 12 <= len(docs) <= 20
    assert all((SAMPLE / "docs" / "jsons" / (Path(d).stem + ".json")).is_file() for d in docs)
    for r in rows:
        assert r["source_files"] and all(f in docs for f in r["source_files"])
        assert all(re.search(r"\?page=\d+$", d) for d in r["source_docs"])


# ------------------------------------------------------------------ the independent parser


def parse_tables(text):
    """{(title, row label, column header): printed string} from fixed-width tables."""
    cells, lines = {}, text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"Table \d+\.- (.+)$", line)
        if not m:
            continue
        title = m.group(1)
        rule = next(j for j in range(i, len(lines)) if lines[j].startswith("-----"))
        ends = [mm.end() for mm in re.finditer(r"-+", lines[rule])]
        bounds = list(zip([0, *ends[:-1]], ends))
        heads = [re.sub(r"(\w)- (\w)", r"\1-\2", " ".join(lines[k][a:b].strip() for k in range(i + 1, rule) if lines[k][a:b].strip() and not lines[k].startswith("(")))
                 for a, b in bounds[1:]]  # a header wrapped after a hyphen rejoins without a space
        for row in lines[rule + 1:]:
            if not row.strip():
                break
            label = row[: bounds[0][1]].rstrip(". ").strip()
            for head, (a, b) in zip(heads, bounds[1:]):
                cells[(title, label, head)] = row[a:b].strip()
    return cells


def parse_summary(text):
    flat = " ".join(text.split())
    out = {}
    m = re.search(r"compared with \$([\d,]+) million in (\w+ \d{4})", flat)
    out[("Budget receipts", m.group(2))] = m.group(1)
    m = re.search(r"against ([\d.]+) percent in (\w+ \d{4})", flat)
    out[("Average interest rate", m.group(2))] = m.group(1)
    return out


def month_label(key, full=False):
    year, month = key.split("-")
    names = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
    return f"{(names if full else ABBR)[int(month) - 1]} {year}"


def recompute(derivation, parsed):
    def figure(ref):
        tables, summary = parsed[ref["file"]]
        if ref["table"] == "summary":
            raw = summary[(ref["column"], month_label(ref["month"], full=True))]
        else:
            raw = tables[(TITLES[ref["table"]], month_label(ref["month"]), ref["column"])]
        return Decimal(raw.replace(",", ""))

    op, refs = derivation["op"], derivation["refs"]
    if op in ("argmax", "argmin"):
        pairs = sorted((figure(r), r["column"]) for r in refs)
        return (pairs[-1] if op == "argmax" else pairs[0])[1]
    x = [figure(r) for r in refs]
    value = {"lookup": lambda: x[0], "diff": lambda: x[1] - x[0], "pct_change": lambda: (x[1] - x[0]) / x[0] * 100,
             "ratio": lambda: x[0] / x[1], "share": lambda: x[0] / x[1] * 100, "sum": lambda: sum(x),
             "mean": lambda: sum(x) / len(x)}[op]()
    value *= Decimal(derivation.get("factor", "1"))
    places = derivation["decimals"]
    value = value.quantize(Decimal(1) / (Decimal(10) ** places), rounding=ROUND_HALF_UP)
    return f"{value:,.{places}f}" + derivation.get("suffix", "")


@pytest.fixture(scope="module")
def parsed():
    out = {}
    for path in (SAMPLE / "docs").glob("*.txt"):
        text = path.read_text(encoding="utf-8")
        out[path.name] = (parse_tables(text), parse_summary(text))
    return out


def test_every_answer_is_recomputed_from_the_text(parsed):
    rows = [r for s in ("train", "val", "test") for r in items(s)]
    for row in rows:
        assert recompute(row["derivation"], parsed) == row["answer"], row["uid"]
    ops = Counter(r["derivation"]["op"] for r in rows)
    assert {"lookup", "diff", "pct_change", "ratio", "share", "sum", "mean", "argmax"} <= set(ops)
    assert any(r["derivation"].get("factor") in ("0.001", "1000") for r in rows), "no unit-conversion questions"
    assert any(len(r["source_files"]) == 2 for r in rows), "no cross-issue questions"


def test_source_docs_point_at_the_page_holding_the_figures():
    for row in items("val"):
        for ref in row["derivation"]["refs"]:
            text = (SAMPLE / "docs" / ref["file"]).read_text(encoding="utf-8")
            pages = re.split(r"^=== Page (\d+) ===$", text, flags=re.M)
            by_page = {int(pages[i]): pages[i + 1] for i in range(1, len(pages), 2)}
            numbers = [int(d.rsplit("=", 1)[1]) for d in row["source_docs"]]
            needle = "SUMMARY OF FISCAL" if ref["table"] == "summary" else TITLES[ref["table"]]
            assert any(needle in by_page[n] for n in numbers), (row["uid"], ref)


def test_json_twin_carries_the_same_tables_with_page_ids():
    twin = json.loads((SAMPLE / "docs" / "jsons" / "treasury_bulletin_1949_06.json").read_text())
    tables = [e for e in twin["elements"] if e["type"] == "table" and e["content"].startswith("<table")]
    assert len(tables) == 4 and all(e["bbox"][0]["page_id"] >= 2 for e in tables)
    text = (SAMPLE / "docs" / "treasury_bulletin_1949_06.txt").read_text()
    first_value = re.search(r"<td>([\d,.]+)</td>", tables[0]["content"]).group(1)
    assert first_value in text
