"""Forms, letters and memos: labelled fields, addresses and values inside running text."""

from __future__ import annotations

import datetime as dt
import random

from skillopt_envs_docvqa.generator import values as V
from skillopt_envs_docvqa.generator.core import Document, choose, right_edge
from skillopt_envs_docvqa.generator.render import MARGIN, WIDTH, Page, keep

TEXT_WIDTH = WIDTH - 2 * MARGIN


def employee_form(rng: random.Random, doc_id: str) -> Document:
    page = Page()
    doc = Document(doc_id, "form", page)
    issuer = V.company(rng)
    page.text(MARGIN, 52, issuer, 16)
    page.text(WIDTH / 2, 88, "EMPLOYEE INFORMATION FORM", 24, align="center")
    page.rule(MARGIN, 126, right_edge(), 126, width=2, ink=70)
    name, supervisor = V.person(rng), V.person(rng)
    emp_id = V.code(rng, "EMP")
    department, title = rng.choice(V.DEPARTMENTS), rng.choice(V.JOB_TITLES)
    start = V.date(rng)
    number = V.phone(rng)
    room = f"Room {rng.randint(1, 4)}{rng.randint(0, 3)}{rng.randint(1, 9)}"
    fields = [
        ("Full name", name), ("Employee ID", emp_id),
        ("Department", department), ("Job title", title),
        ("Start date", V.numeric_date(start)), ("Phone", number),
        ("Supervisor", supervisor), ("Office", room),
    ]  # fmt: skip
    column_x = (MARGIN, WIDTH / 2 + 12)
    for i, (label, value) in enumerate(fields):
        x, y = column_x[i % 2], 150 + 56 * (i // 2)
        page.text(x, y, f"{label}:", 13, ink=80)
        page.text(x, y + 20, value, 17)
        page.rule(x, y + 44, x + TEXT_WIDTH / 2 - 24, y + 44, ink=150)
    full_time = rng.random() < 0.6
    y = 150 + 56 * 4 + 16
    page.text(MARGIN, y, "Employment type:", 15)
    page.text(MARGIN + 170, y, f"[{'X' if full_time else ' '}] Full-time", 15)
    page.text(MARGIN + 330, y, f"[{' ' if full_time else 'X'}] Part-time", 15)
    page.text(MARGIN, y + 64, "Signature: ______________________", 15)
    page.text(right_edge(), y + 64, f"Date: {V.numeric_date(start - dt.timedelta(days=rng.randint(3, 20)))}", 15, align="right")
    page.text(MARGIN, 1000, f"Return this form to {keep('Human Resources')}. Form HR-7 (rev. {rng.randint(2015, 2020)})", 12, ink=90)
    pool = [
        ("What is the employee ID?", [emp_id], "form"),
        ("Which department does the employee work in?", [department], "form"),
        ("What is the employee's start date?", V.date_aliases(start, V.numeric_date(start)), "form"),
        ("What is the phone number on the form?", V.phone_aliases(number), "form"),
        ("Who is the employee's supervisor?", V.person_aliases(supervisor), "form"),
        ("What is the employee's full name?", V.person_aliases(name), "form"),
        ("What is the employee's job title?", [title], "form"),
        ("Which employment type is checked?", ["Full-time" if full_time else "Part-time"], "form|layout"),
    ]
    for question in choose(rng, pool, 4):
        doc.ask(*question)
    return doc


LETTER_PURPOSES = (
    ("confirm the delivery of purchase order {po}", "The total of {amount} will be invoiced separately"),
    ("follow up on our quotation for purchase order {po}", "The quoted price of {amount} remains valid for sixty days"),
    ("acknowledge your payment for purchase order {po}", "We have received {amount} and closed the account for this order"),
    ("propose a revised schedule for purchase order {po}", "A deposit of {amount} will secure the new dates"),
)


def letter(rng: random.Random, doc_id: str) -> Document:
    page = Page()
    doc = Document(doc_id, "letter", page)
    sender_co, recipient_co = V.company(rng), V.company(rng)
    street, city = V.address(rng)
    page.text(WIDTH / 2, 52, sender_co, 24, align="center")
    page.text(WIDTH / 2, 86, f"{street} - {city} - Tel. {V.phone(rng)}", 13, align="center", ink=70)
    page.rule(MARGIN, 112, right_edge(), 112, width=2, ink=80)
    day = V.date(rng)
    page.text(MARGIN, 140, V.long_date(day), 15)
    recipient, signer = V.person(rng), V.person(rng)
    r_street, r_city = V.address(rng)
    for i, line in enumerate((recipient, recipient_co, r_street, r_city)):
        page.text(MARGIN, 186 + 22 * i, line, 15)
    po = V.code(rng, "PO")
    amount_cents = rng.randint(250, 48000) * 100
    meeting = day + dt.timedelta(days=rng.randint(5, 40))
    purpose, detail = rng.choice(LETTER_PURPOSES)
    title = rng.choice(V.JOB_TITLES)
    surname = recipient.split(" ", 1)[1]
    y = page.paragraph(MARGIN, 300, f"Dear {keep(recipient.split(' ')[0] + ' ' + surname)},", TEXT_WIDTH, 15)
    body = (
        f"I am writing to {purpose.format(po=keep(po))}. {detail.format(amount=keep(V.money(amount_cents)))}, "
        f"as agreed with your {keep(rng.choice(V.DEPARTMENTS))} team."
    )
    y = page.paragraph(MARGIN, y + 12, body, TEXT_WIDTH, 15)
    body2 = (
        f"I would be glad to discuss the details with you in person on {keep(V.long_date(meeting))} at our offices in "
        f"{keep(city.rsplit(' ', 1)[0])}. Please let me know if another date suits you better."
    )
    y = page.paragraph(MARGIN, y + 12, body2, TEXT_WIDTH, 15)
    y = page.paragraph(MARGIN, y + 24, "Sincerely,", TEXT_WIDTH, 15)
    page.text(MARGIN, y + 40, signer, 15)
    page.text(MARGIN, y + 62, f"{title}, {sender_co}", 15)
    pool = [
        ("What is the date of the letter?", V.date_aliases(day, V.long_date(day)), "layout"),
        ("To whom is the letter addressed?", V.person_aliases(recipient), "layout"),
        ("Which purchase order is mentioned in the letter?", [po], "free_text"),
        ("What amount is mentioned in the letter?", V.money_aliases(amount_cents), "free_text"),
        ("On what date does the writer propose to meet?", V.date_aliases(meeting, V.long_date(meeting)), "free_text"),
        ("Who signed the letter?", V.person_aliases(signer), "layout"),
        ("What is the job title of the person who signed the letter?", [title], "layout"),
    ]
    for question in choose(rng, pool, 4):
        doc.ask(*question)
    return doc


MEMO_SUBJECTS = (
    ("Office relocation schedule", "The move to {room} will be completed by {deadline}. The moving budget is {budget}."),
    ("Annual safety training", "Every employee must finish the course in {room} by {deadline}. Training costs of {budget} are covered centrally."),
    ("Updated travel expense policy", "Claims must be filed by {deadline}; receipts go to {room}. Trips above {budget} need prior approval."),
    ("Quarterly inventory count", "Counting teams meet in {room}; all sheets are due by {deadline}. Overtime is capped at {budget}."),
    ("Network maintenance window", "Servers in {room} will be offline until {deadline}. The upgrade budget is {budget}."),
)


def memo(rng: random.Random, doc_id: str) -> Document:
    page = Page()
    doc = Document(doc_id, "memo", page)
    page.text(MARGIN, 52, V.company(rng), 16, ink=70)
    page.text(MARGIN, 84, "MEMORANDUM", 30)
    sender, recipient = V.person(rng), V.person(rng)
    sender_title = rng.choice(V.JOB_TITLES)
    department = rng.choice(V.DEPARTMENTS)
    day = V.date(rng)
    subject, template = rng.choice(MEMO_SUBJECTS)
    header = (
        ("TO:", f"{recipient}, {department}"),
        ("FROM:", f"{sender}, {sender_title}"),
        ("DATE:", V.numeric_date(day)),
        ("SUBJECT:", subject),
    )
    for i, (label, value) in enumerate(header):
        page.text(MARGIN, 146 + 30 * i, label, 15)
        page.text(MARGIN + 110, 146 + 30 * i, value, 15)
    page.rule(MARGIN, 270, right_edge(), 270, width=2, ink=80)
    room = f"Conference Room {rng.randint(1, 6)}{rng.choice('ABC')}"
    deadline = day + dt.timedelta(days=rng.randint(7, 45))
    budget = rng.randint(12, 900) * 10000
    text = template.format(room=keep(room), deadline=keep(V.long_date(deadline)), budget=keep(V.money(budget)))
    intro = f"This memo sets out the plan for the {subject.lower()} agreed with the {keep(department)} team."
    y = page.paragraph(MARGIN, 296, intro, TEXT_WIDTH, 15)
    y = page.paragraph(MARGIN, y + 12, text, TEXT_WIDTH, 15)
    page.paragraph(MARGIN, y + 12, f"Questions may be sent to {keep(sender)} before the deadline.", TEXT_WIDTH, 15)
    pool = [
        ("Who is the memo from?", V.person_aliases(sender), "form|layout"),
        ("To whom is the memo addressed?", V.person_aliases(recipient), "form|layout"),
        ("What is the subject of the memo?", [subject], "layout"),
        ("What is the deadline mentioned in the memo?", V.date_aliases(deadline, V.long_date(deadline)), "free_text"),
        ("Which room is mentioned in the memo?", [room], "free_text"),
        ("What amount is mentioned in the memo?", V.money_aliases(budget), "free_text"),
        ("What is the date of the memo?", V.date_aliases(day, V.numeric_date(day)), "form|layout"),
    ]
    for question in choose(rng, pool, 4):
        doc.ask(*question)
    return doc
