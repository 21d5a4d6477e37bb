"""Reading the developer's replies: praise, complaint, decline, correction, adjustment.

Upstream matched bare substrings, so "incorrect" counted as both "correct" (positive)
and wrong (negative), "no," fired inside any sentence, and a complaint always beat a
later "thanks". Here phrases match on word boundaries and within a message the *last*
polar phrase wins. A negator just before a phrase flips it, both ways: "not correct"
is a complaint and "that's not incorrect" or "not bad" is praise. Politeness is not
complaint: "no worries, thanks" is praise, "no problem" nothing, and "no, leave it"
declines an offer without judging the work. A reply that adjusts the work just done
("actually, put it under the version heading", "make it a warning instead") is a
*late correction* of the current request, never a new request.
"""

from __future__ import annotations

import re

from skillopt_sleep.mine import words

POSITIVE = (
    "thanks",
    "thank you",
    "thx",
    "great",
    "perfect",
    "it works",
    "that works",
    "works now",
    "it worked",
    "nice",
    "correct",
    "lgtm",
    "looks good",
    "awesome",
    "exactly",
    "well done",
    "that's right",
    "good job",
)
#: words that are a complaint alone and praise when negated ("not wrong", "isn't broken")
NEGATIVE_WORDS = ("wrong", "incorrect", "broken", "bad", "buggy")
#: phrases that already carry their negation ("doesn't work"): never flipped
NEGATIVE_PHRASES = (
    "doesn't work",
    "does not work",
    "didn't work",
    "not working",
    "still fails",
    "still failing",
    "didn't fix",
    "not what i",
    "revert",
    "undo",
    "nope",
    "i told you",
    "i said",
    "that's not",
    "not right",
    "why did you",
    "you broke",
)
NEGATORS = ("not", "isn't", "wasn't", "aren't", "no", "never", "hardly", "don't", "doesn't", "didn't", "nothing")

_WORD = r"(?<![A-Za-z0-9_'])"
_END = r"(?![A-Za-z0-9_'])"


def _phrase(p: str) -> re.Pattern[str]:
    return re.compile(_WORD + re.escape(p).replace(r"\ ", r"\s+") + _END, re.IGNORECASE)


_POS = [_phrase(p) for p in POSITIVE]
_NEG_WORDS = [_phrase(p) for p in NEGATIVE_WORDS]
_NEG_PHRASES = [_phrase(p) for p in NEGATIVE_PHRASES]
OPENING_NO = re.compile(r"^\s*(no|nah|nope|stop)\b[\s,.!:;-]", re.IGNORECASE)
#: polite formulas that contain a "no" but judge nothing
POLITE = re.compile(
    r"(?i)\b(?:no\s+(?:worries|problem|prob|probs|rush|need|biggie|stress|hurry)|no,?\s+thanks?(?:\s+you)?|"
    r"not\s+a\s+problem|not\s+to\s+worry|never\s*mind|don't\s+worry)\b"
)
#: "no, leave it" (and its German, French and Spanish forms): declining an offer, not judging the work
DECLINE = re.compile(
    r"(?i)^\s*(?:no|nah|nope|nein|nee|non|nö)\b[\s,.!-]*(?:(?:that's|it's|that is|it is)\s+fine|leave\s+(?:it|that|them)(?:\s+(?:as\s+is|alone|be))?|"
    r"keep\s+(?:it|that)(?:\s+as\s+is)?|not\s+(?:now|needed|necessary)|don't\s+bother|skip\s+(?:it|that)|all\s+good|"
    r"that's\s+(?:all|enough)|we're\s+good|i'm\s+good|"
    r"lass\s+(?:es|das|mal)|passt(?:\s+so)?|nicht\s+nötig|schon\s+gut|brauchst\s+du\s+nicht|"
    r"laisse(?:\s+comme\s+ça)?|pas\s+besoin|c'est\s+bon|ça\s+ira|"
    r"déjalo|no\s+hace\s+falta|así\s+está\s+bien|está\s+bien|no\s+es\s+necesario)(?![\w])"
)


def _normalise(text: str) -> str:
    return (text or "").replace("\u2019", "'").replace("\u2018", "'")


def _negated(lowered: str, start: int) -> bool:
    """A negator among the (at most 3) words just before ``start``, in the same clause."""
    clause = re.split(r"[,.;:!?\u2014-]", lowered[max(0, start - 30) : start])[-1]
    return any(w in NEGATORS for w in clause.split()[-3:])


def polarity(text: str) -> int:
    """+1 praise, -1 complaint, 0 neither; the last polar phrase in the message wins."""
    text = POLITE.sub(lambda m: " " * len(m.group(0)), _normalise(text))
    if DECLINE.match(text):
        return 0
    lowered = text.lower()
    hits: list[tuple[int, int]] = []
    for pattern in _POS:
        hits += [(m.start(), -1 if _negated(lowered, m.start()) else 1) for m in pattern.finditer(text)]
    for pattern in _NEG_WORDS:
        hits += [(m.start(), 1 if _negated(lowered, m.start()) else -1) for m in pattern.finditer(text)]
    for pattern in _NEG_PHRASES:
        hits += [(m.start(), -1) for m in pattern.finditer(text)]
    hits += [(m.start(), -1 if _negated(lowered, m.start()) else 1) for m in words.PRAISE_WORD.finditer(text)]
    if OPENING_NO.match(text):
        hits.append((0, -1))
    if not hits:
        return 0
    hits.sort()
    return hits[-1][1]


# ------------------------------------------------------------------ what a reply does

_LATE = re.compile(r"(?i)^\s*(?:actually|wait|oh|hmm+|oops|sorry|instead|rather|but|though|no)\b[\s,.:;!-]+")
_ADDED = re.compile(r"(?i)^\s*(?:also|and also|and|plus|one more thing|btw|by the way)\b[\s,.:;!-]*")
_BACK_REF = re.compile(
    r"(?i)^\s*(?:please\s+|can you\s+|could you\s+|just\s+)?(?:put|move|make|change|rename|place|keep|drop|remove|add|"
    r"write|call|mark|sort|format|split|merge|use|turn|set|wrap|indent|list)\s+(?:it|that|this|them|those|these|the\s+"
    r"(?:entry|entries|file|line|lines|change|changes|test|tests|heading|section|note|message|function|name))\b"
)
_INSTEAD = re.compile(r"(?i)\binstead\b|\brather than\b|\bnot there\b")


def is_adjustment(text: str) -> bool:
    """A late correction: the reply changes how the work just done should be, instead
    of asking for new work ("actually, put it under the version heading")."""
    text = POLITE.sub("", _normalise(text)).strip(" ,.!")
    if _LATE.match(text):
        return True
    rest = _ADDED.sub("", text, count=1)
    if _BACK_REF.match(rest):
        return True
    if rest != text and len(rest.split()) <= 7:  # "also add a downgrade": more of the same job
        return True
    return bool(_INSTEAD.search(text)) and len(text.split()) <= 15


def is_request(text: str) -> bool:
    """A polite request for work ("could you also add …?", "kannst du bitte noch …",
    "tu peux aussi …", "¿puedes …?"), whatever words in it look negative ("revert",
    "undo", "not urgent", "that's not blocking")."""
    return words.REQUEST_WORD.search(text) is not None and ("?" in text or len(text.split()) >= 6)


def reply_kind(text: str, *, is_correction: bool) -> str:
    """What a later message in a session does: ``decline``, ``correction``,
    ``adjustment``, ``praise``, ``complaint``, ``new_request`` or ``aside``.

    A reply that refers back to the work ("put it …", "I meant …", "… instead") adjusts
    it; a polite request, or one opened by "now"/"next"/"jetzt"/"ensuite"/"ahora", asks
    for new work — and is never a complaint, whatever words it contains."""
    cleaned = _normalise(text)
    if DECLINE.match(cleaned):
        return "decline"
    if is_correction:
        return "correction"
    unopened = words.LATE_OPENER.sub("", POLITE.sub("", cleaned), count=1).strip(" ,.!")
    if words.MEANT_WORD.search(cleaned) or _BACK_REF.match(unopened):
        return "adjustment"
    if is_request(cleaned):
        return "new_request"
    opener = words.NEXT_OPENER.match(cleaned)
    if opener and not _ADDED.match(cleaned) and len(cleaned.split()) >= 3:
        return "new_request"
    if is_adjustment(cleaned):
        return "adjustment"
    p = polarity(cleaned)
    if p:
        return "praise" if p > 0 else "complaint"
    return "new_request" if len(cleaned.split()) >= 6 else "aside"
