"""Presets: an env's named settings, layered under the user's.

A preset is a partial run config: nested sections (``{"train": {"num_epochs": 1}}``)
or dotted keys (``{"train.num_epochs": 1}``), checked against the schema (the env's own
``env.*`` keys included) when it is used, so a typo in a plugin's preset names the key.

Two full-size presets are kept apart on purpose. ``full`` is the env's full-size
settings with this project's engine defaults (the ``paired`` gate); it is what an
API backend gets when no preset is named. ``paper`` is the paper's *exact* settings
(``full`` plus :data:`PAPER_EXACT`, the ``strict`` gate) and is only ever used when
asked for, so a reproduction stays exact and no automatic choice brings back the
gate that accepts noise. An env may ship either name; each is derived from the other.

``small`` is what an env gets on a model running on this machine's CPU (a backend
declaring ``small_model = True``: the embedded SmolLM2-135M, the scripted test
backend). Envs build it with :func:`small_preset`, the shared overlay of settings such
a model needs, plus their own sizes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillopt.config.merge import deep_merge
from skillopt.errors import ConfigError

if TYPE_CHECKING:
    from skillopt.envs import Env

#: what the paper's runs used where this project's defaults differ
PAPER_EXACT: dict[str, Any] = {"evaluation": {"gate": "strict"}}

#: what every env's ``small`` preset shares: one epoch, one call at a time, a constant
#: budget of 2 edits (so no merge or ranking call), no epoch-boundary updates, analyst
#: replies capped (a 135M analyst otherwise answers with no edit at all unless told to
#: propose one), and 300 s call deadlines (a call past its deadline is retried from
#: scratch, which on a busy CPU only repeats the same slow work).
SMALL_LOCAL: dict[str, Any] = {
    "train": {"num_epochs": 1},
    "gradient": {"analyst_workers": 1, "failure_only": True, "merge_batch_size": 4, "min_failure_edits": 1},
    "optimizer": {"learning_rate": 2, "min_learning_rate": 1, "lr_scheduler": "constant",
                  "use_slow_update": False, "use_meta_skill": False},  # fmt: skip
    "env": {"workers": 1},
    "model": {"optimizer": {"max_tokens": 512, "timeout_s": 300.0}, "target": {"timeout_s": 300.0}},
}


def expand_dotted(data: dict[str, Any]) -> dict[str, Any]:
    """``{"train.num_epochs": 1}`` -> ``{"train": {"num_epochs": 1}}`` (nested values merged)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            value = expand_dotted(value) if not _free_form(key) else value
        parts = str(key).split(".") if "." in str(key) else [key]
        node: Any = value
        for part in reversed(parts[1:]):
            node = {part: node}
        out = deep_merge(out, {parts[0]: node})
    return out


def _free_form(key: str) -> bool:
    """Sections whose keys are data, not config keys (model names in prices contain dots)."""
    return str(key).rsplit(".", 1)[-1] in ("options", "prices")


def small_preset(**sections: dict[str, Any]) -> dict[str, Any]:
    """An env's ``small`` preset: :data:`SMALL_LOCAL` with the env's own settings on top.

    ``small_preset(train={"batch_size": 8, "max_steps": 3}, env={"max_completion_tokens": 64})``"""
    return deep_merge(deep_merge({}, SMALL_LOCAL), expand_dotted(dict(sections)))


def available(env_cls: type[Env]) -> list[str]:
    names = set(getattr(env_cls, "presets", {}) or {})
    if names & {"full", "paper"}:
        names |= {"full", "paper"}
    return sorted(names)


def check_preset(env_cls: type[Env], name: str, data: dict[str, Any], env_name: str = "") -> dict[str, Any]:
    """The preset as nested sections, every key checked against the schema."""
    from skillopt.config.loading import check_raw
    from skillopt.config.schema import EnvConfig

    if not isinstance(data, dict):
        raise ConfigError(f"preset '{name}' of env '{env_name}' must be a dict of config sections, not {type(data).__name__}")
    nested = expand_dotted(data)
    try:
        check_raw(nested, getattr(env_cls, "Config", EnvConfig))
    except ConfigError as exc:
        raise ConfigError(f"preset '{name}' of env '{env_name or getattr(env_cls, 'name', '?')}': {exc}") from None
    return nested


def resolve_preset(env_cls: type[Env], name: str, *, explicit: bool, env_name: str = "") -> tuple[str, dict[str, Any]]:
    """(name recorded in the run config, settings) of a preset ('' = none)."""
    if not name:
        return "", {}
    presets = getattr(env_cls, "presets", {}) or {}
    if name == "paper" and not explicit:
        name = "full"  # an automatic choice never brings back the paper's gate
    if name not in available(env_cls):
        raise ConfigError(f"unknown preset '{name}' for env '{env_name}'; presets: {', '.join(available(env_cls)) or 'none'}")
    if name == "full":
        data = presets.get("full", presets.get("paper", {}))
    elif name == "paper":
        base = presets["paper"] if "paper" in presets else presets.get("full", {})
        data = deep_merge(check_preset(env_cls, name, base, env_name), PAPER_EXACT)
    else:
        data = presets[name]
    return name, check_preset(env_cls, name, data, env_name)
