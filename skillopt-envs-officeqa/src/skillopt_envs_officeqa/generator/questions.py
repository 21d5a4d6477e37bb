"""Question families over the synthetic bulletins, each with a derivation and its answer.

Easy families are single look-ups (a table cell, the largest category, a figure that only
the prose summary gives); hard ones need arithmetic over several cells, a unit change, a
stated rounding, or two issues. Every question names the bulletin (and month) it is about,
so the answer is unique even where issues overlap.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from decimal import Decimal

from skillopt_envs_officeqa.generator.bulletin import Issue, Rendered
from skillopt_envs_officeqa.generator.derive import evaluate
from skillopt_envs_officeqa.generator.series import TABLE_BY_KEY, TOTAL, Month, Series, as_decimal

#: prose-only figures: summary column -> (table, column) holding the same series
SUMMARY_FIGURES = {
    "Budget receipts": ("receipts", TOTAL),
    "Average interest rate": ("rates", "Average rate on interest-bearing debt"),
}

RECEIPT_PHRASES = {
    "Individual income taxes": "budget receipts from individual income taxes",
    "Corporation income taxes": "budget receipts from corporation income taxes",
    "Excise taxes": "budget receipts from excise taxes",
    "Employment taxes": "budget receipts from employment taxes",
    "Customs": "customs receipts",
    "Miscellaneous receipts": "miscellaneous budget receipts",
    TOTAL: "total budget receipts",
}
OUTLAY_PHRASES = {
    "National defense": "budget expenditures for national defense",
    "Veterans' services": "budget expenditures for veterans' services",
    "Interest on the public debt": "budget expenditures for interest on the public debt",
    "International affairs": "budget expenditures for international affairs",
    "Agriculture": "budget expenditures for agriculture",
    "All other": "budget expenditures in the 'All other' category",
    TOTAL: "total budget expenditures",
}
DEBT_PHRASES = {
    "Treasury bills": "Treasury bills",
    "Certificates of indebtedness": "certificates of indebtedness",
    "Treasury notes": "Treasury notes",
    "Treasury bonds": "Treasury bonds",
    "Savings bonds": "savings bonds",
    "Special issues": "special issues",
    TOTAL: "total public debt",
}
RATE_PHRASES = {
    "3-month bills": "the average yield on 3-month Treasury bills",
    "9-12 month certificates": "the average yield on 9-12 month certificates",
    "Taxable bonds": "the average yield on taxable Treasury bonds",
    "Average rate on interest-bearing debt": "the computed average interest rate on the interest-bearing public debt",
}
MARKETABLE = ("Treasury bills", "Certificates of indebtedness", "Treasury notes", "Treasury bonds")


class Context:
    """What a family needs: the issue, its rendering, the series and a seeded RNG."""

    def __init__(self, issue: Issue, rendered: Rendered, series: Series, rng: random.Random):
        self.issue, self.rendered, self.series, self.rng = issue, rendered, series, rng

    def ref(self, table: str, month: Month, column: str, issue: Issue | None = None) -> dict:
        return {"file": (issue or self.issue).file_name, "table": table, "month": month.key, "column": column}

    def month(self) -> Month:
        return self.rng.choice(self.issue.months)

    def bulletin(self, issue: Issue | None = None) -> str:
        return f"the {(issue or self.issue).name} Treasury Bulletin"


def figure_from_series(series: Series) -> Callable[[dict], Decimal]:
    def figure(ref: dict) -> Decimal:
        table, column = ref["table"], ref["column"]
        if table == "summary":
            table, column = SUMMARY_FIGURES[column]
        return as_decimal(series.value(table, ref["month"], column), TABLE_BY_KEY[table].decimals)

    return figure


# ---------------------------------------------------------------------------- easy


def lookup_flow(c: Context):
    table = c.rng.choice(("receipts", "outlays"))
    phrases = RECEIPT_PHRASES if table == "receipts" else OUTLAY_PHRASES
    column = c.rng.choice(list(phrases))
    month = c.month()
    q = f"According to {c.bulletin()}, what were {phrases[column]} in {month.name}, in millions of dollars?"
    return q, {"op": "lookup", "refs": [c.ref(table, month, column)]}


def lookup_debt(c: Context):
    column = c.rng.choice(list(DEBT_PHRASES))
    month = c.month()
    if column == TOTAL:
        q = f"According to {c.bulletin()}, what was the total public debt outstanding at the end of {month.name}, in billions of dollars?"
    else:
        q = f"According to {c.bulletin()}, how many billions of dollars of {DEBT_PHRASES[column]} were outstanding at the end of {month.name}?"
    return q, {"op": "lookup", "refs": [c.ref("debt", month, column)]}


def lookup_rate(c: Context):
    column = c.rng.choice(list(RATE_PHRASES))
    month = c.month()
    q = f"According to {c.bulletin()}, what was {RATE_PHRASES[column]} in {month.name}, in percent?"
    return q, {"op": "lookup", "refs": [c.ref("rates", month, column)]}


def largest_category(c: Context):
    table = c.rng.choice(("receipts", "outlays", "outlays"))
    month = c.month()
    spec = TABLE_BY_KEY[table]
    op = "argmax" if table == "receipts" or c.rng.random() < 0.5 else "argmin"
    values = sorted(c.series.row(table, month).values())
    if len(set(values)) != len(values):
        return None  # a tie has no single answer
    what = "source of budget receipts" if table == "receipts" else "budget expenditure function"
    size = "largest" if op == "argmax" else "smallest"
    q = (f"According to {c.bulletin()}, which {what} was the {size} in {month.name}, not counting the total? "
         f"Answer with the category name as printed in the table.")  # fmt: skip
    return q, {"op": op, "refs": [c.ref(table, month, column) for column in spec.columns]}


def summary_figure(c: Context):
    year_ago = c.issue.latest.plus(-12)
    if c.rng.random() < 0.5:
        q = (f"The summary of fiscal operations in {c.bulletin()} compares the latest month with a year earlier. "
             f"What were budget receipts in {year_ago.name}, in millions of dollars?")  # fmt: skip
        ref = c.ref("summary", year_ago, "Budget receipts")
    else:
        q = (f"According to the summary of fiscal operations in {c.bulletin()}, what was the computed average rate of "
             f"interest on the interest-bearing public debt in {year_ago.name}, in percent?")  # fmt: skip
        ref = c.ref("summary", year_ago, "Average interest rate")
    return q, {"op": "lookup", "refs": [ref]}


# ---------------------------------------------------------------------------- hard


def month_change(c: Context):
    table = c.rng.choice(("receipts", "outlays"))
    phrases = RECEIPT_PHRASES if table == "receipts" else OUTLAY_PHRASES
    column = c.rng.choice(list(phrases))
    first, second = sorted(c.rng.sample(c.issue.months, 2))
    q = (f"According to {c.bulletin()}, by how much did {phrases[column]} change from {first.name} to {second.name}? "
         f"Answer in millions of dollars, with a negative number for a decrease.")  # fmt: skip
    return q, {"op": "diff", "refs": [c.ref(table, first, column), c.ref(table, second, column)]}


def tax_ratio(c: Context):
    month = c.month()
    q = (f"According to {c.bulletin()}, what was the ratio of corporation income tax receipts to individual income tax "
         f"receipts in {month.name}? Round to three decimal places.")  # fmt: skip
    refs = [c.ref("receipts", month, "Corporation income taxes"), c.ref("receipts", month, "Individual income taxes")]
    return q, {"op": "ratio", "refs": refs, "decimals": 3}


def six_month_sum(c: Context):
    table = c.rng.choice(("receipts", "outlays"))
    phrases = RECEIPT_PHRASES if table == "receipts" else OUTLAY_PHRASES
    column = c.rng.choice([k for k in phrases if k != TOTAL])
    months = c.issue.months
    q = (f"Add up the monthly {phrases[column]} for all six months shown in {c.bulletin()} "
         f"({months[0].name} through {months[-1].name}). What is the sum, in millions of dollars?")  # fmt: skip
    return q, {"op": "sum", "refs": [c.ref(table, m, column) for m in months]}


def unit_change(c: Context):
    month = c.month()
    if c.rng.random() < 0.5:
        table = c.rng.choice(("receipts", "outlays"))
        phrases = RECEIPT_PHRASES if table == "receipts" else OUTLAY_PHRASES
        column = c.rng.choice((TOTAL, TOTAL, *[k for k in phrases if k != TOTAL][:2]))
        q = (f"According to {c.bulletin()}, what were {phrases[column]} in {month.name}, in billions of dollars? "
             f"Round to two decimal places.")  # fmt: skip
        return q, {"op": "lookup", "refs": [c.ref(table, month, column)], "factor": "0.001", "decimals": 2}
    column = c.rng.choice(list(DEBT_PHRASES))
    q = (f"According to {c.bulletin()}, how much {DEBT_PHRASES[column]} was outstanding at the end of {month.name}? "
         f"Express the amount in millions of dollars.")  # fmt: skip
    return q, {"op": "lookup", "refs": [c.ref("debt", month, column)], "factor": "1000", "decimals": 0}


def rate_mean(c: Context):
    column = c.rng.choice(list(RATE_PHRASES))
    start = c.rng.randrange(0, len(c.issue.months) - 2)
    months = c.issue.months[start : start + 3]
    q = (f"Using {c.bulletin()}, compute the average of {RATE_PHRASES[column]} over {months[0].name}, {months[1].name} "
         f"and {months[2].name}. Give the result in percent, rounded to three decimal places.")  # fmt: skip
    return q, {"op": "mean", "refs": [c.ref("rates", m, column) for m in months], "decimals": 3}


def interest_share(c: Context):
    month = c.month()
    column = c.rng.choice(("Interest on the public debt", "National defense", "Veterans' services"))
    what = column[0].lower() + column[1:]
    q = (f"According to {c.bulletin()}, what percent of total budget expenditures in {month.name} went to "
         f"{what}? Round to one decimal place.")  # fmt: skip
    refs = [c.ref("outlays", month, column), c.ref("outlays", month, TOTAL)]
    return q, {"op": "share", "refs": refs, "decimals": 1, "suffix": "%"}


def marketable_debt(c: Context):
    month = c.month()
    q = (f"According to {c.bulletin()}, what was the combined amount of Treasury bills, certificates of indebtedness, "
         f"Treasury notes and Treasury bonds outstanding at the end of {month.name}, in billions of dollars?")  # fmt: skip
    return q, {"op": "sum", "refs": [c.ref("debt", month, col) for col in MARKETABLE], "decimals": 1}


def yield_spread(c: Context):
    month = c.month()
    q = (f"According to {c.bulletin()}, how many percentage points higher was the average yield on taxable Treasury "
         f"bonds than the average yield on 3-month bills in {month.name}? Round to three decimal places.")  # fmt: skip
    refs = [c.ref("rates", month, "3-month bills"), c.ref("rates", month, "Taxable bonds")]
    return q, {"op": "diff", "refs": refs, "decimals": 3}


# ---------------------------------------------------------------------------- across two issues


def debt_growth(c: Context, later: Issue):
    month, later_month = c.issue.latest, later.latest
    q = (f"By what percent did the total public debt outstanding change from the end of {month.name} (as reported in "
         f"{c.bulletin()}) to the end of {later_month.name} (as reported in {c.bulletin(later)})? "
         f"Round to two decimal places.")  # fmt: skip
    refs = [c.ref("debt", month, TOTAL), c.ref("debt", later_month, TOTAL, issue=later)]
    return q, {"op": "pct_change", "refs": refs, "decimals": 2, "suffix": "%"}


def year_over_year(c: Context, later: Issue):
    column = c.rng.choice(("Individual income taxes", "Excise taxes", "Employment taxes"))
    month, later_month = c.issue.latest, later.latest
    q = (f"By how much did {RECEIPT_PHRASES[column]} change from {month.name} (as reported in {c.bulletin()}) to "
         f"{later_month.name} (as reported in {c.bulletin(later)})? Answer in millions of dollars, with a negative "
         f"number for a decrease.")  # fmt: skip
    refs = [c.ref("receipts", month, column), c.ref("receipts", later_month, column, issue=later)]
    return q, {"op": "diff", "refs": refs}


EASY = (lookup_flow, lookup_debt, lookup_rate, largest_category, summary_figure)
HARD = (month_change, tax_ratio, six_month_sum, unit_change, rate_mean, interest_share, marketable_debt, yield_spread)
ACROSS = (debt_growth, year_over_year)


def answer_of(derivation: dict, series: Series) -> str:
    return evaluate(derivation, figure_from_series(series))
