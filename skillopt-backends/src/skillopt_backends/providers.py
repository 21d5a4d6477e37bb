"""Provider conventions on top of Chat Completions: extra request fields, Qwen's
thinking switch, MiniMax's regions and thinking.

``openai-compatible`` takes ``options.provider`` (``qwen``, ``minimax`` or none) and
``options.extra_body`` (a table sent as extra top-level request fields, for any server
option the SDK does not name). What each provider adds:

* ``qwen``: ``options.thinking_mode`` ``enabled`` / ``disabled`` send
  ``chat_template_kwargs.enable_thinking`` (the vLLM/SGLang switch of Qwen's chat
  template); ``server_default`` (the default) sends nothing, so the server's template
  decides. The legacy boolean ``options.enable_thinking`` means enabled/disabled and
  may not contradict ``thinking_mode``. Variables: ``QWEN_CHAT_*``.
* ``minimax``: the base URL defaults to the region's (``options.region``: ``global_en``
  → api.minimax.io, ``cn_zh`` → api.minimaxi.com); a base URL wins. Thinking is
  MiniMax's top-level ``thinking.type``: ``adaptive`` or ``disabled``
  (``options.thinking``, or a boolean), always ``adaptive`` for the MiniMax-M2 family,
  which cannot turn it off. Variables: ``MINIMAX_*``.

Which variables fill a role: :func:`env_family`.
"""

from __future__ import annotations

from typing import Any

from skillopt.api import ConfigError

PROVIDERS = ("", "qwen", "minimax")
MINIMAX_REGIONS = {"global_en": "https://api.minimax.io/v1", "cn_zh": "https://api.minimaxi.com/v1"}
MINIMAX_DEFAULT_MODEL = "MiniMax-M3"
#: upstream's qwen_chat default: a vLLM server on this machine
QWEN_DEFAULT_URL = "http://localhost:8000/v1"
MINIMAX_ALWAYS_THINKING = ("MiniMax-M2",)
THINKING_MODES = ("server_default", "enabled", "disabled")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")

_COMMON = {"base_url": "BASE_URL", "api_key": "API_KEY", "model": "MODEL", "temperature": "TEMPERATURE",
           "max_tokens": "MAX_TOKENS", "timeout_s": "TIMEOUT_SECONDS"}
_FAMILIES = {
    "": ("OPENAI_COMPATIBLE", _COMMON),
    "qwen": ("QWEN_CHAT", {**_COMMON, "options.thinking_mode": "THINKING_MODE", "options.enable_thinking": "ENABLE_THINKING",
                           "options.use_max_completion_tokens": "USE_MAX_COMPLETION_TOKENS"}),
    "minimax": ("MINIMAX", {**_COMMON, "options.region": "REGION", "options.thinking": "ENABLE_THINKING"}),
}


def provider_of(options: dict[str, Any], role: str) -> str:
    provider = str(options.get("provider") or "").strip().lower()
    if provider not in PROVIDERS:
        raise ConfigError(f"model.{role}.options.provider must be qwen or minimax (or unset), not {provider!r}")
    return provider


def env_family(role: str, options: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """``OPTIMIZER_OPENAI_COMPATIBLE_BASE_URL`` before ``OPENAI_COMPATIBLE_BASE_URL``, and
    so on; ``QWEN_CHAT_*`` / ``MINIMAX_*`` for those providers."""
    from skillopt.api import role_env_family

    prefix, fields = _FAMILIES[provider_of(options, role)]
    return role_env_family(role, prefix, fields)


def minimax_base_url(options: dict[str, Any], role: str) -> str:
    region = str(options.get("region") or "global_en").strip().lower().replace("-", "_")
    if region not in MINIMAX_REGIONS:
        raise ConfigError(f"model.{role}.options.region must be one of {', '.join(MINIMAX_REGIONS)}, not {region!r}")
    return MINIMAX_REGIONS[region]


def _flag(value: Any, what: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ConfigError(f"{what} must be true or false, not {value!r}")


def qwen_thinking_mode(options: dict[str, Any], role: str) -> str:
    """The three-state policy from ``thinking_mode`` and the legacy ``enable_thinking``."""
    raw = options.get("thinking_mode")
    mode = str(raw or "").strip().lower().replace("-", "_")
    if mode in ("", "unset", "auto", "none", "null"):
        mode = ""
    elif mode not in THINKING_MODES:
        raise ConfigError(f"model.{role}.options.thinking_mode must be one of {', '.join(THINKING_MODES)}, not {raw!r}")
    legacy = options.get("enable_thinking")
    if legacy in (None, ""):
        return mode or "server_default"
    implied = "enabled" if _flag(legacy, f"model.{role}.options.enable_thinking") else "disabled"
    if mode and mode != "server_default" and mode != implied:
        raise ConfigError(f"model.{role}.options.enable_thinking = {legacy!r} contradicts thinking_mode = {mode!r}; keep one")
    return mode or implied


def minimax_thinking(options: dict[str, Any], model: str, role: str) -> str:
    if any(model.startswith(prefix) for prefix in MINIMAX_ALWAYS_THINKING):
        return "adaptive"  # the M2 family accepts "disabled" but thinks anyway: send what it does
    raw = options.get("thinking", "disabled")
    text = str(raw).strip().lower()
    if text in ("adaptive", "disabled"):
        return text
    return "adaptive" if _flag(raw, f"model.{role}.options.thinking (adaptive, disabled or a boolean)") else "disabled"


def extra_body(provider: str, options: dict[str, Any], model: str, role: str) -> dict[str, Any]:
    """The extra request fields of a role: the provider's, then ``options.extra_body`` over them."""
    body: dict[str, Any] = {}
    if provider == "qwen":
        mode = qwen_thinking_mode(options, role)
        if mode != "server_default":
            body["chat_template_kwargs"] = {"enable_thinking": mode == "enabled"}
    elif provider == "minimax":
        body["thinking"] = {"type": minimax_thinking(options, model, role)}
    given = options.get("extra_body") or {}
    if isinstance(given, str):
        import json

        try:
            given = json.loads(given)
        except json.JSONDecodeError:
            given = None
    if not isinstance(given, dict):
        raise ConfigError(f"model.{role}.options.extra_body must be a table of request fields (JSON object), not {given!r}")
    for key, value in given.items():
        if isinstance(value, dict) and isinstance(body.get(key), dict):
            body[key] = {**body[key], **value}
        else:
            body[key] = value
    return body
