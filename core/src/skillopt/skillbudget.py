"""A skill's length as a budget (``optimizer.max_skill_tokens``).

A skill document is read on every call the target makes, so its length is paid for on
every item; left alone, bounded edits still only ever append. The budget is told to
the analysts, the merger, the ranking and the rewriter (shortening edits preferred when
the skill is over it), and the gate refuses a candidate over it unless the candidate
shortens a skill that was already over. Tokens are estimated at four characters each:
the same estimate for every provider, so a run's decisions do not depend on which
tokenizer happens to be installed.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from skillopt.records import Edit

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def over_budget(candidate: str, current: str, max_tokens: int) -> str:
    """Why ``candidate`` is refused under ``max_tokens`` ('' when it is not)."""
    if not max_tokens:
        return ""
    size, before = estimate_tokens(candidate), estimate_tokens(current)
    if size <= max_tokens or size < before:
        return ""  # within budget, or shortening a skill that was over it
    return f"the candidate is ~{size} tokens, over optimizer.max_skill_tokens={max_tokens} (current skill ~{before})"


def budget_note(skill: str, max_tokens: int) -> str:
    """The prompt section telling an optimizer stage where the skill stands."""
    if not max_tokens:
        return ""
    size = estimate_tokens(skill)
    head = f"## Skill length budget\nThe skill is ~{size} tokens; its budget is {max_tokens} tokens (~{CHARS_PER_TOKEN} characters each)."
    if size > max_tokens:
        return (head + f" It is {size - max_tokens} tokens OVER budget: prefer `delete` edits and `replace` edits that say the "
                "same in fewer words; a candidate that does not shorten it is refused.")
    room = max_tokens - size
    return head + f" {room} tokens remain: keep additions short, merge overlapping rules; a candidate over budget is refused."


def shortens(edit: Edit) -> bool:
    """An edit that makes the skill shorter (a delete, or a replace with shorter text)."""
    return edit.op == "delete" or (edit.op == "replace" and len(edit.content) < len(edit.target))
