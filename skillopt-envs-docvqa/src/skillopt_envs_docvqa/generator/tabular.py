"""Invoices, receipts and report tables: documents whose answers sit in fields and cells."""

from __future__ import annotations

import datetime as dt
import random

from skillopt_envs_docvqa.generator import values as V
from skillopt_envs_docvqa.generator.core import Column, Document, choose, right_edge, table
from skillopt_envs_docvqa.generator.render import MARGIN, WIDTH, Page


def invoice(rng: random.Random, doc_id: str) -> Document:
    page = Page()
    doc = Document(doc_id, "invoice", page)
    seller, buyer = V.company(rng), V.company(rng)
    while buyer == seller:
        buyer = V.company(rng)
    street, city = V.address(rng)
    page.text(MARGIN, 56, seller, 26)
    page.text(MARGIN, 94, street, 15)
    page.text(MARGIN, 116, city, 15)
    page.text(right_edge(), 56, "INVOICE", 30, align="right")
    number = V.code(rng, "INV")
    issued = V.date(rng)
    due = issued + dt.timedelta(days=30)
    page.text(right_edge(), 94, f"Invoice No: {number}", 15, align="right")
    page.text(right_edge(), 116, f"Date: {V.long_date(issued)}", 15, align="right")
    page.text(right_edge(), 138, f"Due Date: {V.numeric_date(due)}", 15, align="right")
    page.rule(MARGIN, 186, right_edge(), 186, width=2, ink=80)
    attention = V.person(rng)
    b_street, b_city = V.address(rng)
    page.text(MARGIN, 204, "Bill To:", 16)
    for i, line in enumerate((buyer, f"Attn: {attention}", b_street, b_city)):
        page.text(MARGIN + 16, 230 + 22 * i, line, 15)
    products = V.pick(rng, V.PRODUCTS, rng.randint(3, 5))
    rows, subtotal, prices = [], 0, {}
    for product in products:
        qty, unit = rng.randint(1, 12), rng.randint(4, 400) * 100 + rng.choice((0, 25, 50, 99))
        prices[product] = unit
        subtotal += qty * unit
        rows.append([product, str(qty), V.money(unit), V.money(qty * unit)])
    cols = [Column("Description", 320), Column("Qty", 80, "right"), Column("Unit Price", 140, "right"), Column("Amount", 148, "right")]
    y = table(page, MARGIN, 340, cols, rows)
    rate = rng.choice((5, 6, 8, 10))
    tax = round(subtotal * rate / 100)
    total = subtotal + tax
    for i, (label, cents) in enumerate((("Subtotal", subtotal), (f"Tax ({rate}%)", tax), ("Total Due", total))):
        page.text(right_edge() - 160, y + 18 + 26 * i, label, 16 if i == 2 else 15, align="right")
        page.text(right_edge() - 8, y + 18 + 26 * i, V.money(cents), 16 if i == 2 else 15, align="right")
    page.text(MARGIN, y + 130, f"Payment terms: Net 30. Please quote {number} with your payment.", 14)
    page.text(MARGIN, y + 154, "Thank you for your business.", 14)
    asked = rng.choice(products)
    pool = [
        ("What is the invoice number?", [number], "form"),
        ("What is the invoice date?", V.date_aliases(issued, V.long_date(issued)), "form"),
        ("What is the due date of the invoice?", V.date_aliases(due, V.numeric_date(due)), "form"),
        ("What is the total amount due?", V.money_aliases(total), "table/list"),
        (f"What is the unit price of the item '{asked}'?", V.money_aliases(prices[asked]), "table/list"),
        ("Which company is the invoice billed to?", V.company_aliases(buyer), "layout"),
        ("Which company issued the invoice?", V.company_aliases(seller), "layout"),
        ("What is the tax amount?", V.money_aliases(tax), "table/list"),
    ]
    for question in choose(rng, pool, 4):
        doc.ask(*question)
    return doc


def receipt(rng: random.Random, doc_id: str) -> Document:
    page = Page()
    doc = Document(doc_id, "receipt", page)
    left, right = 208, WIDTH - 208
    centre = WIDTH / 2
    page.frame(left - 24, 40, right + 24, 1000, ink=170)
    store = f"{rng.choice(V.COMPANY_HEADS)} Market"
    street, city = V.address(rng)
    page.text(centre, 64, store, 24, align="center")
    page.text(centre, 100, street, 14, align="center")
    page.text(centre, 120, city, 14, align="center")
    number = V.code(rng, "R", 6)
    day = V.date(rng)
    clock = f"{rng.randint(8, 20):02d}:{rng.randint(0, 59):02d}"
    page.text(left, 160, f"Receipt #: {number}", 14)
    page.text(left, 182, f"Date: {V.numeric_date(day)}", 14)
    page.text(right, 182, f"Time: {clock}", 14, align="right")
    cashier = rng.choice(V.FIRST_NAMES)
    page.text(left, 204, f"Cashier: {cashier}", 14)
    page.rule(left, 232, right, 232, ink=120)
    items = V.pick(rng, V.GROCERIES, rng.randint(4, 7))
    y, subtotal, prices = 246, 0, {}
    for item in items:
        cents = rng.randint(79, 1899)
        prices[item] = cents
        subtotal += cents
        page.text(left, y, item, 15)
        page.text(right, y, V.money(cents), 15, align="right")
        y += 26
    page.rule(left, y + 6, right, y + 6, ink=120)
    tax = round(subtotal * 0.07)
    total = subtotal + tax
    for i, (label, cents) in enumerate((("SUBTOTAL", subtotal), ("TAX 7%", tax), ("TOTAL", total))):
        page.text(left, y + 18 + 26 * i, label, 16 if i == 2 else 15)
        page.text(right, y + 18 + 26 * i, V.money(cents), 16 if i == 2 else 15, align="right")
    method = rng.choice(V.PAYMENT_METHODS)
    last4 = f"{rng.randint(0, 9999):04d}"
    paid = f"Paid by: {method}" + (f" **** {last4}" if method != "Cash" else "")
    page.text(left, y + 110, paid, 14)
    page.text(centre, y + 150, "Thank you for shopping with us!", 14, align="center")
    asked = rng.choice(items)
    pool = [
        ("What is the name of the store?", [store], "layout"),
        ("What is the total on the receipt?", V.money_aliases(total), "table/list"),
        (f"How much did the {asked.lower()} cost?", V.money_aliases(prices[asked]), "table/list"),
        ("What payment method was used?", [method], "form"),
        ("What is the date on the receipt?", V.date_aliases(day, V.numeric_date(day)), "form"),
        ("What is the name of the cashier?", [cashier], "form"),
        ("What is the receipt number?", [number], "form"),
    ]
    for question in choose(rng, pool, 4):
        doc.ask(*question)
    return doc


def report_table(rng: random.Random, doc_id: str) -> Document:
    page = Page()
    doc = Document(doc_id, "table", page)
    year = rng.choice((2021, 2022, 2023, 2024))
    measure = rng.choice(("Sales", "Units Shipped", "Service Calls", "New Accounts"))
    title = f"Quarterly {measure} by Region, {year}"
    issuer = V.company(rng)
    author, department = V.person(rng), rng.choice(V.DEPARTMENTS)
    page.text(MARGIN, 56, issuer, 18)
    page.text(MARGIN, 96, title, 24)
    page.text(MARGIN, 132, f"Prepared by {author}, {department}", 15)
    regions = V.pick(rng, V.REGIONS, rng.randint(3, 5))
    figures = {r: [rng.randint(120, 9800) * (10 if measure == "Sales" else 1) for _ in range(4)] for r in regions}
    while len({sum(f) for f in figures.values()}) < len(regions):  # a unique maximum and minimum
        figures[regions[0]][0] += 7
    rows = [[r, *(f"{v:,}" for v in figures[r]), f"{sum(figures[r]):,}"] for r in regions]
    cols = [Column("Region", 150)] + [Column(f"Q{q}", 104, "right") for q in range(1, 5)] + [Column("Total", 122, "right")]
    y = table(page, MARGIN, 176, cols, rows)
    unit = "Figures in US dollars." if measure == "Sales" else f"Figures are counts of {measure.lower()}."
    page.text(MARGIN, y + 16, unit + f" Source: {department} records.", 13)
    best = max(regions, key=lambda r: sum(figures[r]))
    worst = min(regions, key=lambda r: sum(figures[r]))
    region, quarter = rng.choice(regions), rng.randint(1, 4)
    other = rng.choice(regions)
    value = figures[region][quarter - 1]
    total = sum(figures[other])
    pool = [
        (f"What is the Q{quarter} figure for the {region} region?", [f"{value:,}", str(value)], "table/list"),
        (f"What is the total for the {other} region?", [f"{total:,}", str(total)], "table/list"),
        ("Which region has the highest total?", [best], "table/list"),
        ("Which region has the lowest total?", [worst], "table/list"),
        ("Who prepared the report?", V.person_aliases(author), "layout"),
        ("What is the title of the table?", [title], "layout"),
    ]
    for question in choose(rng, pool, 4):
        doc.ask(*question)
    return doc

