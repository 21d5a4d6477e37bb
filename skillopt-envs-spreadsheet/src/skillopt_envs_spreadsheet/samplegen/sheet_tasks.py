"""Sheet-level templates: reshape tables (sort, filter, pivot, dedupe, split, merge).

Answer areas have a fixed size per task; where the result is shorter in some cases
the rest of the area must stay empty, as in SpreadsheetBench.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from skillopt_envs_spreadsheet.samplegen.core import (
    CATEGORIES,
    CITIES,
    DEPARTMENTS,
    MONTHS,
    PRODUCTS,
    SHEET,
    Template,
    day,
    money,
    person,
    table,
    unique_names,
)

SAVE = "wb.save(OUTPUT_PATH)\n"


def s_sort(v: int) -> Template:
    def make(rng):
        rows = [[n, rng.choice(DEPARTMENTS[:4]), rng.randrange(40000, 120000, 500)] for n in unique_names(rng, 10)]
        ordered = sorted(rows, key=lambda r: -r[2]) if v == 0 else sorted(rows, key=lambda r: (r[1], r[0]))
        head = ["Name", "Department", "Salary"]
        return {"Staff": table(head, rows)}, {"Staff": table(head, ordered)}

    if v == 0:
        text = "Sort the table of the Staff sheet in place by Salary, highest first (keep the header in row 1; keep the original order of equal salaries)."
        key = "key=lambda r: -r[2]"
    else:
        text = "Sort the table of the Staff sheet in place by Department (A to Z), and by Name (A to Z) within a department. Keep the header in row 1."
        key = "key=lambda r: (r[1], r[0])"
    return Template(
        key=f"sort-{'ab'[v]}", instruction_type=SHEET, category="sorting", make_case=make, instruction=text,
        answer_position="Staff!A2:C11",
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Staff"]
rows = [list(r) for r in ws.iter_rows(min_row=2, values_only=True) if any(v is not None for v in r)]
rows.sort({key})
for i, row in enumerate(rows, start=2):
    for j, value in enumerate(row, start=1):
        ws.cell(i, j).value = value
{SAVE}""")


def s_filter(v: int) -> Template:
    target = "Open" if v == 0 else "High Priority"

    def make(rng):
        owners = unique_names(rng, 4)
        rows = [[f"T-{100 + i}", rng.choice(["Open", "Closed", "Pending"]), rng.choice(["High", "Medium", "Low"]),
                 rng.choice(owners)] for i in range(12)]
        head = ["ID", "Status", "Priority", "Owner"]
        keep = [r for r in rows if (r[1] == "Open" if v == 0 else r[2] == "High")]
        init = {"Tickets": table(head, rows)}
        return init, {**init, target: table(head, keep)}

    cond = "row[1] == 'Open'" if v == 0 else "row[2] == 'High'"
    what = "whose Status is Open" if v == 0 else "whose Priority is High"
    return Template(
        key=f"filter-{'ab'[v]}", instruction_type=SHEET, category="filtering", make_case=make,
        instruction=f"Create a new sheet named '{target}' holding the header row of the Tickets sheet followed by every ticket "
                    f"{what}, in their original order. Leave the Tickets sheet unchanged.",
        answer_position=f"'{target}'!A1:D13",
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
src = wb["Tickets"]
out = wb.create_sheet("{target}")
rows = list(src.iter_rows(values_only=True))
out.append(rows[0])
for row in rows[1:]:
    if {cond}:
        out.append(row)
{SAVE}""")


def s_pivot(v: int) -> Template:
    if v == 0:
        regions, products = ["East", "North", "West"], ["Chair", "Desk", "Lamp"]

        def make(rng):
            rows = [[rng.choice(regions), rng.choice(products), money(rng, 20, 900)] for _ in range(15)]
            total = defaultdict(float)
            for reg, prod, amount in rows:
                total[(reg, prod)] += amount
            present_r = sorted({r[0] for r in rows})
            present_p = sorted({r[1] for r in rows})
            summary = [["Region", *present_p]] + [[reg, *[total.get((reg, p), 0) for p in present_p]] for reg in present_r]
            init = {"Sales": table(["Region", "Product", "Amount"], rows)}
            return init, {**init, "Summary": summary}

        return Template(
            key="pivot-a", instruction_type=SHEET, category="pivot", make_case=make,
            instruction="Build a pivot table in a new sheet 'Summary': A1 = 'Region', then the products that occur in the Sales "
                        "sheet in alphabetical order across row 1 (B1 onward), the regions that occur in alphabetical order "
                        "down column A (A2 onward), and in each "
                        "cell the total Amount of that region and product from the Sales sheet (0 when there is none).",
            answer_position="Summary!A1:D4",
            solution="""import openpyxl
from collections import defaultdict
wb = openpyxl.load_workbook(INPUT_PATH)
rows = [r for r in wb["Sales"].iter_rows(min_row=2, values_only=True) if r[0] is not None]
regions = sorted({r[0] for r in rows})
products = sorted({r[1] for r in rows})
total = defaultdict(float)
for region, product, amount in rows:
    total[(region, product)] += amount
out = wb.create_sheet("Summary")
out.append(["Region", *products])
for region in regions:
    out.append([region, *[total.get((region, p), 0) for p in products]])
wb.save(OUTPUT_PATH)
""")

    months = MONTHS[:6]

    def make(rng):
        rows = sorted(([dt.datetime(2024, rng.randint(1, 6), rng.randint(1, 28)), money(rng, 10, 700)] for _ in range(20)),
                      key=lambda r: r[0])
        monthly = [["Month", "Total", "Count"]]
        for i, m in enumerate(months, start=1):
            amounts = [a for d, a in rows if d.month == i]
            monthly.append([m, sum(amounts), len(amounts)])
        init = {"Sales": table(["Date", "Amount"], rows)}
        return init, {**init, "Monthly": monthly}

    return Template(
        key="pivot-b", instruction_type=SHEET, category="pivot", make_case=make,
        instruction="Summarise the Sales sheet by month in a new sheet 'Monthly' with the header Month, Total, Count and "
                    "one row for each month from January to June 2024 (full month names), giving the total Amount and the "
                    "number of sales in that month (0 for months without sales).",
        answer_position="Monthly!A1:C7",
        solution="""import calendar
import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
rows = [r for r in wb["Sales"].iter_rows(min_row=2, values_only=True) if r[0] is not None]
out = wb.create_sheet("Monthly")
out.append(["Month", "Total", "Count"])
for m in range(1, 7):
    amounts = [a for d, a in rows if d.month == m]
    out.append([calendar.month_name[m], sum(amounts), len(amounts)])
wb.save(OUTPUT_PATH)
""")


def s_dedupe(v: int) -> Template:
    sheet = "Contacts" if v == 0 else "Orders"
    head = ["Name", "City", "Phone"] if v == 0 else ["Order ID", "Customer", "Amount"]

    def make(rng):
        if v == 0:
            base = [[n, rng.choice(CITIES)[0], f"555-{rng.randint(1000, 9999)}"] for n in unique_names(rng, 10)]
        else:
            base = [[f"O-{500 + i}", " ".join(person(rng)), money(rng, 10, 600)] for i in range(10)]
        rows = [list(r) for r in base]
        for _ in range(4):
            dup = list(rng.choice(base))
            if v == 1:
                dup[2] = money(rng, 10, 600)
            rows.insert(rng.randint(1, len(rows)), dup)
        kept, seen = [], set()
        for r in rows:
            key = tuple(r) if v == 0 else r[0]
            if key not in seen:
                seen.add(key)
                kept.append(r)
        return {sheet: table(head, rows)}, {sheet: table(head, kept)}

    if v == 0:
        text = "Remove duplicate rows (rows identical in every column) from the Contacts sheet in place, keeping the first occurrence. Remaining rows move up; no empty rows may be left inside or below the table."
        key = "tuple(row)"
    else:
        text = "The Orders sheet repeats some Order IDs. Keep only the first row of each Order ID, in place: later rows move up and nothing may remain below the table."
        key = "row[0]"
    return Template(
        key=f"dedupe-{'ab'[v]}", instruction_type=SHEET, category="filtering", make_case=make, instruction=text,
        answer_position=f"{sheet}!A1:C15",
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["{sheet}"]
rows = [list(r) for r in ws.iter_rows(min_row=2, values_only=True)]
kept, seen = [], set()
for row in rows:
    key = {key}
    if key not in seen:
        seen.add(key)
        kept.append(row)
ws.delete_rows(2, ws.max_row)
for row in kept:
    ws.append(row)
{SAVE}""")


def s_reshape(v: int) -> Template:
    if v == 0:
        def make(rng):
            metrics = rng.sample(["Revenue", "Costs", "Staff", "Clients", "Orders", "Returns"], 3)
            data = [["Metric", 2020, 2021, 2022, 2023]] + [[m, *[rng.randint(10, 999) for _ in range(4)]] for m in metrics]
            transposed = [list(col) for col in zip(*data)]
            return {"Data": data}, {"Data": data, "Transposed": transposed}

        return Template(
            key="reshape-a", instruction_type=SHEET, category="pivot", make_case=make,
            instruction="Copy the whole table of the Data sheet into a new sheet 'Transposed', transposed: rows become columns and columns become rows, starting at A1.",
            answer_position="Transposed!A1:D5",
            solution="""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
rows = list(wb["Data"].iter_rows(values_only=True))
out = wb.create_sheet("Transposed")
for col in zip(*rows):
    out.append(list(col))
wb.save(OUTPUT_PATH)
""")

    def make(rng):
        products = rng.sample(PRODUCTS, 4)
        wide = [["Product", "Jan", "Feb", "Mar"]] + [[p, *[rng.randint(0, 300) for _ in range(3)]] for p in products]
        long = [["Product", "Month", "Sales"]] + [[r[0], m, r[i + 1]] for r in wide[1:] for i, m in enumerate(wide[0][1:])]
        return {"Wide": wide}, {"Wide": wide, "Long": long}

    return Template(
        key="reshape-b", instruction_type=SHEET, category="pivot", make_case=make,
        instruction="Unpivot the Wide sheet into a new sheet 'Long' with the header Product, Month, Sales and one row per "
                    "product and month (products in their original order, and for each product the months Jan, Feb, Mar).",
        answer_position="Long!A1:C13",
        solution="""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
rows = list(wb["Wide"].iter_rows(values_only=True))
months = rows[0][1:]
out = wb.create_sheet("Long")
out.append(["Product", "Month", "Sales"])
for row in rows[1:]:
    for month, value in zip(months, row[1:]):
        out.append([row[0], month, value])
wb.save(OUTPUT_PATH)
""")


def s_split(v: int) -> Template:
    src, head, col, groups = (("All", ["Date", "Region", "Amount"], 1, ["East", "West"]) if v == 0
                              else ("Invoices", ["Invoice", "Customer", "Status"], 2, ["Paid", "Unpaid"]))

    def make(rng):
        if v == 0:
            rows = sorted(([day(rng), rng.choice(groups), money(rng, 10, 999)] for _ in range(12)), key=lambda r: r[0])
        else:
            rows = [[f"INV-{900 + i}", " ".join(person(rng)), rng.choice(groups)] for i in range(12)]
        init = {src: table(head, rows)}
        return init, {**init, **{g: table(head, [r for r in rows if r[col] == g]) for g in groups}}

    position = "East!A1:C13,West!A1:C13" if v == 0 else "'Paid'!A1:C13, 'Unpaid'!A1:C13"
    return Template(
        key=f"split-sheets-{'ab'[v]}", instruction_type=SHEET, category="filtering", make_case=make,
        instruction=f"Split the {src} sheet by its {head[col]} column: create one new sheet per value ({' and '.join(repr(g) for g in groups)}), "
                    f"each with the header row followed by the matching rows in their original order. Keep the {src} sheet as it is.",
        answer_position=position,
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
rows = list(wb["{src}"].iter_rows(values_only=True))
for group in {groups!r}:
    out = wb.create_sheet(group)
    out.append(rows[0])
    for row in rows[1:]:
        if row[{col}] == group:
            out.append(row)
{SAVE}""")


def s_append(v: int) -> Template:
    def make(rng):
        q1 = [[rng.choice(PRODUCTS), rng.randint(1, 80)] for _ in range(5)]
        q2 = [[rng.choice(PRODUCTS), rng.randint(1, 80)] for _ in range(5)]
        init = {"Q1": table(["Item", "Units"], q1), "Q2": table(["Item", "Units"], q2)}
        if v == 0:
            merged = table(["Item", "Units"], q1 + q2)
        else:
            merged = table(["Quarter", "Item", "Units"], [["Q1", *r] for r in q1] + [["Q2", *r] for r in q2])
        return init, {**init, "All": merged}

    if v == 0:
        text = "Create a sheet 'All' with the header Item, Units followed by all rows of sheet Q1 and then all rows of sheet Q2."
        body = """out.append(["Item", "Units"])
for name in ("Q1", "Q2"):
    for row in wb[name].iter_rows(min_row=2, values_only=True):
        out.append(list(row))"""
        position = "All!A1:B11"
    else:
        text = ("Create a sheet 'All' with the header Quarter, Item, Units: all rows of sheet Q1 and then of sheet Q2, each "
                "prefixed with its sheet name (Q1 or Q2) in the Quarter column.")
        body = """out.append(["Quarter", "Item", "Units"])
for name in ("Q1", "Q2"):
    for row in wb[name].iter_rows(min_row=2, values_only=True):
        out.append([name, *row])"""
        position = "All!A1:C11"
    return Template(
        key=f"append-{'ab'[v]}", instruction_type=SHEET, category="pivot", make_case=make, instruction=text,
        answer_position=position,
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
out = wb.create_sheet("All")
{body}
{SAVE}""")


def s_group(v: int) -> Template:
    def make(rng):
        depts = rng.sample(DEPARTMENTS, rng.randint(4, 6))
        rows = [[rng.choice(depts), rng.choice(CATEGORIES), money(rng, 10, 2500)] for _ in range(14)]
        total, largest = defaultdict(float), defaultdict(float)
        for d, _c, a in rows:
            total[d] += a
            largest[d] = max(largest[d], a)
        present = sorted(total)
        if v == 0:
            out = [["Department", "Total"]] + [[d, total[d]] for d in sorted(present, key=lambda d: (-total[d], d))]
        else:
            out = [["Department", "Total", "Largest Expense"]] + [[d, total[d], largest[d]] for d in present]
        init = {"Expenses": table(["Department", "Category", "Amount"], rows)}
        return init, {**init, "Totals": out}

    if v == 0:
        text = ("Create a sheet 'Totals' with the header Department, Total and one row per department of the Expenses sheet "
                "with its total Amount, sorted by Total from highest to lowest.")
        body = """out.append(["Department", "Total"])
for dept in sorted(total, key=lambda d: (-total[d], d)):
    out.append([dept, total[dept]])"""
        position = "Totals!A1:B7"
    else:
        text = ("Create a sheet 'Totals' with the header Department, Total, Largest Expense and one row per department of "
                "the Expenses sheet (departments A to Z): the total Amount and the single largest Amount.")
        body = """out.append(["Department", "Total", "Largest Expense"])
for dept in sorted(total):
    out.append([dept, total[dept], largest[dept]])"""
        position = "Totals!A1:C7"
    return Template(
        key=f"group-{'ab'[v]}", instruction_type=SHEET, category="aggregation", make_case=make, instruction=text,
        answer_position=position,
        solution=f"""import openpyxl
from collections import defaultdict
wb = openpyxl.load_workbook(INPUT_PATH)
total, largest = defaultdict(float), defaultdict(float)
for dept, _category, amount in wb["Expenses"].iter_rows(min_row=2, values_only=True):
    if dept is None:
        continue
    total[dept] += amount
    largest[dept] = max(largest[dept], amount)
out = wb.create_sheet("Totals")
{body}
{SAVE}""")


def s_clean_rows(v: int) -> Template:
    sheet = "Log, 2024" if v == 0 else "Q3 'draft' items"

    def make(rng):
        if v == 0:
            users = unique_names(rng, 3)
            start = dt.datetime(2024, rng.randint(1, 12), rng.randint(1, 28), 8, 0)
            rows = [[start + dt.timedelta(minutes=17 * i), rng.choice(["login", "upload", "logout", "error"]), rng.choice(users)]
                    for i in range(12)]
            kept = list(rows)
            for _ in range(4):
                rows.insert(rng.randint(1, len(rows) - 1), [None, None, None])
            head = ["Time", "Event", "User"]
        else:
            rows = [[f"{rng.choice(PRODUCTS)} {i + 1}", rng.choice([0, 0, 1, 2, 5, 8, None]), money(rng, 1, 90)] for i in range(14)]
            kept = [r for r in rows if r[1]]
            head = ["Item", "Qty", "Price"]
        return {sheet: table(head, rows)}, {sheet: table(head, kept)}

    if v == 0:
        text = f"The sheet '{sheet}' has completely empty rows inside its table. Delete them in place so the rows below move up."
        cond = "any(v is not None for v in row)"
        position = "'Log, 2024'!A1:C17"
    else:
        text = f"In the sheet \"{sheet}\", delete (in place) every row whose Qty is 0 or empty; the rows below move up."
        cond = "row[1] not in (0, None, '')"
        position = "'Q3 ''draft'' items'!A1:C15"
    return Template(
        key=f"clean-rows-{'ab'[v]}", instruction_type=SHEET, category="filtering", make_case=make, instruction=text,
        answer_position=position,
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb[{sheet!r}]
for r in range(ws.max_row, 1, -1):
    row = [c.value for c in ws[r]]
    if not ({cond}):
        ws.delete_rows(r)
{SAVE}""")


def s_top(v: int) -> Template:
    src, target, n = ("Scores", "Top 5", 5) if v == 0 else ("Products", "Bottom 3", 3)

    def make(rng):
        if v == 0:
            rows = [[name, rng.randint(40, 100)] for name in unique_names(rng, 12)]
            picked = sorted(rows, key=lambda r: -r[1])[:n]
            head = ["Student", "Score"]
        else:
            rows = [[f"{p} {c}", money(rng, 1, 45)] for p in PRODUCTS[:4] for c in ("Pro", "Lite")][:8]
            rng.shuffle(rows)
            picked = sorted(rows, key=lambda r: r[1])[:n]
            head = ["Product", "Margin"]
        init = {src: table(head, rows)}
        return init, {**init, target: table(head, picked)}

    if v == 0:
        text = "Create a sheet 'Top 5' with the header of the Scores sheet and its 5 rows with the highest Score, highest first (ties keep the original order)."
        key = "key=lambda r: -r[1]"
    else:
        text = "Create a sheet 'Bottom 3' with the header of the Products sheet and the 3 products with the lowest Margin, lowest first."
        key = "key=lambda r: r[1]"
    return Template(
        key=f"top-{'ab'[v]}", instruction_type=SHEET, category="sorting", make_case=make, instruction=text,
        answer_position=f"'{target}'!A1:B{n + 1}",
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
rows = list(wb["{src}"].iter_rows(values_only=True))
out = wb.create_sheet("{target}")
out.append(rows[0])
for row in sorted(rows[1:], {key})[:{n}]:
    out.append(row)
{SAVE}""")


def s_columns(v: int) -> Template:
    def make(rng):
        rows = []
        for name in unique_names(rng, 10):
            first, last = name.split(" ")
            title = rng.choice(["Analyst", "Engineer", "Manager", "Designer", "Clerk"])
            if v == 0:
                rows.append([first, last, title, f"{first.lower()}.{last.lower()}@example.com"])
            else:
                rows.append([name, rng.choice(["", "call back", "on leave", "new hire"]) or None, title, f"555-{rng.randint(1000, 9999)}"])
        if v == 0:
            init = table(["First", "Last", "Title", "Email"], rows)
            gold = table(["First", "Full Name", "Last", "Title", "Email"], [[r[0], f"{r[0]} {r[1]}", *r[1:]] for r in rows])
        else:
            init = table(["Name", "Notes", "Title", "Phone"], rows)
            gold = table(["Name", "Title", "Phone"], [[r[0], r[2], r[3]] for r in rows])
        return {"Staff": init}, {"Staff": gold}

    if v == 0:
        text = ("Insert a new column B titled 'Full Name' into the Staff sheet, holding First and Last joined by a space; "
                "the existing columns from B onward move one column to the right.")
        body = """ws.insert_cols(2)
ws.cell(1, 2).value = "Full Name"
for r in range(2, ws.max_row + 1):
    ws.cell(r, 2).value = f"{ws.cell(r, 1).value} {ws.cell(r, 3).value}\""""
        position = "Staff!A1:E11"
    else:
        text = "Delete the Notes column (B) of the Staff sheet; the columns to its right move one column to the left."
        body = "ws.delete_cols(2)"
        position = "Staff!A1:D11"
    return Template(
        key=f"columns-{'ab'[v]}", instruction_type=SHEET, category="formulas", make_case=make, instruction=text,
        answer_position=position,
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Staff"]
{body}
{SAVE}""")


TEMPLATE_FACTORIES = [s_sort, s_filter, s_pivot, s_dedupe, s_reshape, s_split, s_append, s_group, s_clean_rows, s_top, s_columns]
