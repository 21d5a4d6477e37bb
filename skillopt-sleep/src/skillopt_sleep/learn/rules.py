"""A mined lesson as a rule for the skill document: general, imperative, or nothing.

The no-model reflector used to paste the developer's sentence into the skill, noise
and one-off instructions included ("That's wrong — use pathlib … and drop the seed
stuff, that's a separate migration"). A rule is written from what the lesson *knows*
instead: the tools it prefers and avoids and the kind of job they do ("Run tests with
`uv run pytest`, not `python -m pytest`."), release numbers generalised (``vX.Y.Z``);
a late correction that names no tool becomes a conditioned instruction — the job it
corrected, then the developer's imperative clause only, with the shape the accepted
edit wrote ("When adding a changelog entry, put it under the version heading (e.g.
`## [X.Y.Z]`)."), and only when an edit shows it or several sessions repeat it. A
correction that names no tool and no edit backs is not turned into a rule at all. The
evidence (sessions and the developer's lines) travels with the proposal, not in it.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from skillopt_sleep.mine.commands import category_of
from skillopt_sleep.mine.tasks import Lesson

JOB_PHRASE = {
    "test": "Run tests",
    "lint": "Run the linter",
    "format": "Format code",
    "migrate": "Create database migrations",
    "install": "Add dependencies",
    "build": "Build the project",
    "tag": "Tag releases",
    "commit": "Commit",
    "push": "Push",
}
IMPERATIVE = frozenset(
    "put move make keep use add write place name call mark sort list group prefix wrap split merge run format change "
    "rename remove drop skip leave set turn start end bump tag document describe mention link include".split()
)
REQUEST_VERBS = IMPERATIVE | frozenset("create update fix release refactor implement generate migrate".split())
_NOISE = re.compile(
    r"(?i)^(?:(?:actually|wait|oh|hmm+|oops|sorry|no|nope|ok|okay|also|and|but|so|then|please|can you|could you|"
    r"would you|just|instead)\b[\s,.:;!-]*)+"
)
_CLAUSE_SPLIT = re.compile(
    r"\s*(?:[.;!?\u2014\u2013]|\s-\s|,\s*(?:and|but|that's|that is|which|because|since|thanks|thank you|please|cheers)\b|\band\b)\s*"
)
_OBJECT = re.compile(r"^(\w+)\s+(?:it|this|that|them)\b")
_TRAILING = re.compile(r"(?i)[\s,]+(?:please|pls|thanks|thank you)\s*$")
_VERSION = re.compile(r"\d+(?:\.\d+){1,3}")
_GIST_END = re.compile(r"(?i)\s+(?:for|about|in|on|to|so|because|and|with|from|after|before|since|that|which)\b|[,.;:!?(]")


def generalise(text: str) -> str:
    """Release numbers as placeholders: ``git tag v1.4.0`` → ``git tag vX.Y.Z``."""
    return _VERSION.sub(lambda m: ".".join("XYZW"[: m.group(0).count(".") + 1]), text)


def _codes(tokens) -> str:
    return " or ".join(f"`{generalise(t)}`" for t in tokens)


def imperative_clause(text: str) -> str | None:
    """The developer's first clause that gives an instruction, without interjections,
    politeness or the rest of the sentence; None when no clause is an instruction."""
    for clause in _CLAUSE_SPLIT.split(text or ""):
        clause = _NOISE.sub("", clause.strip()).strip(" ,")
        words = clause.split()
        if len(words) >= 2 and words[0].lower() in IMPERATIVE:
            return _TRAILING.sub("", words[0].lower() + " " + " ".join(words[1:]))
    return None


def _gerund(verb: str) -> str:
    if verb.endswith("e") and not verb.endswith("ee"):
        return verb[:-1] + "ing"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", verb):
        return verb + verb[-1] + "ing"
    return verb + "ing"


def job_of(request: str) -> str:
    """The job a request asks for, as a gerund phrase ("adding a changelog entry"), or ''."""
    text = _NOISE.sub("", (request or "").strip())
    head = _GIST_END.split(text, maxsplit=1)[0].split()
    if len(head) < 2 or head[0].lower() not in REQUEST_VERBS:
        return ""
    return " ".join([_gerund(head[0].lower()), *head[1:5]])


def _shown_rule(lesson: Lesson) -> str | None:
    """A rule for a lesson a difference between attempts shows (api, place, heading)."""
    prefer = lesson.prefer[0]
    nots = _codes(lesson.avoid).replace(" or ", ", ")
    if lesson.kind == "api":
        where = f"In `{lesson.scope}` code, use" if lesson.scope.startswith("*.") else "Use"
        return f"{where} {_codes(lesson.prefer)}" + (f" instead of {nots}" if nots else "") + "."
    if lesson.kind == "place":
        what = f"new `{lesson.scope}` files" if lesson.scope else "new files"
        return f"Put {what} under `{prefer}`" + (f", not directly under {nots}" if nots else "") + "."
    if lesson.kind == "heading":
        heading = generalise(lesson.example or prefer)
        where = f"When you edit `{PurePath(lesson.where).name}`" if lesson.where else ""
        clause = imperative_clause(lesson.text)  # the developer's own instruction, when it is one (English)
        if clause is not None and _OBJECT.match(clause):
            clause = _OBJECT.sub(lambda m: m.group(1) + " what you add", clause, count=1)
            example = "" if heading.lower() in clause.lower() else f" (e.g. `{heading}`)"
            return (f"{where}, {clause}" if where else clause[0].upper() + clause[1:]) + example + "."
        return (f"{where}, put" if where else "Put") + f" what you add under the `{heading}` heading."
    return None


def rule_for(lesson: Lesson, request: str = "") -> str | None:
    """The rule ``lesson`` supports, or None when it supports no general rule."""
    if lesson.kind in ("api", "place", "heading") and lesson.prefer:
        return _shown_rule(lesson)
    if lesson.prefer:
        job = JOB_PHRASE.get(category_of(lesson.prefer[0]) or (category_of(lesson.avoid[0]) if lesson.avoid else "") or lesson.scope)
        nots = _codes(lesson.avoid).replace(" or ", ", ")
        if job:
            return f"{job} with {_codes(lesson.prefer)}" + (f", not {nots}" if nots else "") + "."
        return f"Use {_codes(lesson.prefer)}" + (f" instead of {nots}" if nots else "") + "."
    if lesson.avoid:
        return f"Do not use {_codes(lesson.avoid).replace(' or ', ' or ')}."
    if lesson.kind != "adjustment" or not (lesson.example or lesson.support >= 2):
        return None
    clause = imperative_clause(lesson.text)
    if clause is None:
        return None
    if lesson.where:  # an edit shows it: the condition is the file, "it" is what is added there
        condition = f"When you edit `{PurePath(lesson.where).name}`"
        clause = _OBJECT.sub(lambda m: m.group(1) + " what you add", clause, count=1)
    else:
        job = job_of(request)
        condition = f"When {job}" if job else ""
    rule = f"{condition}, {clause}" if condition else clause[0].upper() + clause[1:]
    if lesson.example:
        rule += f" (e.g. `{generalise(lesson.example)}`)"
    return rule + "."
