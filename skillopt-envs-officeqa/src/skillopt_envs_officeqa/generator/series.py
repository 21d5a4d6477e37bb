"""The invented monthly figures behind every synthetic bulletin.

One set of series covers every month the bulletins report, so two issues that show the
same month show the same figure (as real bulletins do, revisions aside) and cross-issue
questions have one answer. Every figure is an integer in the table's smallest unit
(millions of dollars, tenths of a billion, thousandths of a percent), so totals add up
exactly and answers are computed with exact decimals, never floats.
"""

from __future__ import annotations

import random
from decimal import Decimal

import attrs

MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December")  # fmt: skip
#: how the tables label a month (Government Printing Office style)
MONTH_ABBREVIATIONS = ("Jan.", "Feb.", "Mar.", "Apr.", "May", "June", "July", "Aug.", "Sept.", "Oct.", "Nov.", "Dec.")


@attrs.frozen(order=True)
class Month:
    year: int
    month: int

    @property
    def key(self) -> str:
        return f"{self.year:04d}-{self.month:02d}"

    @property
    def name(self) -> str:
        return f"{MONTH_NAMES[self.month - 1]} {self.year}"

    @property
    def label(self) -> str:
        return f"{MONTH_ABBREVIATIONS[self.month - 1]} {self.year}"

    def plus(self, months: int) -> Month:
        index = self.year * 12 + self.month - 1 + months
        return Month(index // 12, index % 12 + 1)

    @classmethod
    def parse(cls, key: str) -> Month:
        year, month = key.split("-")
        return cls(int(year), int(month))


@attrs.frozen
class TableSpec:
    """One table kind: its columns, its unit and how a stored integer becomes a printed figure."""

    key: str
    title: str
    unit: str  # as printed under the title
    columns: tuple[str, ...]
    decimals: int  # stored integers are value * 10**decimals
    has_total: bool
    section: str  # the contents-page entry


RECEIPTS = TableSpec(
    key="receipts",
    title="Budget Receipts by Source",
    unit="(In millions of dollars)",
    columns=("Individual income taxes", "Corporation income taxes", "Excise taxes", "Employment taxes", "Customs",
             "Miscellaneous receipts"),  # fmt: skip
    decimals=0,
    has_total=True,
    section="Budget receipts by source",
)
OUTLAYS = TableSpec(
    key="outlays",
    title="Budget Expenditures by Function",
    unit="(In millions of dollars)",
    columns=("National defense", "Veterans' services", "Interest on the public debt", "International affairs",
             "Agriculture", "All other"),  # fmt: skip
    decimals=0,
    has_total=True,
    section="Budget expenditures by function",
)
DEBT = TableSpec(
    key="debt",
    title="Public Debt Outstanding by Type of Security, End of Month",
    unit="(In billions of dollars)",
    columns=("Treasury bills", "Certificates of indebtedness", "Treasury notes", "Treasury bonds", "Savings bonds",
             "Special issues"),  # fmt: skip
    decimals=1,
    has_total=True,
    section="Public debt outstanding by type",
)
RATES = TableSpec(
    key="rates",
    title="Average Yields and Interest Rates",
    unit="(Percent per annum)",
    columns=("3-month bills", "9-12 month certificates", "Taxable bonds", "Average rate on interest-bearing debt"),
    decimals=3,
    has_total=False,
    section="Interest rates and yields",
)
TABLES = (RECEIPTS, OUTLAYS, DEBT, RATES)
TABLE_BY_KEY = {t.key: t for t in TABLES}
TOTAL = "Total"

# (low, high) of each column in stored units; seasonal columns get a quarter-end bonus
_RANGES: dict[str, tuple[tuple[int, int], ...]] = {
    "receipts": ((1400, 3400), (450, 1100), (600, 900), (150, 450), (28, 62), (90, 310)),
    "outlays": ((900, 1800), (480, 720), (150, 320), (200, 600), (50, 300), (300, 620)),
    "debt": ((110, 140), (200, 300), (30, 150), (1050, 1200), (520, 580), (300, 350)),
    "rates": ((950, 1600), (1080, 1700), (2200, 2700), (2100, 2300)),
}
_QUARTER_END_BONUS = {("receipts", 1): (900, 1500), ("outlays", 2): (250, 480)}


@attrs.frozen
class Series:
    """Stored-unit integers per (table key, month key, column)."""

    values: dict[str, dict[str, dict[str, int]]]
    months: tuple[Month, ...]

    def value(self, table: str, month: Month | str, column: str) -> int:
        key = month.key if isinstance(month, Month) else month
        row = self.values[table][key]
        if column == TOTAL:
            return sum(row.values())
        return row[column]

    def row(self, table: str, month: Month | str) -> dict[str, int]:
        key = month.key if isinstance(month, Month) else month
        return dict(self.values[table][key])


def build_series(first: Month, last: Month, seed: int) -> Series:
    """Random walks inside fixed ranges: plausible month-to-month movement, reproducible by seed."""
    rng = random.Random(seed)
    months = []
    current = first
    while current <= last:
        months.append(current)
        current = current.plus(1)
    values: dict[str, dict[str, dict[str, int]]] = {}
    for table in TABLES:
        ranges = _RANGES[table.key]
        level = [rng.randint(lo, hi) for lo, hi in ranges]
        per_month: dict[str, dict[str, int]] = {}
        for month in months:
            row = {}
            for i, column in enumerate(table.columns):
                lo, hi = ranges[i]
                step = max((hi - lo) // 8, 1)
                # mean-reverting walk: drifts back towards the middle, never sticks at a bound
                level[i] += rng.randint(-step, step) + ((lo + hi) // 2 - level[i]) // 4
                level[i] = min(max(level[i], lo), hi)
                value = level[i]
                bonus = _QUARTER_END_BONUS.get((table.key, i))
                if bonus and month.month in (3, 6, 9, 12):
                    value += rng.randint(*bonus)
                row[column] = value
            per_month[month.key] = row
        values[table.key] = per_month
    return Series(values=values, months=tuple(months))


def as_decimal(stored: int, decimals: int) -> Decimal:
    """The printed value of a stored integer (``2523`` with 1 decimal is ``252.3``)."""
    return Decimal(stored).scaleb(-decimals)
