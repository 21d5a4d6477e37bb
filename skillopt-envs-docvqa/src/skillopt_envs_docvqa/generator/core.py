"""Records of the generator: a rendered document and its questions, plus a table helper."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from skillopt_envs_docvqa.generator.render import MARGIN, WIDTH, Page


@dataclass(frozen=True)
class Question:
    """One question; ``answers[0]`` is the text drawn on the page, the rest are aliases."""

    text: str
    answers: tuple[str, ...]
    topic: str


@dataclass
class Document:
    doc_id: str
    kind: str
    page: Page
    questions: list[Question] = field(default_factory=list)

    def ask(self, text: str, answers: list[str] | tuple[str, ...], topic: str) -> None:
        self.questions.append(Question(text=text, answers=tuple(dict.fromkeys(answers)), topic=topic))


@dataclass(frozen=True)
class Column:
    header: str
    width: int
    align: str = "left"


def table(page: Page, x: float, y: float, columns: list[Column], rows: list[list[str]], size: int = 15, pad: int = 8) -> float:
    """A ruled table (header row, one line per row); returns the y below it."""
    row_h = round(size * 1.9)
    total_w = sum(c.width for c in columns)
    page.rule(x, y, x + total_w, y, width=2, ink=60)
    for r, cells in enumerate([[c.header for c in columns], *rows]):
        top = y + r * row_h
        cx = x
        for column, cell in zip(columns, cells, strict=True):
            if column.align == "right":
                page.text(cx + column.width - pad, top + pad - 2, cell, size, align="right")
            else:
                page.text(cx + pad, top + pad - 2, cell, size)
            cx += column.width
        page.rule(x, top + row_h, x + total_w, top + row_h, width=2 if r == 0 else 1, ink=60 if r == 0 else 160)
    bottom = y + (len(rows) + 1) * row_h
    cx = x
    for column in columns[:-1]:
        cx += column.width
        page.rule(cx, y, cx, bottom, ink=170)
    return bottom


def right_edge() -> int:
    return WIDTH - MARGIN


def choose(rng: random.Random, pool: list[tuple], n: int) -> list[tuple]:
    """``n`` questions of ``pool``, kept in pool (page) order."""
    picked = sorted(rng.sample(range(len(pool)), n))
    return [pool[i] for i in picked]
