"""What a model accepts on the wire, decided in one place.

Upstream scattered name heuristics over every backend module and users hit the
gaps (reasoning models rejecting ``temperature``/``max_tokens``, ``reasoning_effort``
sent where it is not understood). Here a model name resolves once to a
:class:`WireCaps` record; a role's ``options`` can override any flag, and the result
is part of the backend identity, so the wire policy is recorded with every cached
answer.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from skillopt.api import ConfigError

# o1, o3, o4-mini, and every gpt-5 or later (gpt-5.4-mini, gpt-6-sol ...) except the
# "-chat" variants (gpt-5.3-chat-latest), which are classic chat models.
_REASONING = re.compile(r"^(?:[\w.-]+/)?(?:o\d(?:$|[-.])|gpt-(?:[5-9]|\d\d)(?!.*-chat)(?:$|[-.]))", re.IGNORECASE)
# Early reasoning snapshots that take max_completion_tokens but not reasoning_effort.
_NO_EFFORT = re.compile(r"^(?:[\w.-]+/)?o1-(?:mini|preview)", re.IGNORECASE)

STRUCTURED_MODES = ("json_schema", "json_object", "none")


@attrs.frozen(kw_only=True)
class WireCaps:
    """How to phrase a Chat Completions request for one model."""

    reasoning: bool = False
    """Reasoning model: send ``max_completion_tokens``, never ``temperature``."""
    reasoning_effort: bool = False
    """Send ``reasoning_effort`` when the request carries one."""
    max_tokens_param: str = "max_tokens"
    structured: str = "json_schema"
    """``json_schema`` (response_format json_schema), ``json_object`` (json mode plus
    the schema in the prompt and in a ``schema`` field llama.cpp understands), ``none``
    (the schema in the prompt only)."""

    def as_dict(self) -> dict[str, Any]:
        return attrs.asdict(self)


def _flag(options: dict[str, Any], key: str, default: bool) -> bool:
    value = options.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"model options: '{key}' must be true or false, got {value!r}")


def is_reasoning_model(model: str) -> bool:
    return bool(_REASONING.match(model or ""))


def caps_for(model: str, options: dict[str, Any], *, role_path: str, assume_reasoning_by_name: bool = True) -> WireCaps:
    """Resolve the wire policy of ``model``; ``options`` (``reasoning``, ``max_tokens_param``,
    ``structured``) override the name-based guess. ``assume_reasoning_by_name`` is off for
    OpenAI-compatible servers, whose model names say nothing about their wire format."""
    guessed = assume_reasoning_by_name and is_reasoning_model(model)
    reasoning = _flag(options, "reasoning", guessed)
    effort_default = reasoning and not (assume_reasoning_by_name and _NO_EFFORT.match(model or ""))
    effort = _flag(options, "reasoning_effort", effort_default)
    param = str(options.get("max_tokens_param") or ("max_completion_tokens" if reasoning else "max_tokens"))
    if param not in ("max_tokens", "max_completion_tokens"):
        raise ConfigError(f"{role_path}.options.max_tokens_param must be max_tokens or max_completion_tokens, got {param!r}")
    structured = str(options.get("structured") or "json_schema")
    if structured not in STRUCTURED_MODES:
        raise ConfigError(f"{role_path}.options.structured must be one of {', '.join(STRUCTURED_MODES)}, got {structured!r}")
    return WireCaps(reasoning=reasoning, reasoning_effort=effort, max_tokens_param=param, structured=structured)


def strict_schema_ok(schema: Any) -> bool:
    """True when ``schema`` meets OpenAI's strict mode rules (every object closed and
    every property required), so ``strict: true`` can be asked for without a 400."""
    if isinstance(schema, list):
        return all(strict_schema_ok(s) for s in schema)
    if not isinstance(schema, dict):
        return True
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            return False
        if set(schema.get("required", [])) != set(props):
            return False
    for key in ("properties", "$defs", "definitions"):
        if isinstance(schema.get(key), dict) and not all(strict_schema_ok(v) for v in schema[key].values()):
            return False
    for key in ("items", "anyOf", "allOf", "oneOf"):
        if key in schema and not strict_schema_ok(schema[key]):
            return False
    return True


# --------------------------------------------------------------------------- Anthropic

ANTHROPIC_STRUCTURED = ("json_schema", "tool")
_CLAUDE = re.compile(r"^claude-(?P<family>[a-z]+)-(?P<major>\d+)(?:-(?P<minor>\d)(?!\d))?")


@attrs.frozen(kw_only=True)
class ClaudeCaps:
    """How to phrase a Messages API request for one Claude model."""

    structured: str = "json_schema"
    """``json_schema`` (``output_config.format``, Claude 4.5 and later) or ``tool`` (a
    forced tool call, for older models; the newest models refuse forced tools)."""
    effort: bool = True
    """Send ``output_config.effort`` for the request's reasoning effort."""

    def as_dict(self) -> dict[str, Any]:
        return attrs.asdict(self)


def claude_version(model: str) -> tuple[str, float] | None:
    """("sonnet", 4.5) for claude-sonnet-4-5[-date]; None for claude-3-* and unknown names."""
    match = _CLAUDE.match((model or "").lower())
    if match is None or match.group("family").isdigit():
        return None
    minor = match.group("minor") or "0"
    return match.group("family"), float(f"{match.group('major')}.{minor}")


def claude_caps_for(model: str, options: dict[str, Any], *, role_path: str) -> ClaudeCaps:
    """Native JSON output from Claude 4.5 on, effort on Opus 4.5+, Sonnet 4.6+ and every
    5.x model; unknown (newer) names get the current behaviour. ``options.structured``
    and ``options.effort`` override."""
    version = claude_version(model)
    legacy = (model or "").lower().startswith("claude-3") or (version is not None and version[1] < 4.5)
    if version is None:
        effort_default = not legacy
    else:
        family, number = version
        effort_default = number >= 5 or (family == "opus" and number >= 4.5) or (family == "sonnet" and number >= 4.6)
    structured = str(options.get("structured") or ("tool" if legacy else "json_schema"))
    if structured not in ANTHROPIC_STRUCTURED:
        raise ConfigError(
            f"{role_path}.options.structured must be one of {', '.join(ANTHROPIC_STRUCTURED)} for anthropic, got {structured!r}"
        )
    return ClaudeCaps(structured=structured, effort=_flag(options, "effort", effort_default))
