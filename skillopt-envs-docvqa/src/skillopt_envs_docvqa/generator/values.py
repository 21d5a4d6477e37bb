"""Invented field values (names, companies, dates, amounts, ids) and their answer aliases.

Every value comes with the exact text drawn on the page first and the other spellings a
reader may fairly give after it: an amount drawn as ``$1,250.00`` is also ``1,250.00`` and
``1250.00``; a date drawn as ``March 14, 2024`` is also ``03/14/2024`` and ``2024-03-14``.
All pools are written for this package (CC0-1.0); no name refers to a real person or firm.
"""

from __future__ import annotations

import datetime as dt
import random

FIRST_NAMES = (
    "Alice", "Bruno", "Carmen", "Dmitri", "Elena", "Farid", "Grace", "Hector", "Ingrid", "Jonas",
    "Keiko", "Lucas", "Marta", "Nadia", "Oscar", "Priya", "Quentin", "Rosa", "Samuel", "Tamsin",
    "Ulrich", "Vera", "Walter", "Ximena", "Yusuf", "Zora",
)  # fmt: skip
LAST_NAMES = (
    "Abernathy", "Bellweather", "Castellano", "Delacroix", "Ekwueme", "Fairbanks", "Gundersen",
    "Halloran", "Ivanova", "Jablonski", "Kowalczyk", "Lindqvist", "Marchetti", "Nakamura",
    "Okonkwo", "Pemberton", "Quispe", "Rasmussen", "Szabo", "Thornbury", "Underhill", "Valdivia",
    "Whitcombe", "Yamamoto", "Zielinski",
)  # fmt: skip
COMPANY_HEADS = (
    "Amberline", "Bluefield", "Copperleaf", "Driftwood", "Evergreen", "Foxglove", "Granite Peak",
    "Harborview", "Ironbridge", "Juniper", "Kestrel", "Lakeside", "Meridian", "Northgate",
    "Oakhurst", "Pinecrest", "Quarry Hill", "Redwood", "Silverbirch", "Tidewater",
)  # fmt: skip
COMPANY_TAILS = ("Supply Co.", "Industries", "Labs", "Trading Ltd.", "Logistics", "Foods Inc.", "Textiles", "Analytics")
STREETS = ("Maple Avenue", "Harbor Road", "Station Street", "Elm Court", "Mill Lane", "Orchard Way", "Bridge Street", "Cedar Drive")
CITIES = ("Fairhaven", "Port Ellis", "Brookmere", "Westcliff", "Ashford", "Kingsbridge", "Millbrook", "Stonybrook", "Lowell Bay", "Rivermouth")
DEPARTMENTS = ("Accounting", "Research", "Logistics", "Marketing", "Human Resources", "Quality Control", "Facilities", "Procurement")
PRODUCTS = (
    "Steel brackets", "Copy paper (box)", "Desk lamp", "Safety gloves", "Label printer", "Toner cartridge",
    "Packing tape", "Office chair", "Cable ties (100)", "Whiteboard", "Hard hat", "Filing cabinet",
    "USB hub", "Coffee beans (1 kg)", "Ladder, 6 ft", "First aid kit",
)  # fmt: skip
GROCERIES = ("Bread", "Milk", "Apples", "Cheddar", "Rice", "Olive oil", "Coffee", "Eggs (12)", "Tomatoes", "Yogurt", "Pasta", "Butter")
PAYMENT_METHODS = ("VISA", "Cash", "Mastercard", "Debit card")
JOB_TITLES = ("Operations Manager", "Senior Analyst", "Plant Supervisor", "Office Administrator", "Lab Technician", "Buyer")
REGIONS = ("North", "South", "East", "West", "Central")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")


def person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"


def person_aliases(name: str) -> list[str]:
    """A full name, and its surname-first form."""
    first, last = name.split(" ", 1)
    return [name, f"{last}, {first}"]


def company(rng: random.Random) -> str:
    return f"{rng.choice(COMPANY_HEADS)} {rng.choice(COMPANY_TAILS)}"


def company_aliases(name: str) -> list[str]:
    """A company name with and without its trailing full stop (``Ltd.``/``Inc.``)."""
    return [name, name[:-1]] if name.endswith(".") else [name]


def address(rng: random.Random) -> tuple[str, str]:
    """(street line, city line)."""
    return f"{rng.randint(2, 980)} {rng.choice(STREETS)}", f"{rng.choice(CITIES)} {rng.randint(10000, 99899)}"


def date(rng: random.Random, year: int = 0) -> dt.date:
    start = dt.date(year or rng.choice((2021, 2022, 2023, 2024)), 1, 1)
    return start + dt.timedelta(days=rng.randint(0, 364))


def long_date(day: dt.date) -> str:
    return f"{MONTHS[day.month - 1]} {day.day}, {day.year}"


def numeric_date(day: dt.date) -> str:
    return f"{day.month:02d}/{day.day:02d}/{day.year}"


def date_aliases(day: dt.date, drawn: str) -> list[str]:
    """The drawn form first, then the long, US numeric and ISO forms."""
    forms = [drawn, long_date(day), numeric_date(day), day.isoformat()]
    return list(dict.fromkeys(forms))


def money(cents: int) -> str:
    """``$1,250.00`` from 125000 cents."""
    return f"${cents // 100:,}.{cents % 100:02d}"


def money_aliases(cents: int) -> list[str]:
    drawn = money(cents)
    bare = f"{cents // 100}.{cents % 100:02d}"
    return list(dict.fromkeys([drawn, drawn[1:], bare, "$" + bare]))


def code(rng: random.Random, prefix: str, digits: int = 5) -> str:
    """An identifier such as ``INV-20417``."""
    return f"{prefix}-{rng.randint(10 ** (digits - 1), 10**digits - 1)}"


def phone(rng: random.Random) -> str:
    return f"({rng.randint(201, 989)}) {rng.randint(200, 989)}-{rng.randint(1000, 9999)}"


def phone_aliases(number: str) -> list[str]:
    digits = "".join(ch for ch in number if ch.isdigit())
    return list(dict.fromkeys([number, f"{digits[:3]}-{digits[3:6]}-{digits[6:]}", digits]))


def pick(rng: random.Random, pool: tuple[str, ...], n: int) -> list[str]:
    """``n`` distinct values of ``pool`` in a seeded order."""
    return rng.sample(list(pool), n)
