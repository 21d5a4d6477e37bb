"""One synthetic Treasury bulletin: pages of blocks, rendered as text and as a parsed-JSON twin.

The text file is what the agent's tools read (``=== Page N ===`` lines separate pages,
tables are fixed width with a dashed rule under the column heads); the JSON twin is what
oracle mode renders (elements with HTML table content and ``bbox[].page_id``, the layout
upstream's parsed bulletins use). Both come from the same blocks, so they cannot disagree.
"""

from __future__ import annotations

import html
import random
import textwrap
from decimal import Decimal

import attrs

from skillopt_envs_officeqa.generator.series import TABLES, TOTAL, Month, Series, TableSpec, as_decimal

LABEL_WIDTH = 18
CELL_WIDTH = 13
PAGE_MARKER = "=== Page {n} ==="
DISCLAIMER = "SYNTHETIC SAMPLE: invented figures generated for SkillOpt tests, not an official publication."
MONTHS_PER_TABLE = 6


@attrs.frozen
class Block:
    """A titled paragraph, a heading or a table; ``lines`` is its text rendering."""

    kind: str  # title | section_header | text | table | page_header
    lines: tuple[str, ...]
    html: str = ""


@attrs.frozen
class Issue:
    year: int
    month: int
    index: int  # position in the corpus; odd issues carry an extra article page

    @property
    def stem(self) -> str:
        return f"treasury_bulletin_{self.year:04d}_{self.month:02d}"

    @property
    def file_name(self) -> str:
        return f"{self.stem}.txt"

    @property
    def name(self) -> str:
        return Month(self.year, self.month).name

    @property
    def latest(self) -> Month:
        """The last month the issue reports (the month before publication)."""
        return Month(self.year, self.month).plus(-1)

    @property
    def months(self) -> tuple[Month, ...]:
        """The months its tables show, oldest first."""
        return tuple(self.latest.plus(-k) for k in range(MONTHS_PER_TABLE - 1, -1, -1))

    def url(self, page: int) -> str:
        """Where the gold page lives, in the ``?page=N`` form upstream's ``source_docs`` use."""
        return f"https://example.invalid/synthetic-treasury-bulletin/{self.year:04d}-{self.month:02d}?page={page}"


@attrs.frozen
class Rendered:
    text: str
    twin: dict
    table_pages: dict[str, int]  # table key (and "summary") -> page number


def fmt(value: Decimal, decimals: int) -> str:
    """A printed figure: thousands separators, fixed decimals."""
    return f"{value:,.{decimals}f}"


def _wrap_head(name: str) -> list[str]:
    return textwrap.wrap(name, CELL_WIDTH, break_long_words=False) or [""]


def table_block(spec: TableSpec, series: Series, months: tuple[Month, ...], number: int) -> list[Block]:
    """Caption, unit and the fixed-width table of ``spec`` over ``months``."""
    columns = [*spec.columns, *([TOTAL] if spec.has_total else [])]
    heads = [_wrap_head(c) for c in columns]
    depth = max(len(h) for h in heads)
    lines = []
    for level in range(depth):
        label = "Month" if level == depth - 1 else ""
        cells = []
        for head in heads:
            padded = [""] * (depth - len(head)) + head  # bottom-aligned column heads
            cells.append(" " + padded[level].rjust(CELL_WIDTH))
        lines.append(label.ljust(LABEL_WIDTH) + "".join(cells).rstrip())
    lines.append("-" * LABEL_WIDTH + ("  " + "-" * (CELL_WIDTH - 1)) * len(columns))
    rows_html = []
    for month in months:
        values = [fmt(as_decimal(series.value(spec.key, month, c), spec.decimals), spec.decimals) for c in columns]
        label = (month.label + " ").ljust(LABEL_WIDTH, ".")
        lines.append(label + "".join(" " + v.rjust(CELL_WIDTH) for v in values))
        rows_html.append("<tr><td>" + html.escape(month.label) + "</td>" + "".join(f"<td>{v}</td>" for v in values) + "</tr>")
    head_html = "<tr><th>Month</th>" + "".join(f"<th>{html.escape(c)}</th>" for c in columns) + "</tr>"
    caption = f"Table {number}.- {spec.title}"
    return [
        Block("section_header", (caption,)),
        Block("text", (spec.unit,)),
        Block("table", tuple(lines), html=f"<table><thead>{head_html}</thead><tbody>{''.join(rows_html)}</tbody></table>"),
        Block("text", ("Source: invented for this synthetic sample; details add to totals exactly.",)),
    ]


def _paragraph(text: str) -> Block:
    return Block("text", tuple(textwrap.wrap(text, 96)))


def summary_blocks(issue: Issue, series: Series) -> list[Block]:
    """The prose page; its year-ago figures appear nowhere else in the issue."""
    latest, year_ago, before = issue.latest, issue.latest.plus(-12), issue.latest.plus(-1)
    receipts = series.value("receipts", latest, TOTAL)
    receipts_ago = series.value("receipts", year_ago, TOTAL)
    outlays = series.value("outlays", latest, TOTAL)
    balance = receipts - outlays
    debt = series.value("debt", latest, TOTAL)
    debt_before = series.value("debt", before, TOTAL)
    marketable = sum(series.value("debt", latest, c) for c in ("Treasury bills", "Certificates of indebtedness",
                                                                "Treasury notes", "Treasury bonds"))  # fmt: skip
    rate = series.value("rates", latest, "Average rate on interest-bearing debt")
    rate_ago = series.value("rates", year_ago, "Average rate on interest-bearing debt")
    move = "an increase" if debt >= debt_before else "a decrease"
    return [
        Block("section_header", ("SUMMARY OF FISCAL OPERATIONS",)),
        _paragraph(
            f"Budget receipts in {latest.name} amounted to ${receipts:,} million, compared with ${receipts_ago:,} million "
            f"in {year_ago.name}. Budget expenditures for the month were ${outlays:,} million, so that the budget showed "
            f"a {'surplus' if balance >= 0 else 'deficit'} of ${abs(balance):,} million."
        ),
        _paragraph(
            f"The public debt outstanding at the end of {latest.name} totaled ${fmt(as_decimal(debt, 1), 1)} billion, "
            f"{move} of ${fmt(as_decimal(abs(debt - debt_before), 1), 1)} billion from the end of {before.name}. "
            f"Marketable issues accounted for ${fmt(as_decimal(marketable, 1), 1)} billion of the total."
        ),
        _paragraph(
            f"The computed average rate of interest on the interest-bearing public debt was "
            f"{fmt(as_decimal(rate, 3), 3)} percent, against {fmt(as_decimal(rate_ago, 3), 3)} percent in {year_ago.name}."
        ),
    ]


def article_blocks(issue: Issue, rng: random.Random) -> list[Block]:
    """A financing article: figures that answer no question (realistic distractors)."""
    coupon = rng.choice(("1-1/8", "1-1/4", "1-3/8"))
    offered = Decimal(rng.randint(30, 90)).scaleb(-1)
    exchanged = offered - Decimal(rng.randint(1, 9)).scaleb(-1)
    return [
        Block("section_header", ("TREASURY FINANCING OPERATIONS",)),
        _paragraph(
            f"During {issue.latest.name} the Treasury offered holders of maturing certificates of indebtedness an exchange "
            f"into new {coupon} percent certificates. Of the ${offered} billion maturing, ${exchanged} billion was "
            f"exchanged and the remainder was paid in cash."
        ),
        _paragraph(
            "Weekly offerings of Treasury bills were continued in the usual amounts. Subscriptions were received at the "
            "Federal Reserve Banks and branches and at the Treasury Department."
        ),
    ]


def cover_blocks(issue: Issue, contents: list[tuple[str, int]]) -> list[Block]:
    lines = ["Contents" + "Page".rjust(70)]
    lines += [f"  {title} ".ljust(70, ".") + f"{page:>6}" for title, page in contents]
    return [
        Block("title", ("TREASURY BULLETIN",)),
        Block("text", (issue.name, "United States Treasury Department", "Office of the Secretary")),
        Block("text", (DISCLAIMER,)),
        Block("table", tuple(lines)),
    ]


def render_issue(issue: Issue, series: Series, seed: int) -> Rendered:
    rng = random.Random(f"{seed}:{issue.stem}")
    body: list[tuple[str, list[Block]]] = [("Summary of fiscal operations", summary_blocks(issue, series))]
    if issue.index % 2 == 1:
        body.append(("Treasury financing operations", article_blocks(issue, rng)))
    for number, spec in enumerate(TABLES, 1):
        body.append((spec.section, table_block(spec, series, issue.months, number)))
    contents = [(title, page) for page, (title, _) in enumerate(body, 2)]
    pages = [cover_blocks(issue, contents)] + [blocks for _, blocks in body]
    table_pages = {"summary": 2}
    for page, (title, _) in enumerate(body, 2):
        for spec in TABLES:
            if spec.section == title:
                table_pages[spec.key] = page
    return Rendered(text=_text(issue, pages), twin=_twin(issue, pages), table_pages=table_pages)


def _text(issue: Issue, pages: list[list[Block]]) -> str:
    out: list[str] = []
    for n, blocks in enumerate(pages, 1):
        out.append(PAGE_MARKER.format(n=n))
        out.append(f"Treasury Bulletin, {issue.name}".ljust(90) + f"Page {n}")
        out.append("")
        for block in blocks:
            out.extend(block.lines)
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _twin(issue: Issue, pages: list[list[Block]]) -> dict:
    elements = []
    for n, blocks in enumerate(pages, 1):
        y = 36
        header = f"Treasury Bulletin, {issue.name}"
        elements.append({"id": len(elements), "type": "page_header", "content": header,
                         "bbox": [{"page_id": n, "coord": [36, y, 576, y + 12]}]})  # fmt: skip
        y += 24
        for block in blocks:
            content = block.html if block.kind == "table" and block.html else "\n".join(block.lines)
            height = 14 * max(len(block.lines), 1)
            elements.append({"id": len(elements), "type": block.kind, "content": content,
                             "bbox": [{"page_id": n, "coord": [36, y, 576, y + height]}]})  # fmt: skip
            y += height + 10
    return {
        "file_name": issue.file_name,
        "document": {"title": f"Treasury Bulletin, {issue.name}", "num_pages": len(pages), "page_id_base": 1},
        "elements": elements,
    }
