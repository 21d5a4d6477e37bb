"""Presets: an env's named settings, layered under the user's.

Two full-size presets are kept apart on purpose. ``full`` is the env's full-size
settings with this project's engine defaults (the ``paired`` gate); it is what an
API backend gets when no preset is named. ``paper`` is the paper's *exact* settings
(``full`` plus :data:`PAPER_EXACT`, the ``strict`` gate) and is only ever used when
asked for, so a reproduction stays exact and no automatic choice brings back the
gate that accepts noise. An env may ship either name; each is derived from the other.
"""

from __future__ import annotations

from typing import Any

from skillopt.config.loading import deep_merge
from skillopt.errors import ConfigError

#: what the paper's runs used where this project's defaults differ
PAPER_EXACT: dict[str, Any] = {"evaluation": {"gate": "strict"}}


def available(env_cls) -> list[str]:
    names = set(getattr(env_cls, "presets", {}) or {})
    if names & {"full", "paper"}:
        names |= {"full", "paper"}
    return sorted(names)


def resolve_preset(env_cls, name: str, *, explicit: bool, env_name: str = "") -> tuple[str, dict[str, Any]]:
    """(name recorded in the run config, settings) of a preset ('' = none)."""
    if not name:
        return "", {}
    presets = getattr(env_cls, "presets", {}) or {}
    if name == "paper" and not explicit:
        name = "full"  # an automatic choice never brings back the paper's gate
    if name not in available(env_cls):
        raise ConfigError(f"unknown preset '{name}' for env '{env_name}'; presets: {', '.join(available(env_cls)) or 'none'}")
    if name == "full":
        return name, dict(presets.get("full", presets.get("paper", {})))
    if name == "paper":
        base = presets["paper"] if "paper" in presets else presets.get("full", {})
        return name, deep_merge(deep_merge({}, base), PAPER_EXACT)
    return name, dict(presets[name])
