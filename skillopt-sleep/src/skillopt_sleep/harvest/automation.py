"""Sessions a program ran, not the developer: replays, graders, skill optimizers.

Evaluation harnesses (sleep's own, upstream's, a benchmark's, a CI grader's) drive
coding agents headlessly, and those runs land in the same transcript folders as the
developer's work. Mining them teaches the night its own prompts: a grader session
("You are a strict grader … ## CURRENT SKILL …") becomes a "recurring intent" and its
rubric a "developer correction". So a session is dropped when its opening request
reads like automation, whichever tool wrote it:

- ``sleep-replay``: it carries sleep's sentinel (any user turn), or another sleep
  build's replay marker;
- ``grader``: it casts the agent as a grader/judge/evaluator and asks for a score or
  verdict, or pastes the material to grade (answer, rubric, skill) under headings;
- ``skill-replay``: it pastes a skill or instructions document under a heading and
  asks for an attempt in a machine-readable shape ("return only the final answer");
- ``skill-optimizer``: it pastes a skill and asks for edits to it as JSON.

Each test needs two independent signals (a role *and* a format, or pasted sections
*and* a format), so a developer who writes "you are a strict reviewer, look at my PR"
or "write a grader for the quiz app" keeps their session.
"""

from __future__ import annotations

import re

from skillopt_sleep.sentinel import is_engine_text

_GRADER_ROLE = re.compile(
    r"(?i)\byou are (?:an? |the )?(?:\w+ ){0,2}(?:grader|judge|evaluator|scorer|rater|examiner|assessor)\b"
)
_GRADE_VERB = re.compile(
    r"(?i)\b(?:grade|score|judge|rate|evaluate|assess)\s+(?:the|this|each|an?)\s+(?:\w+\s+)?(?:answer|response|output|attempt|reply|submission|completion)s?\b"
)
_SCORE_FORMAT = re.compile(
    r"""(?ix)
    ["']score["']\s*:                                   # a JSON score field
    | \breply\s+(?:only\s+)?with\s+(?:only\s+)?(?:a\s+)?(?:json|the\s+score|a\s+(?:single\s+)?number|pass\s+or\s+fail)
    | \bscore\b[^.\n]{0,40}?\b(?:0(?:\.0)?\s*(?:-|–|to|\.\.)\s*1(?:\.0)?|1\s*(?:-|–|to)\s*(?:5|10)|0\s*(?:-|–|to)\s*(?:10|100))\b
    | \b(?:verdict|output)\s*:\s*(?:pass|fail)\b
    | \b(?:PASS|FAIL)\s+or\s+(?:PASS|FAIL)\b
    """
)
_MATERIAL = re.compile(
    r"(?im)^\s*#{1,4}\s*(?:current\s+skill|skill(?:\s+document)?|candidate(?:\s+skill)?|rubric|reference(?:\s+answer)?|"
    r"expected(?:\s+answer)?|answer|response|model\s+output|attempt|submission|learned\s+rules|instructions)\s*:?\s*$"
)
_SKILL_HEADING = re.compile(r"(?im)^\s*#{1,4}\s*(?:current\s+skill|skill(?:\s+document)?|candidate\s+skill|learned\s+rules)\s*:?\s*$")
_TASK_HEADING = re.compile(r"(?im)^\s*#{1,4}\s*(?:task|request|question|problem|input)\s*:?\s*$")
_ATTEMPT_FORMAT = re.compile(
    r"(?i)\b(?:return|give|output|respond with|reply with)\s+only\s+(?:the\s+)?(?:final\s+)?(?:answer|code|result|json)\b"
    r"|\bcomplete the task\b.{0,80}\bfollow(?:ing)?\b.{0,40}\bskill\b"
)
_EDITS_FORMAT = re.compile(r"""(?i)["']edits["']\s*:|\b(?:propose|suggest|return)\b.{0,60}\bedits?\b.{0,60}\bjson\b""")


def automation_reason(first_request: str, *, any_user_text_marked: bool = False) -> str | None:
    """Why a session whose opening request is ``first_request`` is automation, or None
    when it reads like a developer's own work."""
    text = first_request or ""
    if any_user_text_marked or is_engine_text(text):
        return "sleep-replay"
    material = len(_MATERIAL.findall(text))
    scored = bool(_SCORE_FORMAT.search(text))
    if _GRADER_ROLE.search(text) and (scored or material):
        return "grader"
    if _GRADE_VERB.search(text) and scored and material:
        return "grader"
    if _SKILL_HEADING.search(text):
        if _EDITS_FORMAT.search(text):
            return "skill-optimizer"
        if _TASK_HEADING.search(text) and (_ATTEMPT_FORMAT.search(text) or scored):
            return "skill-replay"
    return None
