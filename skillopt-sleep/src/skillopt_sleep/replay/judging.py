"""Scoring a replayed answer: deterministic checks first, an LLM rubric only when needed.

Checks are local and cheap: ``contains`` / ``not_contains`` (case-insensitive, on word
edges so ``npm`` does not match inside ``pnpm``), ``regex`` / ``not_regex``,
``max_chars`` / ``min_chars``, ``no_refusal``, ``tool_called`` (a ``TOOL_CALL:
name`` line; names are sanitised and never used as paths), and the section checks
``section_present`` (a heading *is* that section, numbering and annotations aside) and
``section_contains`` (a heading's text contains the name), both Unicode-aware
(:mod:`.sections`). ``hard`` is 1 when every
check passes, ``soft`` the fraction that pass. An invalid regex is reported as
malformed, not silently passed or failed.

The rubric judge asks the optimizer for ``{"score", "reason"}``; a reply that breaks
the schema raises (the replay records an *error*, which the gate excludes), so a
flaky judge can never score a good answer 0.
"""

from __future__ import annotations

import re

from skillopt.api import CompletionRequest, Message, Score
from skillopt_sleep import prompts
from skillopt_sleep.harvest.fields import sanitize_tool_name
from skillopt_sleep.mine.tasks import CHECK_OPS, Check
from skillopt_sleep.redaction import clip
from skillopt_sleep.replay import sections
from skillopt_sleep.sentinel import mark

REFUSAL = re.compile(
    r"^\W*(i can(?:'|no)t|i cannot|i'm sorry|i am sorry|sorry,|as an ai|i am unable|i'm unable|i won't)", re.IGNORECASE
)
TOOL_CALL = re.compile(r"(?m)^\s*TOOL_CALL:\s*([A-Za-z0-9_-]{1,64})\s*$")
MAX_CHECK_VALUE = 300
RUBRIC_PASS = 0.8

RUBRIC_SCHEMA = {
    "type": "object",
    "properties": {"score": {"type": "number", "minimum": 0, "maximum": 1}, "reason": {"type": "string"}},
    "required": ["score", "reason"],
}


def _edge_pattern(token: str) -> re.Pattern[str]:
    left = r"(?<![\w-])" if re.match(r"[\w-]", token[:1]) else ""
    right = r"(?![\w-])" if re.match(r"[\w-]", token[-1:]) else ""
    return re.compile(left + re.escape(token) + right, re.IGNORECASE)


def tools_called(answer: str) -> set[str]:
    return {sanitize_tool_name(name) for name in TOOL_CALL.findall(answer or "")}


def run_check(check: Check, answer: str) -> tuple[bool, str]:
    """(passed, explanation) for one check."""
    op, value = check.op, check.value
    if op == "contains":
        ok = bool(value) and bool(_edge_pattern(value).search(answer))
        return ok, f"must mention `{value}`"
    if op == "not_contains":
        ok = not (value and _edge_pattern(value).search(answer))
        return ok, f"must not use `{value}`"
    if op in ("regex", "not_regex"):
        try:
            found = re.search(value, answer, re.IGNORECASE) is not None
        except re.error as exc:
            return False, f"malformed regex {value!r}: {exc}"
        return (found if op == "regex" else not found), f"{'must' if op == 'regex' else 'must not'} match /{value}/"
    if op in ("max_chars", "min_chars"):
        try:
            bound = int(value)
        except ValueError:
            return False, f"malformed bound {value!r}"
        ok = len(answer) <= bound if op == "max_chars" else len(answer) >= bound
        return ok, f"answer length {'<=' if op == 'max_chars' else '>='} {bound}"
    if op == "no_refusal":
        return bool(answer.strip()) and not REFUSAL.match(answer[:600]), "must not refuse"
    if op == "tool_called":
        name = sanitize_tool_name(value)
        return name in tools_called(answer), f"must call tool {name}"
    if op == "section_present":
        return sections.section_present(answer, value), f"must have a `{value}` section"
    if op == "section_contains":
        return sections.section_contains(answer, value), f"must have a heading mentioning `{value}`"
    return False, f"unknown check op {op!r}"


NEGATIVE_OPS = ("not_contains", "not_regex", "max_chars")


def score_checks(checks: tuple[Check, ...] | list[Check], answer: str) -> Score:
    """``hard``: every check passes. ``soft``: the share of *positive* checks met,
    halved when a constraint (``not_…``, ``max_chars``) is broken. Constraints alone
    earn nothing when a task has positive checks: an answer that does nothing satisfies
    every "must not", and must not outscore one that tries (reward hacking)."""
    results = [(c, *run_check(c, answer)) for c in checks]
    positives = [(ok, why) for c, ok, why in results if c.op not in NEGATIVE_OPS]
    negatives = [(ok, why) for c, ok, why in results if c.op in NEGATIVE_OPS]
    failed = [why for _c, ok, why in results if not ok]
    if positives:
        soft = sum(ok for ok, _ in positives) / len(positives)
        if any(not ok for ok, _ in negatives):
            soft *= 0.5
    else:
        soft = sum(ok for ok, _ in negatives) / len(negatives) if negatives else 0.0
    return Score(
        hard=1.0 if results and not failed else 0.0,
        soft=soft,
        feedback="all checks pass" if not failed else "failed: " + "; ".join(failed),
    )


def validate_checks(raw: list) -> tuple[list[Check], list[str]]:
    """Checks from untrusted JSON (LLM miner, task files): bad ones are reported, not used."""
    good: list[Check] = []
    problems: list[str] = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict):
            problems.append(f"check is not an object: {item!r}"[:120])
            continue
        op = str(item.get("op") or "")
        value = str(item.get("value") if item.get("value") is not None else "")
        if op not in CHECK_OPS:
            problems.append(f"unknown check op {op!r}")
            continue
        if len(value) > MAX_CHECK_VALUE:
            problems.append(f"{op} value longer than {MAX_CHECK_VALUE} characters")
            continue
        if op in ("regex", "not_regex"):
            try:
                re.compile(value)
            except re.error as exc:
                problems.append(f"malformed regex {value!r}: {exc}")
                continue
        if op in ("max_chars", "min_chars") and not value.isdigit():
            problems.append(f"{op} needs a number, got {value!r}")
            continue
        if op == "tool_called":
            value = sanitize_tool_name(value)
        if op in ("contains", "not_contains", "section_present", "section_contains") and not value.strip():
            problems.append(f"{op} needs a value")
            continue
        good.append(Check(op=op, value=value, why=clip(str(item.get("why") or "mined"), 120)))
    return good, problems


def rubric_request(intent: str, rubric: str, answer: str) -> CompletionRequest:
    system = mark(prompts.render("judge_system"))
    user = f"## Request\n{clip(intent, 1500)}\n\n## Rubric\n{clip(rubric, 800)}\n\n## Answer\n{clip(answer, 3000)}"
    return CompletionRequest(
        messages=(Message(role="system", content=system), Message(role="user", content=user)),
        max_tokens=300,
        json_schema=RUBRIC_SCHEMA,
        role="optimizer",
        stage="sleep-judge",
        temperature=0.0,
    )


def score_rubric(client, intent: str, rubric: str, answer: str) -> Score:
    completion = client.complete(rubric_request(intent, rubric, answer))
    data = completion.parsed or {}
    value = max(0.0, min(1.0, float(data.get("score", 0.0))))
    return Score(hard=1.0 if value >= RUBRIC_PASS else 0.0, soft=value, feedback=clip(str(data.get("reason") or ""), 300))
