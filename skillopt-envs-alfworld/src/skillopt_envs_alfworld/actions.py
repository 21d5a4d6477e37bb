"""Reading a command out of what a model actually wrote.

Accepted: ``<action>go to fridge 1</action>`` (the asked-for form), a bare command line,
``Action: go to fridge 1`` / ``> go to fridge 1``, any case, markdown emphasis, quotes and
trailing punctuation, ``put X in Y`` / ``put X on Y`` for ALFWorld's ``put X in/on Y``. A reply that recites
several commands picks none of them.
A near-miss is mapped to an admissible command only when exactly one command fits:
instance numbers left out (``go to fridge`` when there is one fridge) or a small typo
(``go to frige 1``; a typo never changes an instance number). Nothing is guessed: an ambiguous or unreadable reply yields no
command, and the env spends the step on "Nothing happens.".
"""

from __future__ import annotations

import difflib
import re

import attrs

TAG = re.compile(r"<action>(.*?)(?:</action>|$)", re.IGNORECASE | re.DOTALL)
PREFIXED = re.compile(
    r"^\s*(?:[-*>]\s*)?(?:\**\s*)?(?:next\s+)?(?:action|command)\s*\**\s*[:=]\s*(.+)$", re.IGNORECASE | re.MULTILINE
)
PUT = re.compile(r"^put (.+?) (?:in/on|in|on|into|onto|inside) (?:the )?(.+)$")
ARTICLE = re.compile(r"\b(?:the|a|an)\s+")
FUZZY_CUTOFF = 0.88
FUZZY_MARGIN = 0.04


@attrs.frozen(kw_only=True)
class ParsedAction:
    """``command`` is admissible or ``None``; ``how`` says which rule read it."""

    command: str | None
    how: str  # exact | number-filled | fuzzy | none
    source: str  # tag | prefixed | line | none
    text: str  # the cleaned candidate text the rule looked at

    @property
    def mapped(self) -> bool:
        return self.how in ("number-filled", "fuzzy")


def clean(text: str) -> str:
    """Lowercase, unwrapped, unpunctuated, single-spaced; ``put X in Y`` -> ``put X in/on Y``."""
    text = (text or "").strip().lower()
    text = re.sub(r"</?[a-z]+>", " ", text)
    text = text.strip().strip("`*_\"'“”‘’ ")
    text = re.sub(r"^(?:[-*>]|\d+[.)])\s+", "", text)
    text = re.sub(r"[.!?;:,]+$", "", text).strip("`*_\"'“”‘’ ")
    text = " ".join(text.split())
    if match := PUT.match(text):
        text = f"put {match.group(1)} in/on {match.group(2)}"
    verb, _, rest = text.partition(" ")
    if verb in ("go", "take", "put", "open", "close", "clean", "heat", "cool", "use", "examine"):
        text = (verb + " " + ARTICLE.sub("", rest)).strip()
    return text


def candidates(reply: str) -> list[tuple[str, str]]:
    """(source, text) pairs to try, most explicit first."""
    reply = reply or ""
    tags = [m.group(1) for m in TAG.finditer(reply) if m.group(1).strip()]
    if tags:
        return [("tag", tags[-1].strip().splitlines()[0] if tags[-1].strip() else "")]
    prefixed = PREFIXED.findall(reply)
    if prefixed:
        return [("prefixed", prefixed[-1])]
    lines = [line for line in reply.splitlines() if line.strip()]
    return [("line", line) for line in reversed(lines)]


def parse_action(reply: str, admissible: list[str]) -> ParsedAction:
    """The command in ``reply``, matched against ``admissible``.

    A tag or an ``Action:`` line is the model's explicit choice. Without one, a reply
    whose lines name exactly one admissible command means that command; a reply reciting
    several commands (a copy of the admissible list) chooses none of them. Near-misses
    are mapped only for an explicit choice or a one-line reply, never inside prose.
    """
    tried = candidates(reply)
    allowed = set(admissible)
    if tried and tried[0][0] == "line":
        texts = [clean(raw) for _, raw in tried]
        exact = list(dict.fromkeys(t for t in texts if t in allowed))
        if len(exact) == 1:
            return ParsedAction(command=exact[0], how="exact", source="line", text=exact[0])
        if len(exact) > 1:
            return ParsedAction(command=None, how="none", source="line", text=f"{len(exact)} different commands listed")
        if len(texts) == 1 and texts[0]:
            command, how = near_miss(texts[0], admissible)
            return ParsedAction(command=command, how=how, source="line", text=texts[0])
        return ParsedAction(command=None, how="none", source="line", text=texts[0][:200] if texts else "")
    if not tried:
        return ParsedAction(command=None, how="none", source="none", text="")
    source, raw = tried[0]
    text = clean(raw)
    if text in allowed:
        return ParsedAction(command=text, how="exact", source=source, text=text)
    command, how = near_miss(text, admissible) if text else (None, "none")
    return ParsedAction(command=command, how=how, source=source, text=text[:200])


def _without_numbers(text: str) -> str:
    return " ".join(word for word in text.split() if not word.isdigit())


def near_miss(text: str, admissible: list[str]) -> tuple[str | None, str]:
    """The one admissible command ``text`` plainly means, else ``(None, "none")``."""
    if any(word.isdigit() for word in text.split()):
        filled = []
    else:
        filled = [c for c in admissible if _without_numbers(c) == text]
    if len(filled) == 1:
        return filled[0], "number-filled"
    if len(filled) > 1:
        return None, "none"
    numbers = [w for w in text.split() if w.isdigit()]
    same_numbers = [c for c in admissible if [w for w in c.split() if w.isdigit()] == numbers]
    scored = sorted(((difflib.SequenceMatcher(None, text, c).ratio(), c) for c in same_numbers), reverse=True)
    if scored and scored[0][0] >= FUZZY_CUTOFF and (len(scored) == 1 or scored[0][0] - scored[1][0] >= FUZZY_MARGIN):
        return scored[0][1], "fuzzy"
    return None, "none"
