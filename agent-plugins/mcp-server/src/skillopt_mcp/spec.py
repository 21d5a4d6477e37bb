"""The building blocks of a tool: its parameters (schema + CLI option) and its spec.

One :class:`ToolSpec` per tool is the single source of truth: the JSON schema a client
sees, the validation a call goes through and the ``skillopt …`` argument list it turns
into are all derived from the same :class:`Param` rows, so they cannot drift apart.
Every schema is closed (``additionalProperties: false``) and strings may not carry
control characters, so nothing a model sends can smuggle an extra option or a newline
into the command line.
"""

from __future__ import annotations

from typing import Any

import attrs

# Plain text: anything printable. Control characters never belong in a path, a model
# name or an option value, and refusing them keeps argv and logs one-line.
TEXT_PATTERN = "^[^\\x00-\\x1f\\x7f]*$"
# Plugin component names (harvesters, backends, gates): what entry-point names look like.
NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
# Night directory names written by `skillopt sleep run` (YYYYmmdd-HHMMSS, -N on collision).
NIGHT_PATTERN = "^\\d{8}-\\d{6}(-\\d+)?$"

# Parameter styles: how a validated value becomes CLI arguments. NEW_FILE is a value the
# server first confines: a file that does not exist yet, inside the project.
VALUE, SWITCH, REPEAT, PAIRS, POSITIONAL, SERVER = "value", "switch", "repeat", "pairs", "positional", "server"
NEW_FILE = "new_file"


def text(description: str, *, min_length: int = 0) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "pattern": TEXT_PATTERN, "description": description}
    if min_length:
        schema["minLength"] = min_length
    return schema


def name(description: str) -> dict[str, Any]:
    return {"type": "string", "pattern": NAME_PATTERN, "description": description}


def integer(description: str, *, minimum: int | None = None, maximum: int | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer", "description": description}
    if minimum is not None:
        schema["minimum"] = minimum
    if maximum is not None:
        schema["maximum"] = maximum
    return schema


def number(description: str, **bounds: float) -> dict[str, Any]:
    """``bounds`` uses JSON-schema keywords: minimum, maximum, exclusiveMinimum, exclusiveMaximum."""
    return {"type": "number", "description": description, **bounds}


def boolean(description: str) -> dict[str, Any]:
    return {"type": "boolean", "description": description}


def choice(description: str, values: tuple[str, ...]) -> dict[str, Any]:
    return {"type": "string", "enum": list(values), "description": description}


@attrs.frozen
class Param:
    """One tool argument: its schema and the CLI option it becomes (``flag``)."""

    name: str
    schema: dict[str, Any]
    flag: str | None = None
    style: str = VALUE
    required: bool = False


@attrs.frozen
class ToolSpec:
    """One MCP tool and the ``skillopt`` command behind it."""

    name: str
    title: str
    description: str
    command: tuple[str, ...]
    params: tuple[Param, ...]
    timeout: float
    takes_project: bool = True
    needs_confirm: bool = False
    # The MCP annotations, stated per tool (clients use them to decide what to ask the user):
    # read_only = changes none of the user's files (sleep's own state under .skillopt-sleep/
    # and the model call cache aside); destructive = may replace or remove existing content;
    # idempotent = a repeated call with the same arguments changes nothing more;
    # open_world = may reach a model provider over the network.
    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True
    open_world: bool = False
    # Exit codes whose stdout is a result, not an error (3 = handoff prompts waiting).
    ok_exit_codes: frozenset[int] = frozenset({0})

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def input_schema(self) -> dict[str, Any]:
        properties = {p.name: p.schema for p in self.params}
        required = [p.name for p in self.params if p.required]
        schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
        if required:
            schema["required"] = required
        return schema
