"""Cell-level templates on text and dates: cleaning, splitting, joining, date arithmetic.

Each ``t_*`` function returns one of two variants (v=0, v=1) of a kind of task.
"""

from __future__ import annotations

import datetime as dt

from skillopt_envs_spreadsheet.samplegen.core import (
    CATEGORIES,
    CELL,
    CITIES,
    STREETS,
    WEEKDAYS,
    Template,
    day,
    money,
    table,
    unique_names,
)

N = 10  # data rows of most tables


def t_dates(v: int) -> Template:
    if v == 0:
        def make(rng):
            rows = []
            for i in range(N):
                start = day(rng)
                rows.append([f"Task {i + 1}", start, start + dt.timedelta(days=rng.randint(1, 90))])
            head = ["Task", "Start", "End", "Days"]
            return {"Projects": table(head, rows)}, {"Projects": table(head, [r + [(r[2] - r[1]).days] for r in rows])}

        return Template(
            key="dates-a", instruction_type=CELL, category="dates", make_case=make,
            instruction="In the Projects sheet, put the number of days from Start to End into the Days column.",
            answer_position="Projects!D2:D11",
            solution="""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Projects"]
for r in range(2, ws.max_row + 1):
    ws.cell(r, 4).value = (ws.cell(r, 3).value - ws.cell(r, 2).value).days
wb.save(OUTPUT_PATH)
""")

    def make(rng):
        rows = [[f"INV-{300 + i}", day(rng)] for i in range(N)]
        head = ["Invoice", "Invoice Date", "Due Date"]
        return {"Invoices": table(head, rows)}, {"Invoices": table(head, [r + [r[1] + dt.timedelta(days=30)] for r in rows])}

    return Template(
        key="dates-b", instruction_type=CELL, category="dates", make_case=make,
        instruction="Invoices are due 30 days after the invoice date. Fill the Due Date column of the Invoices sheet with real dates.",
        answer_position="Invoices!C2:C11",
        solution="""import datetime
import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Invoices"]
for r in range(2, ws.max_row + 1):
    cell = ws.cell(r, 3)
    cell.value = ws.cell(r, 2).value + datetime.timedelta(days=30)
    cell.number_format = "yyyy-mm-dd"
wb.save(OUTPUT_PATH)
""")


def t_date_parts(v: int) -> Template:
    head = ["Date", "Amount", "Year", "Month"] if v == 0 else ["Date", "Amount", "Quarter", "Weekday"]

    def make(rng):
        rows = sorted(([day(rng, rng.choice([2023, 2024])), money(rng, 10, 500)] for _ in range(N)), key=lambda r: r[0])
        if v == 0:
            gold = [r + [r[0].year, r[0].month] for r in rows]
        else:
            gold = [r + [f"Q{(r[0].month - 1) // 3 + 1}", WEEKDAYS[r[0].weekday()]] for r in rows]
        return {"Log": table(head, rows)}, {"Log": table(head, gold)}

    if v == 0:
        text = "In the Log sheet, fill Year (C) and Month (D, as a number 1-12) from the Date in column A."
        body = """    d = ws.cell(r, 1).value
    ws.cell(r, 3).value = d.year
    ws.cell(r, 4).value = d.month"""
    else:
        text = ("In the Log sheet, fill Quarter (C, written like Q1) and Weekday (D, the full English day name such as "
                "Monday) from the Date in column A.")
        body = """    d = ws.cell(r, 1).value
    ws.cell(r, 3).value = "Q%d" % ((d.month - 1) // 3 + 1)
    ws.cell(r, 4).value = d.strftime("%A")"""
    return Template(
        key=f"date-parts-{'ab'[v]}", instruction_type=CELL, category="dates", make_case=make, instruction=text,
        answer_position="Log!C2:D11",
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Log"]
for r in range(2, ws.max_row + 1):
{body}
wb.save(OUTPUT_PATH)
""")


def _messy(rng, text: str) -> str:
    words = [w.upper() if rng.random() < 0.3 else w.lower() if rng.random() < 0.5 else w for w in text.split()]
    return " " * rng.randint(0, 3) + (" " * rng.randint(1, 3)).join(words) + " " * rng.randint(0, 3)


def t_text_clean(v: int) -> Template:
    if v == 0:
        def make(rng):
            raw = [_messy(rng, n) for n in unique_names(rng, N)]
            gold = [[r, " ".join(r.split()).title()] for r in raw]
            return {"Contacts": table(["Raw Name", "Clean Name"], [[r] for r in raw])}, {"Contacts": table(["Raw Name", "Clean Name"], gold)}

        return Template(
            key="text-clean-a", instruction_type=CELL, category="text", make_case=make,
            instruction="Column A of the Contacts sheet holds names with stray spaces and random capitalisation. Write each "
                        "name into column B with single spaces between words, no leading/trailing spaces, and each word capitalised (e.g. 'Ava Baker').",
            answer_position="Contacts!B2:B11",
            solution="""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Contacts"]
for r in range(2, ws.max_row + 1):
    ws.cell(r, 2).value = " ".join(str(ws.cell(r, 1).value).split()).title()
wb.save(OUTPUT_PATH)
""")

    def make(rng):
        rows = []
        for name in unique_names(rng, N):
            a, b, c = rng.randint(200, 999), rng.randint(100, 999), rng.randint(1000, 9999)
            raw = rng.choice([f"({a}) {b}-{c}", f"{a}.{b}.{c}", f"{a} {b} {c}", f"+1 {a}-{b}-{c}"])
            rows.append([name, raw, f"{a}{b}{c}"])
        head = ["Name", "Raw Phone", "Phone"]
        return {"Contacts": table(head, [r[:2] for r in rows])}, {"Contacts": table(head, rows)}

    return Template(
        key="text-clean-b", instruction_type=CELL, category="text", make_case=make,
        instruction="Normalise the phone numbers of the Contacts sheet: write the 10-digit number (digits only, no country "
                    "code +1, no spaces or punctuation) of each Raw Phone into the Phone column as text.",
        answer_position="Contacts!C2:C11",
        solution="""import re
import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Contacts"]
for r in range(2, ws.max_row + 1):
    digits = re.sub(r"\\D", "", str(ws.cell(r, 2).value))
    ws.cell(r, 3).value = digits[-10:]
wb.save(OUTPUT_PATH)
""")


def t_split(v: int) -> Template:
    if v == 0:
        def make(rng):
            people = [n.split(" ") for n in unique_names(rng, N)]
            head = ["Full Name", "First Name", "Last Name"]
            return ({"People": table(head, [[f"{last}, {first}"] for first, last in people])},
                    {"People": table(head, [[f"{last}, {first}", first, last] for first, last in people])})

        return Template(
            key="split-a", instruction_type=CELL, category="text", make_case=make,
            instruction="Names in column A of the People sheet are written 'Last, First'. Put the first name in column B and the last name in column C.",
            answer_position="People!B2:C11",
            solution="""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["People"]
for r in range(2, ws.max_row + 1):
    last, first = [p.strip() for p in ws.cell(r, 1).value.split(",", 1)]
    ws.cell(r, 2).value = first
    ws.cell(r, 3).value = last
wb.save(OUTPUT_PATH)
""")

    def make(rng):
        domains = ["example.com", "mail.org", "corp.net", "shop.io"]
        rows = []
        for n in unique_names(rng, N):
            user = n.lower().replace(" ", rng.choice([".", "_", ""]))
            domain = rng.choice(domains)
            rows.append([f"{user}@{domain}", user, domain])
        head = ["Email", "User", "Domain"]
        return {"Users": table(head, [r[:1] for r in rows])}, {"Users": table(head, rows)}

    return Template(
        key="split-b", instruction_type=CELL, category="text", make_case=make,
        instruction="Split each Email of the Users sheet at the '@': the part before it goes to User (B), the part after it to Domain (C).",
        answer_position="Users!B2:C11",
        solution="""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Users"]
for r in range(2, ws.max_row + 1):
    user, domain = ws.cell(r, 1).value.split("@", 1)
    ws.cell(r, 2).value, ws.cell(r, 3).value = user, domain
wb.save(OUTPUT_PATH)
""")


def t_concat(v: int) -> Template:
    if v == 0:
        def make(rng):
            rows = []
            for n in unique_names(rng, N):
                first, last = n.split(" ")
                city, state = rng.choice(CITIES)
                rows.append([first, last, city, state])
            head = ["First", "Last", "City", "State", "Label"]
            return ({"Customers": table(head, rows)},
                    {"Customers": table(head, [r + [f"{r[0]} {r[1]} ({r[2]}, {r[3]})"] for r in rows])})

        return Template(
            key="concat-a", instruction_type=CELL, category="text", make_case=make,
            instruction="Build a mailing label in column E of the Customers sheet, formatted exactly like 'Ava Baker (Austin, TX)'.",
            answer_position="Customers!E2:E11",
            solution="""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Customers"]
for r in range(2, ws.max_row + 1):
    first, last, city, state = (ws.cell(r, c).value for c in range(1, 5))
    ws.cell(r, 5).value = f"{first} {last} ({city}, {state})"
wb.save(OUTPUT_PATH)
""")

    def make(rng):
        rows = []
        for _ in range(N):
            city, _state = rng.choice(CITIES)
            rows.append([rng.randint(1, 999), rng.choice(STREETS), city, f"{rng.randint(10000, 99999)}"])
        head = ["Number", "Street", "City", "Zip", "Address"]
        return ({"Addresses": table(head, rows)},
                {"Addresses": table(head, [r + [f"{r[0]} {r[1]}, {r[2]} {r[3]}"] for r in rows])})

    return Template(
        key="concat-b", instruction_type=CELL, category="text", make_case=make,
        instruction="Combine the parts of each address in the Addresses sheet into column E, formatted like '12 Oak St, Austin 73301'.",
        answer_position="Addresses!E2:E11",
        solution="""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Addresses"]
for r in range(2, ws.max_row + 1):
    number, street, city, zip_code = (ws.cell(r, c).value for c in range(1, 5))
    ws.cell(r, 5).value = f"{number} {street}, {city} {zip_code}"
wb.save(OUTPUT_PATH)
""")


def t_fill(v: int) -> Template:
    if v == 0:
        def make(rng):
            cats = rng.sample(CATEGORIES, 4)
            init_rows, gold_rows = [], []
            for cat in cats:
                for j in range(3):
                    item = f"{cat[:3].upper()}-{rng.randint(10, 99)}"
                    amount = money(rng, 5, 300)
                    init_rows.append([cat if j == 0 else None, item, amount])
                    gold_rows.append([cat, item, amount])
            head = ["Category", "Item", "Amount"]
            return {"Items": table(head, init_rows)}, {"Items": table(head, gold_rows)}

        return Template(
            key="fill-a", instruction_type=CELL, category="text", make_case=make,
            instruction="In the Items sheet, the Category is written only on the first row of each group. Fill every empty Category cell with the category above it.",
            answer_position="Items!A2:A13",
            solution="""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Items"]
current = None
for r in range(2, ws.max_row + 1):
    if ws.cell(r, 1).value not in (None, ""):
        current = ws.cell(r, 1).value
    else:
        ws.cell(r, 1).value = current
wb.save(OUTPUT_PATH)
""")

    def make(rng):
        owners = unique_names(rng, 4)
        rows = [[f"Task {i + 1}", rng.choice(owners) if rng.random() < 0.6 else None, day(rng)] for i in range(N)]
        rows[rng.randrange(N)][1] = None
        head = ["Task", "Owner", "Due"]
        gold = [[r[0], r[1] or "Unassigned", r[2]] for r in rows]
        return {"Tasks": table(head, rows)}, {"Tasks": table(head, gold)}

    return Template(
        key="fill-b", instruction_type=CELL, category="text", make_case=make,
        instruction="In the Tasks sheet, write 'Unassigned' into every empty Owner cell; keep the other owners as they are.",
        answer_position="Tasks!B2:B11",
        solution="""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Tasks"]
for r in range(2, ws.max_row + 1):
    if ws.cell(r, 2).value in (None, ""):
        ws.cell(r, 2).value = "Unassigned"
wb.save(OUTPUT_PATH)
""")


def t_duplicates(v: int) -> Template:
    def make(rng):
        people = unique_names(rng, 8)
        rows = []
        for _ in range(12):
            name = rng.choice(people)
            email = name.lower().replace(" ", ".") + "@example.com"
            if rng.random() < 0.3:
                email = email.upper() if rng.random() < 0.5 else email.capitalize()
            rows.append([email, name])
        keys = [r[0].lower() for r in rows]
        if v == 0:
            gold = [r + ["Duplicate" if keys[i] in keys[:i] else None] for i, r in enumerate(rows)]
        else:
            gold = [r + [keys.count(keys[i])] for i, r in enumerate(rows)]
        head = ["Email", "Name", "Flag" if v == 0 else "Count"]
        return {"Signups": table(head, rows)}, {"Signups": table(head, gold)}

    if v == 0:
        text = ("In the Signups sheet, write 'Duplicate' in column C when the same Email (ignoring upper/lower case) already "
                "appears in an earlier row; leave column C empty for first occurrences.")
        body = """seen = set()
for r in range(2, ws.max_row + 1):
    key = ws.cell(r, 1).value.lower()
    if key in seen:
        ws.cell(r, 3).value = "Duplicate"
    seen.add(key)"""
    else:
        text = "In the Signups sheet, fill Count (C) with how many rows have the same Email as this row, ignoring upper/lower case."
        body = """from collections import Counter
keys = [ws.cell(r, 1).value.lower() for r in range(2, ws.max_row + 1)]
counts = Counter(keys)
for i, key in enumerate(keys):
    ws.cell(i + 2, 3).value = counts[key]"""
    return Template(
        key=f"duplicates-{'ab'[v]}", instruction_type=CELL, category="text", make_case=make, instruction=text,
        answer_position="Signups!C2:C13",
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Signups"]
{body}
wb.save(OUTPUT_PATH)
""")


def t_time(v: int) -> Template:
    def make(rng):
        rows = []
        for n in unique_names(rng, N):
            start = rng.randint(6 * 4, 11 * 4) * 15 if v == 0 else rng.randint(8 * 60, 16 * 60)
            length = rng.randint(4 * 4, 10 * 4) * 15 if v == 0 else rng.randint(3, 90)
            end = start + length
            rows.append([n, dt.time(start // 60, start % 60), dt.time(end // 60, end % 60), length / 60 if v == 0 else length])
        head = ["Employee", "Clock In", "Clock Out", "Hours"] if v == 0 else ["Agent", "Start", "End", "Minutes"]
        sheet = "Timesheet" if v == 0 else "Calls"
        return {sheet: table(head, [r[:3] for r in rows])}, {sheet: table(head, rows)}

    if v == 0:
        text = "In the Timesheet sheet, fill Hours (D) with the hours worked between Clock In and Clock Out as a decimal number (e.g. 8.25)."
        sheet, factor = "Timesheet", "/ 60"
    else:
        text = "In the Calls sheet, fill Minutes (D) with the length of each call in whole minutes (End minus Start)."
        sheet, factor = "Calls", ""
    return Template(
        key=f"time-{'ab'[v]}", instruction_type=CELL, category="dates", make_case=make, instruction=text,
        answer_position=f"{sheet}!D2:D11",
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["{sheet}"]
for r in range(2, ws.max_row + 1):
    a, b = ws.cell(r, 2).value, ws.cell(r, 3).value
    minutes = (b.hour * 60 + b.minute) - (a.hour * 60 + a.minute)
    ws.cell(r, 4).value = minutes {factor}
wb.save(OUTPUT_PATH)
""")


def _as_text(amount: float, parens: bool) -> str:
    body = f"{abs(amount):,.2f}"
    if amount < 0:
        return f"({body})" if parens else f"-{body}"
    return body


def t_text_numbers(v: int) -> Template:
    def make(rng):
        amounts = [money(rng, 1, 9000) * (-1 if v == 1 and rng.random() < 0.4 else 1) for _ in range(N)]
        entries = [f"E-{i + 1:03d}" for i in range(N)]
        raw = [("$ " if v == 0 and rng.random() < 0.5 else "") + _as_text(a, parens=v == 1) for a in amounts]
        head = ["Entry", "Amount"]
        return ({"Ledger": table(head, [[e, t] for e, t in zip(entries, raw)])},
                {"Ledger": table(head, [[e, a] for e, a in zip(entries, amounts)])})

    if v == 0:
        text = "The Amount column of the Ledger sheet holds numbers stored as text, some with a '$ ' prefix and thousands separators. Convert them in place to real numbers."
        body = """    text = str(ws.cell(r, 2).value).replace("$", "").replace(",", "").strip()
    ws.cell(r, 2).value = float(text)"""
    else:
        text = ("The Amount column of the Ledger sheet holds numbers stored as text with thousands separators; negative "
                "amounts are written in parentheses, e.g. (1,250.00). Convert them in place to real numbers (negative for parentheses).")
        body = """    text = str(ws.cell(r, 2).value).replace(",", "").strip()
    negative = text.startswith("(") and text.endswith(")")
    value = float(text.strip("()"))
    ws.cell(r, 2).value = -value if negative else value"""
    return Template(
        key=f"text-numbers-{'ab'[v]}", instruction_type=CELL, category="text", make_case=make, instruction=text,
        answer_position="Ledger!B2:B11",
        solution=f"""import openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Ledger"]
for r in range(2, ws.max_row + 1):
{body}
wb.save(OUTPUT_PATH)
""")


TEMPLATE_FACTORIES = [t_dates, t_date_parts, t_text_clean, t_split, t_concat, t_fill, t_duplicates, t_time, t_text_numbers]
