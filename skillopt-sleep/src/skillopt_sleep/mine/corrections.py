"""Explicit corrections: "use X instead of Y", "nimm X statt Y", "on n'utilise pas Y, on utilise X".

A correction is read with the things it prefers and avoids, because those become
deterministic checks and rules. The reading is structural and works the same in
English, German, French and Spanish (:mod:`.words`): the named things are found first
— backticked spans, and names the intent's own steps used (``vocabulary``: "we never
use requests, always httpx" names two imports the edits wrote) — so dots inside them
(``git tag v1.8.0``) cannot end a clause; the message is cut into clauses; and each
name is *avoided* when a negator or "instead of" stands between it and the name before
it in its clause ("use `X`, not `Y`", "`X` statt `Y`", "prefer `X` over `Y`") or a word
after it rejects it ("`Y` ist hier falsch"), and *preferred* otherwise. A message is a
correction only when it avoids something, or prefers something with "always", an
opening "no", a complaint, a placing verb ("belongs under"), a late opener
("actually") or a use-verb; "run the linter and fix whatever it reports" is a
request. English prose with no backticks and no known names falls back to the
phrase patterns below.
"""

from __future__ import annotations

import re

import attrs

from skillopt_sleep.mine.feedback import OPENING_NO, polarity

_CODE = re.compile(r"`([^`\n]{1,80})`")
_CLAUSE_END = (
    r"(?=$|[.;:!?\n]|,\s*(?:not|never|instead|rather|like|because|since|so|but|plain|and)\b|\s+(?:instead\s+of|rather\s+than)\b)"
)
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "swap",
        re.compile(
            r"(?i)\bwe\s+(?:don't|do not|never)\s+use\s+(?P<avoid>[^,.;\n]+?),?\s+we\s+use\s+(?P<prefer>[^.;\n]+?)" + _CLAUSE_END
        ),
    ),
    (
        "swap",
        re.compile(
            r"(?i)\b(?:don't|do not|never|stop)\s+(?:use|using|run|running|call|calling|invoke)\s+(?P<avoid>[^,.;\n]+?)"
            r"(?:\s+directly)?[,;]?\s+(?:just\s+|instead\s+)?(?:use|run|call)\s+(?P<prefer>[^.;\n]+?)"
            + _CLAUSE_END
        ),
    ),
    (
        "swap",
        re.compile(
            r"(?i)\b(?:use|run|call|prefer)\s+(?P<prefer>[^,.;\n]+?)\s*,?\s+(?:instead of|rather than|not)\s+(?P<avoid>[^.;\n]+?)"
            + _CLAUSE_END
        ),
    ),
    ("prefer", re.compile(r"(?i)\b(?:always|please always|make sure (?:to|you))\s+(?P<prefer>[^.;\n]+?)" + _CLAUSE_END)),
    ("prefer", re.compile(r"(?i)\b(?:this (?:project|repo)|we|here we)\s+uses?\s+(?P<prefer>[^,.;\n]+?)" + _CLAUSE_END)),
    ("lead", re.compile(r"(?i)^(?:no|nope|wrong)?[\s,.!:-]*(?:please\s+)?(?:use|run)\s+(?P<prefer>[^.;\n]+?)" + _CLAUSE_END)),
    ("lead", re.compile(r"(?i)[,;:!]\s*(?:please\s+|just\s+)?(?:use|run)\s+(?P<prefer>[^.;\n]+?)" + _CLAUSE_END)),
    ("avoid", re.compile(r"(?i)\b(?:never|don't|do not|stop)\s+(?P<avoid>[^.;\n]+?)" + _CLAUSE_END)),
    ("rule", re.compile(r"(?i)\b(?:are|is|should be|must be)\s+always\s+(?P<prefer>[^.;\n]+?)" + _CLAUSE_END)),
)
_LEADING_NOISE = re.compile(r"(?i)^\s*(?:no|nope|nah|wrong|ugh|hmm|actually|oops|stop)\b[\s,.!:;-]*")
_FILLER = re.compile(r"(?i)\b(?:in this (?:repo|project)|here|like everything else here|please|directly|just|instead)\b")
_COMMANDISH = re.compile(r"^[A-Za-z0-9_./:@=+-]+(?:\s+[A-Za-z0-9_./:@=+-]+){0,4}$")
KNOWN_PROGRAMS = frozenset(
    "uv uvx pip pipx poetry pdm hatch tox nox conda mamba python python3 pytest ruff black isort flake8 mypy pylint pyright "
    "npm pnpm yarn npx bun node deno jest vitest mocha eslint prettier tsc biome cargo rustc clippy go gofmt golangci-lint "
    "make cmake ninja bazel docker podman kubectl helm terraform git gh alembic django-admin rails bundle rake rspec "
    "mvn gradle dotnet just brew apt curl wget jq sed awk composer phpunit mix elixir swift xcodebuild".split()
)


@attrs.frozen(kw_only=True)
class Correction:
    text: str
    rule: str
    prefer: tuple[str, ...] = ()
    avoid: tuple[str, ...] = ()


def _tokens(fragment: str) -> tuple[str, ...]:
    """The tool/command names a correction fragment names: backticked spans, else a
    short command-like phrase; prose ("the thing we discussed") yields nothing."""
    code = [c.strip() for c in _CODE.findall(fragment) if c.strip()]
    if code:
        return tuple(dict.fromkeys(code))
    cleaned = _FILLER.sub("", fragment).strip(" ,.:;!?\"'")
    cleaned = re.sub(r"(?i)^(?:the|a|an|plain|bare)\s+", "", cleaned)
    cleaned = re.sub(r"(?i)\s+(?:for|to|when|with|in|on|because|since|which|that)\b.*$", "", cleaned).strip()
    if cleaned and _COMMANDISH.match(cleaned) and len(cleaned.split()) <= 4:
        first = cleaned.split()[0].lower()
        if first in KNOWN_PROGRAMS or re.search(r"[./_:]", first) or (first.startswith("-") and len(first) > 2):
            return (cleaned,)
    return ()


def rule_sentence(text: str) -> str:
    """The developer's sentence as a rule: interjections removed, first letter capitalised."""
    sentence = _LEADING_NOISE.sub("", text.strip())
    sentence = re.sub(r"\s+", " ", sentence).strip()
    if not sentence:
        return ""
    sentence = sentence[0].upper() + sentence[1:]
    return sentence if sentence[-1] in ".!?`" else sentence + "."


_CLAUSE = re.compile(r"[.;:!?\n]+(?=\s|$)|[;!?\n]|,|\s[\u2014\u2013-]\s|\s[\u2014\u2013]|[\u2014\u2013]\s")
_SLOT = re.compile(r"\x00(\d+)\x00")


def _mask(text: str, vocabulary) -> tuple[str, list[str], set[int]]:
    """``text`` with every named thing replaced by a slot, the names, and which slots were
    backticked (the others are names the intent's steps used, found in prose)."""
    names: list[str] = []
    backticked: set[int] = set()

    def code(m: re.Match) -> str:
        names.append(m.group(1).strip())
        backticked.add(len(names) - 1)
        return f" \x00{len(names) - 1}\x00 "

    masked = _CODE.sub(code, text)
    for word in sorted({v for v in vocabulary if v and len(v) >= 3}, key=len, reverse=True):
        left = r"(?<![\w/-])" if re.match(r"[\w-]", word[:1]) else ""
        right = r"(?![\w-])" if re.match(r"[\w-]", word[-1:]) else ""
        pattern = re.compile(left + re.escape(word) + right, re.IGNORECASE)

        def prose(m: re.Match, word=word) -> str:
            names.append(word)
            return f" \x00{len(names) - 1}\x00 "

        masked = pattern.sub(prose, masked)
    return masked, names, backticked


def _roles(masked: str, names: list[str], backticked: set[int]) -> tuple[list[str], list[str], list[str], bool]:
    """(preferred, avoided, neutral names, whether a use-verb or "always" introduced a preferred one)."""
    from skillopt_sleep.mine import words

    prefer: list[str] = []
    avoid: list[str] = []
    neutral: list[str] = []
    marked = False
    for clause in _CLAUSE.split(masked):
        slots = list(_SLOT.finditer(clause))
        for n, m in enumerate(slots):
            name = names[int(m.group(1))]
            window = clause[slots[n - 1].end() if n else 0 : m.start()]
            after = clause[m.end() : slots[n + 1].start() if n + 1 < len(slots) else len(clause)]
            if words.NEGATOR.search(window) or (n and words.OVER_WORD.search(window)) or words.REJECTED.search(after):
                avoid.append(name)
            elif words.USE_VERB.search(window) or words.ALWAYS_WORD.search(window) or words.PLACE_WORD.search(window):
                prefer.append(name)
                marked = True
            elif int(m.group(1)) in backticked:
                prefer.append(name)
            else:
                neutral.append(name)
    return prefer, avoid, neutral, marked


def find_correction(text: str, vocabulary=()) -> Correction | None:
    """A correction in a user message, with the things it prefers and avoids, or None.
    ``vocabulary``: names the intent's steps used (commands, imports, paths)."""
    from skillopt_sleep.mine import words

    if not text or len(text) > 600:
        return None
    masked, names, backticked = _mask(text, vocabulary)
    if names:
        prefer, avoid, neutral, marked = _roles(masked, names, backticked)
        if avoid:
            prefer += neutral  # "not requests — httpx": the unmarked name is the alternative
        explicit = bool(avoid) or (
            bool(prefer)
            and (
                marked
                or words.ALWAYS_WORD.search(text) is not None
                or words.OPENING_NO_WORD.match(text) is not None
                or polarity(text) < 0
                or words.LATE_OPENER.match(text) is not None
                or words.MEANT_WORD.search(text) is not None
                or words.PLACE_WORD.search(text) is not None
            )
        )
        if explicit:
            prose = _prose_correction(text)  # tools named in prose beside the backticked ones ("we don't use black")
            if prose is not None:
                prefer += [p for p in prose.prefer if p not in prefer]
                avoid += [a for a in prose.avoid if a not in avoid]
            prefer_t = _drop_contained(tuple(dict.fromkeys(p for p in prefer if p and p not in avoid)))
            avoid_t = tuple(dict.fromkeys(a for a in avoid if a and not _mentions_any(a, prefer_t)))
            return Correction(text=text, rule=rule_sentence(text), prefer=prefer_t, avoid=avoid_t)
        if backticked:
            return None
    return _prose_correction(text)


def _prose_correction(text: str) -> Correction | None:
    """English prose naming tools without backticks ("use uv run ruff check instead of bare ruff")."""
    prefer: list[str] = []
    avoid: list[str] = []
    kinds: list[str] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            groups = m.groupdict()
            if groups.get("prefer") and kind != "rule":
                prefer.extend(_tokens(groups["prefer"]))
            if groups.get("avoid"):
                avoid.extend(_tokens(groups["avoid"]))
            kinds.append(kind)
    if not kinds:
        return None
    negative = polarity(text) < 0 or bool(OPENING_NO.match(text))
    explicit = (
        any(k in ("swap", "rule") for k in kinds)
        or re.search(r"(?i)\b(always|never)\b", text)
        or ("lead" in kinds and bool(prefer) and len(text.split()) <= 15)
        or ("avoid" in kinds and bool(avoid) and re.search(r"(?i)\b(?:don't|do not|stop)\s+(?:use|using|run|running|call)\b", text))
    )
    if not (negative or explicit):
        return None
    prefer_t = _drop_contained(tuple(dict.fromkeys(p for p in prefer if p)))
    avoid_t = tuple(dict.fromkeys(a for a in avoid if a and not _mentions_any(a, prefer_t)))
    return Correction(text=text, rule=rule_sentence(text), prefer=prefer_t, avoid=avoid_t)


def _drop_contained(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """``("uv run pytest", "uv")`` → ``("uv run pytest",)``: the longer token already checks it."""
    keep = []
    for tok in tokens:
        low = tok.lower()
        if not any(other != tok and re.search(r"(?<![\w-])" + re.escape(low) + r"(?![\w-])", other.lower()) for other in tokens):
            keep.append(tok)
    return tuple(keep)


def _mentions_any(token: str, others: tuple[str, ...]) -> bool:
    """True when ``token`` is, or contains as a word, one of ``others`` (never avoid what is preferred)."""
    low = token.lower()
    return any(re.search(r"(?<![\w-])" + re.escape(o.lower()) + r"(?![\w-])", low) for o in others)
