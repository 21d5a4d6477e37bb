"""A page canvas that draws text with Pillow and records exactly what it drew.

Every call to :meth:`Page.text` draws one segment (a line, a form field, a table cell) and
appends it, with its words' boxes, to the layout record, so the layout is the ground truth
of the image rather than a second description of it. The font is the one bundled with
Pillow (``ImageFont.load_default(size=...)``, Pillow >= 10.1): no system font is needed.
Phrases joined with a no-break space (:func:`keep`) are never split when wrapping, so a
value asked about always sits on one line.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

NBSP = "\u00a0"
WIDTH, HEIGHT, MARGIN = 816, 1056, 64  # US letter at 96 dpi


def keep(phrase: str) -> str:
    """``phrase`` made unbreakable for :meth:`Page.paragraph`."""
    return phrase.replace(" ", NBSP)


@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)


class Page:
    """One grayscale page and the layout record of the text drawn on it."""

    def __init__(self, width: int = WIDTH, height: int = HEIGHT):
        self.width, self.height = width, height
        self.image = Image.new("L", (width, height), 255)
        self.draw = ImageDraw.Draw(self.image)
        self.lines: list[dict[str, Any]] = []

    def text(self, x: float, y: float, text: str, size: int = 16, *, align: str = "left", ink: int = 0) -> tuple[int, int, int, int]:
        """Draw one segment with its top-left (or top-right, ``align="right"``) at (x, y)."""
        text = " ".join(text.replace(NBSP, " ").split())
        face = font(size)
        if align == "right":
            x -= face.getlength(text)
        elif align == "center":
            x -= face.getlength(text) / 2
        x, y = round(x), round(y)
        self.draw.text((x, y), text, font=face, fill=ink)
        words = []
        offset = 0
        for word in text.split(" "):
            start = text.index(word, offset)
            wx = x + face.getlength(text[:start])
            words.append({"text": word, "box": [int(v) for v in self.draw.textbbox((wx, y), word, font=face)]})
            offset = start + len(word)
        box = [int(v) for v in self.draw.textbbox((x, y), text, font=face)]
        self.lines.append({"text": text, "box": box, "words": words})
        return box[0], box[1], box[2], box[3]

    def wrap(self, text: str, width: float, size: int = 16) -> list[str]:
        """Greedy word wrap at ``width`` pixels; no-break-space phrases stay whole."""
        face = font(size)
        out: list[str] = []
        current = ""
        for token in text.split():
            trial = f"{current} {token}" if current else token
            if current and face.getlength(trial.replace(NBSP, " ")) > width:
                out.append(current)
                current = token
            else:
                current = trial
        if current:
            out.append(current)
        return out

    def paragraph(self, x: float, y: float, text: str, width: float, size: int = 16, leading: float = 1.45) -> float:
        """Draw wrapped text; returns the y below it."""
        for line in self.wrap(text, width, size):
            self.text(x, y, line, size)
            y += size * leading
        return y

    def rule(self, x0: float, y0: float, x1: float, y1: float, width: int = 1, ink: int = 90) -> None:
        """A line that is not text (not in the layout): table borders, underlines, separators."""
        self.draw.line((x0, y0, x1, y1), fill=ink, width=width)

    def frame(self, x0: float, y0: float, x1: float, y1: float, ink: int = 120) -> None:
        self.draw.rectangle((x0, y0, x1, y1), outline=ink, width=1)

    def layout(self) -> dict[str, Any]:
        return {"width": self.width, "height": self.height, "lines": list(self.lines)}
