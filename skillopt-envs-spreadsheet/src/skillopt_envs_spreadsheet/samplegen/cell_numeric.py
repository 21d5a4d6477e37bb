"""Cell-level templates on numbers: formulas, aggregation and lookups.

Each ``t_*`` function returns one of two variants (v=0, v=1) of a kind of task.
"""

from __future__ import annotations

import statistics

from skillopt_envs_spreadsheet.samplegen.core import (
    CATEGORIES,
    CELL,
    MONTHS,
    PRODUCTS,
    REGIONS,
    Template,
    day,
    money,
    person,
    table,
    unique_names,
)

N = 10  # data rows of most tables


def t_row_total(v: int) -> Template:
    if v == 0:
        def make(rng):
            rows = [[f"SO-{1001 + i}", rng.randint(1, 20), money(rng, 2, 80)] for i in range(N)]
            init = {"Orders": table(["Order", "Qty", "Unit Price", "Total"], rows)}
            gold = {"Orders": table(["Order", "Qty", "Unit Price", "Total"], [r + [r[1] * r[2]] for r in rows])}
            return init, gold

        return Template(
            key="row-total-a", instruction_type=CELL, category="formulas", make_case=make,
            instruction="Fill the Total column (D) of the Orders sheet: for every order, Total = Qty x Unit Price.",
            answer_position="Orders!D2:D11",
            solution="""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Orders"]
for r in range(2, ws.max_row + 1):
    ws.cell(r, 4).value = ws.cell(r, 2).value * ws.cell(r, 3).value
wb.save(OUTPUT_PATH)
""")

    def make(rng):
        items = rng.sample(CATEGORIES + ["Rent", "Payroll", "Training"], 8)
        rows = [[item, rng.randint(100, 5000), rng.randint(100, 5000), rng.randint(100, 5000)] for item in items]
        init = {"Budget": table(["Item", "Q1", "Q2", "Q3", "Total"], rows)}
        gold = {"Budget": table(["Item", "Q1", "Q2", "Q3", "Total"], [r + [r[1] + r[2] + r[3]] for r in rows])}
        return init, gold

    return Template(
        key="row-total-b", instruction_type=CELL, category="formulas", make_case=make,
        instruction="In the Budget sheet, put each item's total over Q1, Q2 and Q3 into the Total column.",
        answer_position="'Budget'!E2:E9",
        solution="""from openpyxl import load_workbook
wb = load_workbook(INPUT_PATH)
ws = wb["Budget"]
for row in ws.iter_rows(min_row=2):
    if row[0].value is None:
        continue
    row[4].value = sum(c.value for c in row[1:4])
wb.save(OUTPUT_PATH)
""")


def t_total_below(v: int) -> Template:
    if v == 0:
        def make(rng):
            rows = [[day(rng), rng.choice(CATEGORIES), money(rng, 5, 900)] for _ in range(N)]
            rows.sort(key=lambda r: r[0])
            base = table(["Date", "Category", "Amount"], rows)
            init = {"Expenses": base + [["Total", None, None]]}
            gold = {"Expenses": base + [["Total", None, sum(r[2] for r in rows)]]}
            return init, gold

        return Template(
            key="total-below-a", instruction_type=CELL, category="aggregation", make_case=make,
            instruction="Row 12 of the Expenses sheet is labelled 'Total'. Put the sum of all amounts above it into C12.",
            answer_position="Expenses!C12",
            solution="""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Expenses"]
total = 0
for r in range(2, ws.max_row + 1):
    if ws.cell(r, 1).value == "Total":
        ws.cell(r, 3).value = total
        break
    total += ws.cell(r, 3).value or 0
wb.save(OUTPUT_PATH)
""")

    def make(rng):
        names = unique_names(rng, N)
        rows = [[n, rng.randint(40, 100), rng.randint(40, 100)] for n in names]
        base = table(["Student", "Test 1", "Test 2"], rows)
        init = {"Scores": base + [["Average", None, None]]}
        gold = {"Scores": base + [["Average", sum(r[1] for r in rows) / N, sum(r[2] for r in rows) / N]]}
        return init, gold

    return Template(
        key="total-below-b", instruction_type=CELL, category="aggregation", make_case=make,
        instruction="The last row of the Scores sheet is labelled 'Average'. Fill it with the average of each test column.",
        answer_position="Scores!B12:C12",
        solution="""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Scores"]
last = ws.max_row
for col in (2, 3):
    values = [ws.cell(r, col).value for r in range(2, last)]
    ws.cell(last, col).value = sum(values) / len(values)
wb.save(OUTPUT_PATH)
""")


def t_sumif(v: int) -> Template:
    header = "Total Sales" if v == 0 else "Number of Sales"

    def make(rng):
        rows = [[rng.choice(REGIONS), " ".join(person(rng)), money(rng, 50, 2000)] for _ in range(12)]
        data = table(["Region", "Rep", "Amount"], rows)
        init_rows = [r + [None] for r in data]
        gold_rows = [r + [None] for r in data]
        init_rows[0] += ["Region", header]
        gold_rows[0] += ["Region", header]
        for i, region in enumerate(sorted(REGIONS), start=1):
            matches = [r[2] for r in rows if r[0] == region]
            init_rows[i] += [region, None]
            gold_rows[i] += [region, sum(matches) if v == 0 else len(matches)]
        return {"Sales": init_rows}, {"Sales": gold_rows}

    agg = "sum of Amount" if v == 0 else "number of sales rows"
    code_line = "totals[region] = totals.get(region, 0) + amount" if v == 0 else "totals[region] = totals.get(region, 0) + 1"
    return Template(
        key=f"sumif-{'ab'[v]}", instruction_type=CELL, category="aggregation", make_case=make,
        instruction=f"The Sales sheet lists sales in A:C and a summary block in E1:F5 with one region per row. "
                    f"Fill F2:F5 with the {agg} for each region (0 when a region has none).",
        answer_position="Sales!F2:F5",
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Sales"]
totals = {{}}
for r in range(2, ws.max_row + 1):
    region, amount = ws.cell(r, 1).value, ws.cell(r, 3).value
    if region is None:
        continue
    {code_line}
for r in range(2, 6):
    ws.cell(r, 6).value = totals.get(ws.cell(r, 5).value, 0)
wb.save(OUTPUT_PATH)
""")


def t_lookup(v: int) -> Template:
    def make(rng):
        codes = [f"P-{101 + i}" for i in range(len(PRODUCTS))]
        prices = {c: money(rng, 10, 400) for c in codes}
        names = dict(zip(codes, PRODUCTS))
        pool = codes + (["P-199", "P-250"] if v == 1 else [])
        orders = [[f"A{5000 + i}", rng.choice(pool), rng.randint(1, 9)] for i in range(N)]
        price_rows = table(["Code", "Product", "Price"], [[c, names[c], prices[c]] for c in codes])
        last = "Unit Price" if v == 0 else "Product"
        filled = [o + [prices[o[1]] if v == 0 else names.get(o[1], "Unknown")] for o in orders]
        init = {"Orders": table(["Order ID", "Product Code", "Qty", last], orders), "Prices": price_rows}
        gold = {"Orders": table(["Order ID", "Product Code", "Qty", last], filled), "Prices": price_rows}
        return init, gold

    if v == 0:
        text = "Fill the Unit Price column of the Orders sheet by looking up each Product Code in the Prices sheet."
        body = """prices = {row[0]: row[2] for row in wb["Prices"].iter_rows(min_row=2, values_only=True)}
for r in range(2, ws.max_row + 1):
    ws.cell(r, 4).value = prices[ws.cell(r, 2).value]"""
    else:
        text = ("Fill the Product column of the Orders sheet with the product name for each Product Code, taken from "
                "the Prices sheet. Write 'Unknown' when a code is not listed there.")
        body = """names = {row[0]: row[1] for row in wb["Prices"].iter_rows(min_row=2, values_only=True)}
for r in range(2, ws.max_row + 1):
    ws.cell(r, 4).value = names.get(ws.cell(r, 2).value, "Unknown")"""
    return Template(
        key=f"lookup-{'ab'[v]}", instruction_type=CELL, category="lookup", make_case=make, instruction=text,
        answer_position="Orders!D2:D11",
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Orders"]
{body}
wb.save(OUTPUT_PATH)
""")


def t_grades(v: int) -> Template:
    def letter(score):
        return "A" if score >= 90 else "B" if score >= 80 else "C" if score >= 70 else "D" if score >= 60 else "F"

    def make(rng):
        rows = [[n, rng.randint(40, 100)] for n in unique_names(rng, 12)]
        mean = sum(r[1] for r in rows) / len(rows)
        head = ["Student", "Score", "Grade" if v == 0 else "Result"]
        if v == 0:
            gold_rows = [r + [letter(r[1])] for r in rows]
        else:
            gold_rows = [r + ["Above average" if r[1] >= mean else "Below average"] for r in rows]
        return {"Grades": table(head, rows)}, {"Grades": table(head, gold_rows)}

    if v == 0:
        text = ("In the Grades sheet, fill column C with a letter grade from the Score: A for 90 or more, B for 80-89, "
                "C for 70-79, D for 60-69, F below 60.")
        body = """for r in range(2, ws.max_row + 1):
    s = ws.cell(r, 2).value
    ws.cell(r, 3).value = "A" if s >= 90 else "B" if s >= 80 else "C" if s >= 70 else "D" if s >= 60 else "F\""""
    else:
        text = ("In the Grades sheet, write 'Above average' in column C when the student's Score is at least the average "
                "score of all students, otherwise 'Below average'.")
        body = """scores = [ws.cell(r, 2).value for r in range(2, ws.max_row + 1)]
mean = sum(scores) / len(scores)
for r in range(2, ws.max_row + 1):
    ws.cell(r, 3).value = "Above average" if ws.cell(r, 2).value >= mean else "Below average\""""
    return Template(
        key=f"grades-{'ab'[v]}", instruction_type=CELL, category="formulas", make_case=make, instruction=text,
        answer_position="Grades!C2:C13",
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Grades"]
{body}
wb.save(OUTPUT_PATH)
""")


def t_rank(v: int) -> Template:
    def make(rng):
        names = unique_names(rng, 12)
        if v == 0:
            rows = [[n, rng.randint(50, 100)] for n in names]
            ranks = [1 + sum(1 for o in rows if o[1] > r[1]) for r in rows]
            head = ["Player", "Points", "Rank"]
        else:
            rows = [[n, money(rng, 20, 40)] for n in names]
            ranks = [1 + sum(1 for o in rows if o[1] < r[1]) for r in rows]
            head = ["Runner", "Time (min)", "Place"]
        sheet = "Leaderboard" if v == 0 else "Race"
        return {sheet: table(head, rows)}, {sheet: table(head, [r + [k] for r, k in zip(rows, ranks)])}

    if v == 0:
        text = "Rank the players of the Leaderboard sheet by Points in column C: 1 for the most points; tied players share the best rank (like RANK.EQ)."
        sheet, cmp = "Leaderboard", ">"
    else:
        text = "Fill Place (column C) of the Race sheet: 1 for the fastest (lowest) time; runners with equal times share the better place."
        sheet, cmp = "Race", "<"
    return Template(
        key=f"rank-{'ab'[v]}", instruction_type=CELL, category="formulas", make_case=make, instruction=text,
        answer_position=f"{sheet}!C2:C13",
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["{sheet}"]
values = [ws.cell(r, 2).value for r in range(2, ws.max_row + 1)]
for i, value in enumerate(values):
    ws.cell(i + 2, 3).value = 1 + sum(1 for other in values if other {cmp} value)
wb.save(OUTPUT_PATH)
""")


def t_running(v: int) -> Template:
    head = ["Month", "Revenue", "Cumulative" if v == 0 else "3-Month Average"]

    def make(rng):
        rows = [[m, rng.randint(1000, 9000)] for m in MONTHS]
        gold, total = [], 0
        for i, r in enumerate(rows):
            total += r[1]
            if v == 0:
                gold.append(r + [total])
            else:
                gold.append(r + ([None] if i < 2 else [(rows[i - 2][1] + rows[i - 1][1] + r[1]) / 3]))
        return {"Revenue": table(head, rows)}, {"Revenue": table(head, gold)}

    if v == 0:
        text = "Fill the Cumulative column of the Revenue sheet with the running total of Revenue from January to each month."
        body = """total = 0
for r in range(2, ws.max_row + 1):
    total += ws.cell(r, 2).value
    ws.cell(r, 3).value = total"""
    else:
        text = ("Fill the '3-Month Average' column of the Revenue sheet with the average Revenue of the month and the two "
                "months before it. Leave it empty for January and February.")
        body = """values = [ws.cell(r, 2).value for r in range(2, ws.max_row + 1)]
for i in range(2, len(values)):
    ws.cell(i + 2, 3).value = (values[i - 2] + values[i - 1] + values[i]) / 3"""
    return Template(
        key=f"running-{'ab'[v]}", instruction_type=CELL, category="formulas", make_case=make, instruction=text,
        answer_position="Revenue!C2:C13",
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Revenue"]
{body}
wb.save(OUTPUT_PATH)
""")


def t_share(v: int) -> Template:
    if v == 0:
        def make(rng):
            rows = [[p, rng.randint(100, 5000)] for p in PRODUCTS]
            total = sum(r[1] for r in rows)
            head = ["Product", "Sales", "Share"]
            return {"Products": table(head, rows)}, {"Products": table(head, [r + [r[1] / total] for r in rows])}

        return Template(
            key="share-a", instruction_type=CELL, category="formulas", make_case=make,
            instruction="In the Products sheet, fill Share with each product's fraction of total Sales (a number between 0 and 1, not a percentage text).",
            answer_position="Products!C2:C7",
            solution="""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Products"]
total = sum(ws.cell(r, 2).value for r in range(2, ws.max_row + 1))
for r in range(2, ws.max_row + 1):
    ws.cell(r, 3).value = ws.cell(r, 2).value / total
wb.save(OUTPUT_PATH)
""")

    def make(rng):
        rows = [[m, rng.randint(1000, 9000)] for m in MONTHS[:8]]
        gold = [rows[0] + [None]] + [r + [(r[1] - rows[i][1]) / rows[i][1]] for i, r in enumerate(rows[1:])]
        head = ["Month", "Sales", "Change"]
        return {"Monthly": table(head, rows)}, {"Monthly": table(head, gold)}

    return Template(
        key="share-b", instruction_type=CELL, category="formulas", make_case=make,
        instruction="In the Monthly sheet, fill Change with the relative change of Sales from the previous month "
                    "((this - previous) / previous, as a number). Leave the first month empty.",
        answer_position="Monthly!C2:C9",
        solution="""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Monthly"]
for r in range(3, ws.max_row + 1):
    prev, cur = ws.cell(r - 1, 2).value, ws.cell(r, 2).value
    ws.cell(r, 3).value = (cur - prev) / prev
wb.save(OUTPUT_PATH)
""")


def t_row_max(v: int) -> Template:
    last = "Best Month" if v == 0 else "Range"

    def make(rng):
        stores = rng.sample(["Downtown", "Airport", "Harbor", "Mall", "Campus", "Station", "Park", "Riverside", "Uptown"], 8)
        rows = [[s, rng.randint(50, 300), rng.randint(50, 300), rng.randint(50, 300)] for s in stores]
        head = ["Store", "Jan", "Feb", "Mar", last]
        if v == 0:
            gold = [r + [head[1 + r[1:4].index(max(r[1:4]))]] for r in rows]
        else:
            gold = [r + [max(r[1:4]) - min(r[1:4])] for r in rows]
        return {"Stores": table(head, rows)}, {"Stores": table(head, gold)}

    if v == 0:
        text = "In the Stores sheet, write into Best Month (E) the name of the month column (Jan, Feb or Mar) with the highest value; on a tie take the earliest month."
        body = """    values = [ws.cell(r, c).value for c in (2, 3, 4)]
    ws.cell(r, 5).value = ws.cell(1, 2 + values.index(max(values))).value"""
    else:
        text = "In the Stores sheet, fill Range (E) with the difference between the highest and the lowest of Jan, Feb and Mar."
        body = """    values = [ws.cell(r, c).value for c in (2, 3, 4)]
    ws.cell(r, 5).value = max(values) - min(values)"""
    return Template(
        key=f"row-max-{'ab'[v]}", instruction_type=CELL, category="lookup", make_case=make, instruction=text,
        answer_position="Stores!E2:E9",
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Stores"]
for r in range(2, ws.max_row + 1):
{body}
wb.save(OUTPUT_PATH)
""")


def t_count_single(v: int) -> Template:
    label = "Orders over 500" if v == 0 else "Distinct customers"

    def make(rng):
        customers = unique_names(rng, 6)
        rows = [[f"O-{700 + i}", rng.choice(customers), money(rng, 20, 1200)] for i in range(12)]
        value = sum(1 for r in rows if r[2] > 500) if v == 0 else len({r[1] for r in rows})
        init = table(["Order", "Customer", "Amount"], rows)
        init[0] += [None, None, label, None]
        gold = [list(r) for r in init]
        gold[0][-1] = value
        return {"Orders": init}, {"Orders": gold}

    if v == 0:
        text = "Cell F1 of the Orders sheet says 'Orders over 500'. Put in G1 the number of orders whose Amount is greater than 500."
        body = "value = sum(1 for r in range(2, ws.max_row + 1) if (ws.cell(r, 3).value or 0) > 500)"
    else:
        text = "Cell F1 of the Orders sheet says 'Distinct customers'. Put in G1 how many different customers appear in column B."
        body = "value = len({ws.cell(r, 2).value for r in range(2, ws.max_row + 1) if ws.cell(r, 2).value is not None})"
    return Template(
        key=f"count-{'ab'[v]}", instruction_type=CELL, category="aggregation", make_case=make, instruction=text,
        answer_position="Orders!G1",
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Orders"]
{body}
ws["G1"] = value
wb.save(OUTPUT_PATH)
""")


def t_weighted(v: int) -> Template:
    label = "Weighted average price" if v == 0 else "Median price"

    def make(rng):
        rows = [[f"Item {i + 1}", money(rng, 1, 60), rng.randint(1, 40)] for i in range(11)]
        if v == 0:
            value = sum(r[1] * r[2] for r in rows) / sum(r[2] for r in rows)
        else:
            value = statistics.median(r[1] for r in rows)
        init = table(["Item", "Price", "Units"], rows)
        init[0] += [None, label, None]
        gold = [list(r) for r in init]
        gold[0][-1] = value
        return {"Inventory": init}, {"Inventory": gold}

    if v == 0:
        text = "In the Inventory sheet, put into F1 the average Price weighted by Units (sum of Price x Units divided by total Units)."
        body = """rows = [(ws.cell(r, 2).value, ws.cell(r, 3).value) for r in range(2, ws.max_row + 1)]
ws["F1"] = sum(p * u for p, u in rows) / sum(u for _, u in rows)"""
    else:
        text = "In the Inventory sheet, put the median of the Price column into F1."
        body = """import statistics
ws["F1"] = statistics.median(ws.cell(r, 2).value for r in range(2, ws.max_row + 1))"""
    return Template(
        key=f"weighted-{'ab'[v]}", instruction_type=CELL, category="aggregation", make_case=make, instruction=text,
        answer_position="Inventory!F1",
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Inventory"]
{body}
wb.save(OUTPUT_PATH)
""")


def t_bonus(v: int) -> Template:
    if v == 0:
        def make(rng):
            rows = [[n, rng.randint(5000, 20000), rng.choice([8000, 10000, 12000])] for n in unique_names(rng, N)]
            head = ["Rep", "Sales", "Target", "Bonus"]
            return {"Reps": table(head, rows)}, {"Reps": table(head, [r + [r[1] * 0.1 if r[1] >= r[2] else 0] for r in rows])}

        return Template(
            key="bonus-a", instruction_type=CELL, category="formulas", make_case=make,
            instruction="In the Reps sheet, Bonus is 10% of Sales when Sales reach the Target (Sales >= Target), otherwise 0. Fill column D.",
            answer_position="Reps!D2:D11",
            solution="""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Reps"]
for r in range(2, ws.max_row + 1):
    sales, target = ws.cell(r, 2).value, ws.cell(r, 3).value
    ws.cell(r, 4).value = sales * 0.1 if sales >= target else 0
wb.save(OUTPUT_PATH)
""")

    def make(rng):
        rows = [[n, rng.randint(3000, 20000)] for n in unique_names(rng, N)]
        head = ["Rep", "Sales", "Commission"]
        return {"Reps": table(head, rows)}, {"Reps": table(head, [r + [r[1] * (0.05 if r[1] < 10000 else 0.08)] for r in rows])}

    return Template(
        key="bonus-b", instruction_type=CELL, category="formulas", make_case=make,
        instruction="In the Reps sheet, Commission is 5% of Sales for sales below 10000 and 8% of Sales for sales of 10000 or more. Fill column C.",
        answer_position="Reps!C2:C11",
        solution="""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Reps"]
for r in range(2, ws.max_row + 1):
    sales = ws.cell(r, 2).value
    ws.cell(r, 3).value = sales * (0.05 if sales < 10000 else 0.08)
wb.save(OUTPUT_PATH)
""")


def t_two_way(v: int) -> Template:
    months = MONTHS[:6]

    def make(rng):
        rates = {(reg, m): money(rng, 1, 20) for reg in REGIONS for m in months}
        matrix = [["Region", *[m[:3] for m in months]]] + [[reg, *[rates[(reg, m)] for m in months]] for reg in REGIONS]
        if v == 0:
            reg, m = rng.choice(REGIONS), rng.choice(months)
            init = [["Region", reg], ["Month", m[:3]], ["Rate", None]]
            gold = [["Region", reg], ["Month", m[:3]], ["Rate", rates[(reg, m)]]]
        else:
            queries = [(rng.choice(REGIONS), rng.choice(months)) for _ in range(4)]
            init = table(["Region", "Month", "Rate"], [[q[0], q[1][:3]] for q in queries])
            gold = table(["Region", "Month", "Rate"], [[q[0], q[1][:3], rates[q]] for q in queries])
        return {"Rates": matrix, "Lookup": init}, {"Rates": matrix, "Lookup": gold}

    if v == 0:
        text = "The Rates sheet is a table of rates by Region (rows) and Month (columns). In the Lookup sheet, put into B3 the rate for the region in B1 and the month in B2."
        body = """lk = wb["Lookup"]
lk["B3"] = rate[(lk["B1"].value, lk["B2"].value)]"""
        position = "Lookup!B3"
    else:
        text = ("The Rates sheet is a table of rates by Region (rows) and Month (columns). Each row of the Lookup sheet names a "
                "Region and a Month; fill its Rate column (C) from the Rates table.")
        body = """lk = wb["Lookup"]
for r in range(2, lk.max_row + 1):
    lk.cell(r, 3).value = rate[(lk.cell(r, 1).value, lk.cell(r, 2).value)]"""
        position = "'Lookup'!C2:C5"
    return Template(
        key=f"two-way-{'ab'[v]}", instruction_type=CELL, category="lookup", make_case=make, instruction=text,
        answer_position=position,
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
rs = wb["Rates"]
months = [c.value for c in rs[1][1:]]
rate = {{}}
for row in rs.iter_rows(min_row=2, values_only=True):
    for month, value in zip(months, row[1:]):
        rate[(row[0], month)] = value
{body}
wb.save(OUTPUT_PATH)
""")


TEMPLATE_FACTORIES = [t_row_total, t_total_below, t_sumif, t_lookup, t_grades, t_rank, t_running, t_share, t_row_max, t_count_single, t_weighted, t_bonus, t_two_way]
