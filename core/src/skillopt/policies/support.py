"""Deterministic dedupe and *counted* support for proposals.

Upstream trusts the optimizer's self-reported ``support_count``. Here duplicates are
merged by normalised text before any merge call, and after an LLM merge each merged
item's support is recounted from the proposals it resembles.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import attrs

from skillopt.records import Edit, Suggestion

if TYPE_CHECKING:
    from collections.abc import Callable

_WORD = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def similar(a: str, b: str, threshold: float = 0.5) -> bool:
    ta, tb = tokens(a), tokens(b)
    if not ta or not tb:
        return a.strip().lower() == b.strip().lower()
    return len(ta & tb) / len(ta | tb) >= threshold


def edit_text(edit: Edit) -> str:
    return f"{edit.op} {edit.target} {edit.content}"


def suggestion_text(s: Suggestion) -> str:
    return f"{s.type} {s.title} {s.instruction}"


def dedupe_edits(edits: list[Edit]) -> list[Edit]:
    """Merge exact duplicates (same file, normalised op/target/content), summing their support."""
    kept: dict[tuple[str, str, str, str], Edit] = {}
    for edit in edits:
        file = edit.target_file.strip() or "SKILL.md"
        key = (file, edit.op, " ".join(edit.target.split()).lower(), " ".join(edit.content.split()).lower())
        if key in kept:
            prev = kept[key]
            kept[key] = attrs.evolve(prev, support_count=prev.support_count + edit.support_count)
        else:
            kept[key] = edit
    return list(kept.values())


def dedupe_suggestions(items: list[Suggestion]) -> list[Suggestion]:
    kept: list[Suggestion] = []
    for item in items:
        for i, prev in enumerate(kept):
            if similar(suggestion_text(prev), suggestion_text(item), 0.8):
                kept[i] = attrs.evolve(prev, support_count=prev.support_count + item.support_count)
                break
        else:
            kept.append(item)
    return kept


def recount(merged: list[Any], inputs: list[Any], text_of: Callable[[Any], str]) -> list[Any]:
    """Set each merged item's support to the total support of inputs that resemble it."""
    out = []
    for item in merged:
        support = sum(src.support_count for src in inputs if similar(text_of(item), text_of(src)))
        out.append(attrs.evolve(item, support_count=max(support, 1)))
    return out
