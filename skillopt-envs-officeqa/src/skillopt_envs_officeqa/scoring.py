"""OfficeQA scoring: upstream's normaliser (EM, token F1) plus an optional numeric match.

Upstream normaliser (kept exactly, for parity): lowercase and strip; delete commas;
delete ASCII punctuation except digits, ``.``, ``-`` and ``%`` (so ``$``, parentheses and
``/`` go); delete the whole words million(s), billion(s), dollar(s) and nominal; collapse
whitespace. hard = exact match of the normalised strings, soft = token F1 against the
single gold. An empty prediction scores 0.

Numeric match (``numeric=True``; upstream has none) accepts a prediction whose ONE number
equals the gold's one number once both are read as quantities:

* ``1,234.5`` = ``1234.50`` (thousands separators, trailing zeros); ``(123)`` = ``-123``;
  ``$`` and the word ``dollars`` are ignored;
* a trailing ``%`` or the word ``percent`` marks a percentage; if only one side has it, the
  other side is taken to be in percent too (``1.23`` = ``1.23%``); a fraction is never
  converted (``0.0123`` != ``1.23%``);
* scale words ``thousand``, ``million``, ``billion``, ``trillion`` multiply. A side without a
  scale word takes the unit the question states ("in millions of dollars", "in billions of
  dollars"), or, when the question states none, the other side's scale. So under a question
  asking for billions, ``1.2 billion`` = ``1200 million`` = ``1.2``; and ``251.6`` = ``251.6
  billion`` whatever the question says (upstream's normaliser already drops the word);
* equality is exact on decimals, or within ``rel_tol`` (relative to the gold) when set;
* a prediction with two or more numbers (``between 10 and 20``) never matches numerically.

Rounding stated in the question is part of the task: ``3.4567`` does not match ``3.46``
unless ``rel_tol`` allows it.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from decimal import Decimal, InvalidOperation

import attrs

_KEEP = set("0123456789.-%")
_DROP = "".join(ch for ch in string.punctuation if ch not in _KEEP)
_DROP_TABLE = str.maketrans("", "", _DROP)
_UNIT_WORDS = re.compile(r"\b(?:millions?|billions?|dollars?|nominal)\b")

SCALES = {"thousand": Decimal(10) ** 3, "million": Decimal(10) ** 6, "billion": Decimal(10) ** 9, "trillion": Decimal(10) ** 12}
_NUMBER = re.compile(
    r"(?P<open>\()?\s*(?P<sign>[-+\u2212])?\s*\$?\s*(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)\s*\)?"
    r"\s*(?P<pct>%|percent\b|per\s*cent\b)?\s*(?P<scale>thousand|millions?|billions?|trillions?)?",
    re.IGNORECASE,
)
_QUESTION_UNIT = re.compile(r"\bin\s+(thousands|millions|billions|trillions)\s+of\s+dollars\b|\(in\s+(thousands|millions|billions|trillions)\b", re.I)


def normalize(text: str) -> str:
    """Upstream's OfficeQA normaliser."""
    text = str(text or "").lower().strip().replace(",", "")
    text = text.translate(_DROP_TABLE)
    text = _UNIT_WORDS.sub(" ", text)
    return " ".join(text.split())


def exact_match(prediction: str, gold: str) -> float:
    pred = normalize(prediction)
    return float(bool(pred) and pred == normalize(gold))


def token_f1(prediction: str, gold: str) -> float:
    pred, ref = normalize(prediction).split(), normalize(gold).split()
    if not pred or not ref:
        return float(not pred and not ref and bool(str(prediction or "").strip()))
    overlap = sum((Counter(pred) & Counter(ref)).values())
    if not overlap:
        return 0.0
    precision, recall = overlap / len(pred), overlap / len(ref)
    return 2 * precision * recall / (precision + recall)


@attrs.frozen
class Quantity:
    value: Decimal
    percent: bool
    scale: Decimal | None  # None: no scale word written


def quantities(text: str) -> list[Quantity]:
    """Every number in ``text`` with its sign, percent mark and scale word."""
    found = []
    for m in _NUMBER.finditer(str(text or "")):
        try:
            value = Decimal(m.group("num").replace(",", ""))
        except InvalidOperation:
            continue
        if m.group("sign") in ("-", "\u2212") or (m.group("open") and m.group(0).rstrip().endswith(")")):
            value = -value
        scale_word = (m.group("scale") or "").lower().rstrip("s")
        found.append(Quantity(value=value, percent=bool(m.group("pct")), scale=SCALES.get(scale_word)))
    return found


def question_scale(question: str) -> Decimal | None:
    """The unit a question asks for ("in billions of dollars"), if it names one."""
    m = _QUESTION_UNIT.search(question or "")
    if not m:
        return None
    word = (m.group(1) or m.group(2)).lower().rstrip("s")
    return SCALES[word]


def numeric_match(prediction: str, gold: str, question: str = "", rel_tol: float = 0.0) -> float:
    """1.0 when prediction and gold hold one equal quantity each (rules in the module docstring)."""
    preds, golds = quantities(prediction), quantities(gold)
    if len(preds) != 1 or len(golds) != 1:
        return 0.0
    pred, ref = preds[0], golds[0]
    if pred.percent != ref.percent and (pred.scale or ref.scale):
        return 0.0  # "12%" against "12 million" is not a unit slip
    asked = question_scale(question)
    pred_scale = pred.scale or asked or ref.scale or Decimal(1)
    ref_scale = ref.scale or asked or pred.scale or Decimal(1)
    a, b = pred.value * pred_scale, ref.value * ref_scale
    if a == b:
        return 1.0
    if rel_tol > 0 and abs(a - b) <= Decimal(str(rel_tol)) * abs(b):
        return 1.0
    return 0.0


@attrs.frozen
class Grade:
    hard: float
    soft: float
    em: float
    f1: float
    numeric: float


def grade(prediction: str, gold: str, question: str = "", *, numeric: bool = True, rel_tol: float = 0.0) -> Grade:
    """hard = EM (or a numeric match when ``numeric``); soft = F1 (1 on a numeric match)."""
    if not str(prediction or "").strip():
        return Grade(0.0, 0.0, 0.0, 0.0, 0.0)
    em, f1 = exact_match(prediction, gold), token_f1(prediction, gold)
    num = numeric_match(prediction, gold, question, rel_tol)
    hard = max(em, num) if numeric else em
    soft = max(f1, num) if numeric else f1
    return Grade(hard=hard, soft=soft, em=em, f1=f1, numeric=num)


def explain(prediction: str, gold: str, g: Grade, numeric: bool) -> str:
    """Feedback for the optimizer: what was predicted, what was expected, and why it did (not) count."""
    if not str(prediction or "").strip():
        return f"No final answer was given; expected {gold!r}."
    shown = f"predicted {prediction!r}, expected {gold!r}"
    if g.em:
        return f"Correct: {shown} (exact match after normalisation)."
    if numeric and g.numeric:
        return f"Correct: {shown} (same quantity; exact match alone would fail)."
    hint = ""
    preds, golds = quantities(prediction), quantities(gold)
    if len(preds) > 1 and len(golds) == 1:
        hint = " The answer held several numbers; give one value only."
    elif len(preds) == 1 and len(golds) == 1 and preds[0].value != golds[0].value:
        hint = " The value differs: check the table row/column, the arithmetic, the unit and the rounding the question asks for."
    return f"Wrong: {shown}; normalised {normalize(prediction)!r} vs {normalize(gold)!r}, token F1 {g.f1:.2f}.{hint}"
