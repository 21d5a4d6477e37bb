"""JSON schemas of optimizer replies. Backends enforce them (constrained decoding,
``response_format``, tool schemas); the pipeline re-validates and re-asks."""

from __future__ import annotations

from typing import Any

from skillopt.records import EDIT_OPS

TEXT = {"type": "string", "maxLength": 2000}
SHORT = {"type": "string", "maxLength": 600}


def edit_schema(files: bool = False) -> dict[str, Any]:
    """One edit; ``files``: the skill is a folder, so an edit names its ``target_file``."""
    props = {
        "op": {"type": "string", "enum": list(EDIT_OPS)},
        "target": SHORT,
        "content": TEXT,
        "rationale": SHORT,
    }
    if files:
        from skillopt.skillfolder import MAX_PATH_CHARS

        props["target_file"] = {"type": "string", "maxLength": MAX_PATH_CHARS}
    return {"type": "object", "properties": props, "required": ["op", "content"]}


def _items(item: dict[str, Any], limit: int | None, minimum: int = 0) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "array", "items": item}
    if limit is not None:
        schema["maxItems"] = max(limit, 0)
    if minimum:
        schema["minItems"] = min(minimum, limit) if limit is not None else minimum
    return schema


def analyst_patch_schema(kind: str, budget: int | None, sar: bool, min_edits: int = 0, *, files: bool = False) -> dict[str, Any]:
    props: dict[str, Any] = {"reasoning": SHORT, "edits": _items(edit_schema(files), budget, min_edits if kind == "failure" else 0)}
    if kind == "failure":
        pattern: dict[str, Any] = {
            "type": "object",
            "properties": {"failure_type": {"type": "string", "maxLength": 80}, "count": {"type": "integer"}, "description": SHORT},
            "required": ["failure_type", "description"],
        }
        if sar:
            pattern["properties"]["route"] = {"type": "string", "enum": ["SKILL_DEFECT", "EXECUTION_LAPSE"]}
        props["failure_summary"] = _items(pattern, 8)
    else:
        props["success_patterns"] = _items(SHORT, 8)
    if sar:
        props["appendix_notes"] = _items(SHORT, 5)
    return {"type": "object", "properties": props, "required": ["reasoning", "edits"]}


def merged_patch_schema(*, files: bool = False) -> dict[str, Any]:
    return {"type": "object", "properties": {"reasoning": SHORT, "edits": _items(edit_schema(files), None)}, "required": ["edits"]}


def ranking_schema(n_items: int, budget: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "reasoning": SHORT,
            "selected_indices": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": max(n_items - 1, 0)}, "maxItems": budget},
        },
        "required": ["selected_indices"],
    }


SUGGESTION_TYPES = ["add_rule", "remove_rule", "merge_rules", "reorganize", "compress", "clarify"]


def suggestion_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": SUGGESTION_TYPES},
            "title": {"type": "string", "maxLength": 120},
            "motivation": SHORT,
            "instruction": TEXT,
            "priority_hint": {"type": "string", "enum": ["high", "medium", "low"]},
        },
        "required": ["type", "title", "instruction"],
    }


def analyst_rewrite_schema(kind: str, budget: int | None, min_items: int = 0) -> dict[str, Any]:
    props = {"reasoning": SHORT, "suggestions": _items(suggestion_schema(), budget, min_items if kind == "failure" else 0)}
    return {"type": "object", "properties": props, "required": ["suggestions"]}


def merged_suggestions_schema() -> dict[str, Any]:
    return {"type": "object", "properties": {"reasoning": SHORT, "suggestions": _items(suggestion_schema(), None)}, "required": ["suggestions"]}


def new_skill_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "reasoning": SHORT,
            "change_summary": _items(SHORT, 12),
            "new_skill": {"type": "string", "minLength": 1, "maxLength": 40000},
        },
        "required": ["new_skill"],
    }


def lr_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "learning_rate": {"type": "integer", "minimum": 0},
            "reasoning": SHORT,
            "confidence": {"type": "string", "enum": ["low", "medium", "high"]},
            "risk_notes": _items(SHORT, 5),
        },
        "required": ["learning_rate"],
    }


def text_block_schema(key: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"reasoning": SHORT, key: {"type": "string", "maxLength": 6000}}, "required": [key]}


def notes_schema() -> dict[str, Any]:
    return {"type": "object", "properties": {"appendix_notes": _items(SHORT, 30)}, "required": ["appendix_notes"]}
