"""Reading JSON out of model replies and checking it against a schema.

Backends with native constrained decoding return valid JSON; others may wrap it in
prose or fences. We extract at most one object and validate it against the subset of
JSON Schema our prompts use. Anything doubtful is rejected, because a wrong guess
adopted silently is worse than a re-ask. Upper bounds on sizes (``maxItems``,
``maxLength``) are the exception: they steer constrained decoders and tell the model
what is wanted, but many providers do not enforce them, and a reply with one edit too
many is not wrong, only long. Its consumer clips it (the edit budget is applied by
ranking), so such a reply is never re-asked and never thrown away.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)```", re.DOTALL | re.IGNORECASE)


def extract_json(text: str) -> Any:
    """The JSON value in ``text``; raise ValueError when there is none or several."""
    text = text.strip()
    if not text:
        raise ValueError("empty reply")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    for block in _FENCE.findall(text):
        try:
            return json.loads(block)
        except json.JSONDecodeError:
            continue
    objects = _balanced_objects(text)
    if len(objects) == 1:
        return json.loads(objects[0])
    if not objects:
        raise ValueError("no JSON object in reply")
    raise ValueError(f"{len(objects)} JSON objects in reply; expected one")


def _balanced_objects(text: str) -> list[str]:
    """Top-level ``{...}`` spans that parse as JSON (string- and escape-aware)."""
    found: list[str] = []
    depth, start, in_str, esc = 0, -1, False, False
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"' and depth > 0:
            in_str = True
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                span = text[start : i + 1]
                try:
                    json.loads(span)
                    found.append(span)
                except json.JSONDecodeError:
                    pass
    return found


_TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}


def validate(value: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """Problems with ``value`` under ``schema`` (empty list = valid)."""
    errors: list[str] = []
    expected = schema.get("type")
    if expected is not None:
        kinds = expected if isinstance(expected, list) else [expected]
        if not any(_is_type(value, kind) for kind in kinds):
            return [f"{path}: expected {'/'.join(kinds)}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} is not one of {schema['enum']}")
    if "anyOf" in schema:
        if all(validate(value, sub, path) for sub in schema["anyOf"]):
            errors.append(f"{path}: matches none of the allowed shapes")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{path}: missing required key '{key}'")
        for key, item in value.items():
            if key in props:
                errors.extend(validate(item, props[key], f"{path}.{key}"))
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}: unexpected key '{key}'")
    if isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for i, item in enumerate(value):
                errors.extend(validate(item, items, f"{path}[{i}]"))
        if "minItems" in schema and len(value) < schema["minItems"]:
            errors.append(f"{path}: fewer than {schema['minItems']} items")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            errors.append(f"{path}: shorter than {schema['minLength']} characters")
    if _is_type(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path}: below minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{path}: above maximum {schema['maximum']}")
    return errors


def _is_type(value: Any, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES.get(kind, object))
