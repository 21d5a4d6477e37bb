"""An upstream config (already merged over its ``_base_`` chain) turned into our raw config.

Three passes, each as upstream does it: its flat and alias spellings become structured
keys (:func:`normalize`); the role backends are resolved from ``model.backend`` and the
role keys (:func:`resolve_roles`); then every key is mapped, accepted or refused by the
table in :mod:`skillopt.config.upstream_keys`. Backend-specific keys go to the roles that
run that backend only, so an Azure endpoint never becomes a Qwen target's base URL.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from skillopt.config.upstream_keys import (
    ANY,
    AUTH_MODES,
    BY_KEY,
    CODEX_ALIASES,
    COMPAT_AUTH,
    FLAT,
    OURS,
    ROLE_RENAMES,
    SENTINEL_MODELS,
    SHORTHAND,
    UPSTREAM_BACKENDS,
    Rule,
)
from skillopt.errors import ConfigError

if TYPE_CHECKING:
    from skillopt.envs import Env

SECTIONS = ("model", "train", "gradient", "optimizer", "evaluation", "env", "human_feedback")
ROLES = ("optimizer", "target")


@attrs.frozen
class Role:
    """One role as upstream resolves it."""

    backend: str  # upstream canonical name (openai_chat, qwen_chat, claude_code_exec …)
    compat: bool = False  # openai_chat under azure_openai_auth_mode = openai_compatible

    @property
    def family(self) -> str:
        return "openai_chat" if self.backend == "azure_openai" else self.backend


def normalize(data: dict[str, Any]) -> dict[str, Any]:
    """Dotted keys: sections flattened, flat legacy names, Codex aliases and the
    pre-release teacher/student names folded into the structured keys."""
    flat: dict[str, Any] = {}
    loose: dict[str, Any] = {}
    for key, value in data.items():
        if key in SECTIONS and isinstance(value, dict):
            for sub, item in _flatten(value, f"{key}.").items():
                flat[_canonical(sub)] = item
        elif isinstance(value, dict):
            raise ConfigError(f"upstream section '{key}' is not part of a training config (sections: {', '.join(SECTIONS)})")
        else:
            loose[key] = value
    for key, value in loose.items():  # a structured key beats its flat spelling, as upstream
        dotted = _canonical(FLAT.get(CODEX_ALIASES.get(key, key)) or FLAT.get("model." + key, "") or "")
        if not dotted:
            alias = CODEX_ALIASES.get(key)
            dotted = f"model.{alias}" if alias else f"env.{key}"
        flat.setdefault(dotted, value)
    return flat


def _flatten(data: dict[str, Any], prefix: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict) and prefix != "env." and dotted != "model.prices":
            out.update(_flatten(value, dotted + "."))
        else:
            out[dotted] = value
    return out


def _canonical(dotted: str) -> str:
    if not dotted.startswith("model."):
        return dotted
    leaf = dotted[6:]
    leaf = CODEX_ALIASES.get(leaf, leaf)
    for old, new in ROLE_RENAMES.items():
        if leaf == old or leaf.startswith(old + "_"):
            leaf = new + leaf[len(old):]
        leaf = leaf.replace(f"_to_{old}", f"_to_{new}")
    return "model." + leaf


def _backend_name(value: Any, key: str) -> str:
    name = str(value or "").strip().lower()
    found = UPSTREAM_BACKENDS.get(name)
    if found is None:
        raise ConfigError(f"upstream backend {key} = {value!r} has no SkillOpt equivalent; known: {', '.join(sorted(UPSTREAM_BACKENDS))}")
    return found


def resolve_roles(flat: dict[str, Any], explicit: frozenset[str]) -> dict[str, Role]:
    """Each role's upstream backend: a role key still at ``openai_chat`` (or unset)
    follows the ``model.backend`` shorthand, as upstream's train/eval scripts."""
    backend = _backend_name(flat.get("model.backend") or "azure_openai", "model.backend")
    shorthand = SHORTHAND.get(backend, ("openai_chat", "openai_chat"))
    roles: dict[str, Role] = {}
    for i, role in enumerate(ROLES):
        key = f"model.{role}_backend"
        given = flat.get(key)
        name = _backend_name(given, key) if given not in (None, "") else "openai_chat"
        if name == "openai_chat" and key not in explicit:
            name = shorthand[i]
        if name == "codex":
            name = "codex_exec"
        if name == "openai_compatible":
            roles[role] = Role(name)
            continue
        mode = flat.get(f"model.{role}_azure_openai_auth_mode") or flat.get("model.azure_openai_auth_mode") or ""
        compat = name in ("openai_chat", "azure_openai") and str(mode).strip().lower() in COMPAT_AUTH
        roles[role] = Role(name, compat=compat)
    return roles


def translate(data: dict[str, Any], *, where: str, explicit: frozenset[str] = frozenset()) -> tuple[dict[str, Any], list[str]]:
    """(our raw config, notes on what was accepted without effect) from an upstream
    mapping; ``explicit`` are the dotted keys ``--cfg-options`` set (they are never
    treated as upstream's shipped placeholders)."""
    flat = normalize(data)
    explicit = frozenset(_canonical(FLAT.get(k, k) if "." not in k else k) for k in explicit)
    roles = resolve_roles(flat, explicit)
    raw: dict[str, Any] = {"evaluation": {"gate": "strict"}}  # upstream has one gate
    notes: list[str] = []
    env_cls = _env_class(str(flat.get("env.name") or ""))
    # shared keys first, then per-role ones, so a role's own value wins
    ordered = sorted(flat.items(), key=lambda kv: _specificity(kv[0]))
    for key, value in ordered:
        rule = BY_KEY.get(key)
        if rule is None and key.startswith("env."):
            _env_key(raw, key[4:], value, env_cls, notes, where)
            continue
        if rule is None:
            import difflib

            close = difflib.get_close_matches(key, list(BY_KEY), n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise ConfigError(f"{where}: upstream key '{key}' has no SkillOpt equivalent and is in no upstream release: "
                              f"{hint}remove it, or see docs/upstream-configs.md for the keys")
        _apply(rule, key, value, raw, roles, notes, where, env_cls)
    _write_roles(raw, roles, flat, explicit)
    return raw, notes


def _specificity(key: str) -> int:
    if key.startswith("model.azure_") and not key.startswith("model.azure_openai_"):
        return 0  # legacy names: below azure_openai_*
    return 2 if key.startswith(("model.optimizer_", "model.target_")) else 1


def _apply(rule: Rule, key: str, value: Any, raw: dict[str, Any], roles: dict[str, Role], notes: list[str], where: str,
           env_cls: type[Env] | None) -> None:
    if rule.ours == "special:backends":
        return  # resolved by resolve_roles / _write_roles
    targets = _roles_for(rule, roles)
    if rule.family and not targets:
        notes.append(f"{key} (no role runs {'/'.join(rule.family)})")
        return
    if rule.ours is None:
        if rule.accept == ANY or value in ("", None) or _accepted(value, rule.accept):
            notes.append(key)
            return
        shown = ", ".join(repr(v) for v in rule.accept)
        raise ConfigError(f"{where}: upstream key '{key}' = {value!r} has no SkillOpt equivalent: {rule.instead}"
                          + (f" (accepted: {shown})" if shown else ""))
    if value in ("", None):
        return  # upstream's "unset"
    if rule.accept and _accepted(value, rule.accept):
        notes.append(key)  # upstream's shipped value, which is our default
        return
    if rule.ours == "special:qwen_thinking":
        for role in targets:
            _qwen_thinking(raw, role, key, value, where)
        return
    value = _value(rule, key, value, env_cls, notes, where)
    if value is _SKIP:
        return
    for role in targets or [""]:
        _put(raw, rule.ours.replace("ROLE", role), value)


def _roles_for(rule: Rule, roles: dict[str, Role]) -> list[str]:
    if not rule.family:
        return []
    names = [rule.role] if rule.role else list(ROLES)
    return [r for r in names if roles[r].family in rule.family]


def _accepted(value: Any, accept: tuple[Any, ...]) -> bool:
    return any(type(value) is type(a) and value == a for a in accept)


_SKIP = object()


def _value(rule: Rule, key: str, value: Any, env_cls: type[Env] | None, notes: list[str], where: str) -> Any:
    if rule.cast:
        try:
            if rule.cast == "bool":
                value = value if isinstance(value, bool) else str(value).strip().lower() in ("1", "true", "yes", "on")
            else:
                value = {"int": int, "float": float}[rule.cast](value)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}: upstream key '{key}' = {value!r} is not a{'n' if rule.cast == 'int' else ''} {rule.cast}") from None
    if key.endswith("auth_mode"):
        mode = str(value).strip().lower()
        if mode in COMPAT_AUTH:
            return _SKIP  # the role became openai-compatible (resolve_roles)
        if mode not in AUTH_MODES:
            raise ConfigError(f"{where}: upstream key '{key}' = {value!r}: use one of {', '.join(sorted(AUTH_MODES))} or openai_compatible")
        return AUTH_MODES[mode]
    if key.endswith("ad_scope") and value == "https://cognitiveservices.azure.com/.default":
        return _SKIP  # our default scope
    if key == "env.name" and env_cls is not None:
        return env_cls.name
    if key == "env.skill_init" and not Path(str(value)).expanduser().exists():
        notes.append(f"{key} ({value} is an upstream repository path; the env's own initial skill is used)")
        return _SKIP
    if key == "evaluation.leading_words" and isinstance(value, str):
        return [w.strip() for w in value.split(",") if w.strip()]
    if key == "model.minimax_enable_thinking":
        return "adaptive" if value else "disabled"
    return value


def _qwen_thinking(raw: dict[str, Any], role: str, key: str, value: Any, where: str) -> None:
    """Qwen's three-state thinking policy: ``enabled``/``disabled`` are sent, ``server_default``
    leaves the server's template in charge; the legacy boolean may not contradict it."""
    if key.endswith("enable_thinking"):
        if isinstance(value, str):
            value = value.strip().lower() in ("1", "true", "yes", "on")
        mode = "enabled" if value else "disabled"
    else:
        mode = str(value).strip().lower().replace("-", "_")
        if mode not in ("enabled", "disabled", "server_default"):
            raise ConfigError(f"{where}: upstream key '{key}' = {value!r}: use enabled, disabled or server_default")
    options = raw.setdefault("model", {}).setdefault(role, {}).setdefault("options", {})
    current = options.get("thinking_mode")
    if current and current != mode and "server_default" not in (current, mode):
        raise ConfigError(f"{where}: {key} = {value!r} contradicts the thinking mode {current!r} set for the {role}; keep one")
    if mode != "server_default" or not current:
        options["thinking_mode"] = mode


def _write_roles(raw: dict[str, Any], roles: dict[str, Role], flat: dict[str, Any], explicit: frozenset[str]) -> None:
    """Role backends (one ``model.backend`` when both roles agree), agent mode and
    provider options, and upstream's placeholder models dropped where they mean "the
    backend's default"."""
    model = raw.setdefault("model", {})
    ours = {}
    for role, found in roles.items():
        name, options = OURS["openai_compatible" if found.compat else found.backend]
        if found.backend == "codex_exec" and role == "target":
            options = {"mode": "agent"}
        ours[role] = name
        section = model.setdefault(role, {})
        if options:
            section["options"] = {**options, **section.get("options", {})}
        _role_model(section, role, found, flat, explicit)
        if not section:
            del model[role]
    if ours["optimizer"] == ours["target"]:
        model["backend"] = ours["target"]
    else:
        model["backend"] = ours["optimizer"]
        model.setdefault("target", {})["backend"] = ours["target"]


def _role_model(section: dict[str, Any], role: str, found: Role, flat: dict[str, Any], explicit: frozenset[str]) -> None:
    current = section.get("model")
    if f"model.{role}" in explicit or current in (None, ""):
        return
    sentinel = current in SENTINEL_MODELS
    if found.backend == "copilot_chat":
        given = flat.get(f"model.copilot_chat_{role}_model")
        if given:
            section["model"] = given
        else:
            section.pop("model")  # the Copilot chat roles read copilot_chat_*_model only
    elif found.backend == "minimax_chat" and sentinel:
        section["model"] = flat.get("model.minimax_model") or "MiniMax-M3"
    elif sentinel and found.backend in ("claude_chat", "qwen_chat", "claude_code_exec", "cursor_exec", "copilot_exec"):
        section.pop("model")  # upstream's placeholder: the backend's own default model


def _put(raw: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, leaf = dotted.split(".")
    node = raw
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value


def _env_class(name: str) -> type[Env] | None:
    if not name:
        return None
    from skillopt.errors import PluginError
    from skillopt.registry import get

    try:
        env_cls: type[Env] = get("envs", name).obj
        return env_cls
    except PluginError:
        return None  # the run names the unknown env with the installed ones


def _env_key(raw: dict[str, Any], key: str, value: Any, env_cls: type[Env] | None, notes: list[str], where: str) -> None:
    mapped = dict(getattr(env_cls, "upstream_keys", {}) or {})
    if key in mapped:
        assert env_cls is not None  # no env class maps no keys
        if isinstance(mapped[key], tuple):  # done without, at these values only
            if value in ("", None) or value in mapped[key]:
                notes.append(f"env.{key} (not used by {env_cls.name})")
                return
            raise ConfigError(f"{where}: upstream key 'env.{key}' = {value!r} has no equivalent in {env_cls.name}, which "
                              f"supports only {' or '.join(repr(v) for v in mapped[key])}; write that or remove the key")
        if mapped[key] is None:
            notes.append(f"env.{key} (not used by {env_cls.name})")
            return
        key = mapped[key]
    elif key in ("split_ratio", "split_seed") and env_cls is not None and key not in attrs.fields_dict(env_cls.Config):
        notes.append(f"env.{key} (no ratio split in {env_cls.name}: give env.split_dir)")
        return
    _put(raw, f"env.{key}", value)  # the env's own schema names any key it does not know
