"""Refusing edits that copy a training item's answer into the skill.

An optimizer that has seen the gold answers (in the evaluation feedback) is tempted to
write them into the skill, which scores on the items it saw and teaches nothing. An edit
whose text contains the gold answer of an item rolled out this step is reported as
``leak`` and not applied. Answers shorter than four characters are ignored (a choice
label or a digit appears in ordinary rules).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

import attrs

from skillopt.records import Edit, EditResult, Task

if TYPE_CHECKING:
    from skillopt.records import Patch

MIN_ANSWER_CHARS = 4


def answers_of(tasks: Iterable[Task]) -> list[str]:
    found: set[str] = set()
    for task in tasks:
        gold = task.gold
        values = gold if isinstance(gold, (list, tuple)) else [gold]
        for value in values:
            if isinstance(value, str) and len(value.strip()) >= MIN_ANSWER_CHARS:
                found.add(value.strip())
    return sorted(found, key=len, reverse=True)


def leaked_answer(text: str, answers: list[str]) -> str | None:
    low = " ".join(text.lower().split())
    for answer in answers:
        pattern = r"(?<!\w)" + re.escape(" ".join(answer.lower().split())) + r"(?!\w)"
        if re.search(pattern, low):
            return answer
    return None


def split_leaks(edits: tuple[Edit, ...], answers: list[str]) -> tuple[tuple[Edit, ...], list[EditResult]]:
    """(edits to apply, results of the refused ones)."""
    kept, refused = [], []
    for edit in edits:
        answer = leaked_answer(f"{edit.content}", answers) if answers else None
        if answer is None:
            kept.append(edit)
        else:
            refused.append(EditResult(edit=edit, status="leak", detail=f"copies the answer of a training item ({answer!r})"))
    return tuple(kept), refused


def without_leaks(patch: Patch, answers: list[str]) -> tuple[Patch, list[EditResult]]:
    kept, refused = split_leaks(patch.edits, answers)
    return attrs.evolve(patch, edits=kept), refused
