"""Layered configuration: defaults < env preset < ``--config`` file < ``--set`` < flags.

``--set section.key=value`` is typed from the schema, so ``--set
evaluation.leading_words=[MUST,NEVER]`` is a list, ``--set budget.max_cost_usd=null``
is None and ``--set train.batch_size=ten`` is an error that names the key.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
import types
import typing
from pathlib import Path
from typing import Any

import attrs

from skillopt.config.merge import deep_merge
from skillopt.config.schema import EnvConfig, RunConfig, canonical_update_mode
from skillopt.errors import ConfigError
from skillopt.redact import redact_data
from skillopt.serde import attrs_class_of, check_known_keys, field_types, structure_strict, to_data, unknown_key_message

# Keys that may change between a run and its resume without changing its results.
RESUME_NEUTRAL_KEYS = frozenset(
    {
        "out_dir",
        "model.cache",
        "model.max_in_flight",
        "model.hedge_after",
        "model.target.hedge_after",
        "model.optimizer.hedge_after",
        "model.timeout_s",
        "model.max_retries",
        "budget.max_cost_usd",
        "budget.max_calls",
        "budget.max_tokens",
        "env.workers",
        "gradient.analyst_workers",
        "train.max_steps",
        "tracking",
    }
)
#: sections that may change between a run and its resume (where rollouts run)
RESUME_NEUTRAL_SECTIONS = ("engine.", "executors.")


@attrs.frozen(kw_only=True)
class ConfigSources:
    """Where a run's configuration comes from, lowest precedence first."""

    file: Path | None = None
    assignments: tuple[str, ...] = ()
    flags: dict[str, Any] = attrs.field(factory=dict)
    preset: dict[str, Any] = attrs.field(factory=dict)
    #: check plugin sections against the installed plugins' Config classes (off only
    #: for callers that resolve a config without plugins, such as schema tests)
    plugin_sections: bool = True
    #: upstream-style ``key=value`` overrides of a YAML config file (``--cfg-options``)
    cfg_options: tuple[str, ...] = ()

    def read_file(self) -> dict[str, Any]:
        """The ``--config`` layer: TOML, or an upstream YAML config mapped to our keys."""
        from skillopt.config.upstream import is_upstream_file, load_upstream

        if self.cfg_options and not is_upstream_file(self.file):
            raise ConfigError("--cfg-options overrides an upstream YAML config (--config file.yaml); use --set section.key=value")
        if self.file is None:
            return {}
        if is_upstream_file(self.file):
            return load_upstream(self.file, self.cfg_options)
        return load_config_file(self.file)


def load_config_file(path: Path) -> dict[str, Any]:
    """Read a TOML config file (a regular file of bounded size, see
    :mod:`skillopt.config.bounded`), with errors that name the file and line."""
    from skillopt.config.bounded import check_shape, read_config_text

    try:
        data = tomllib.loads(read_config_text(Path(path), "--config"))
        check_shape(data, str(path))
        return data
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to read as TOML") from None


def peek(raw: dict[str, Any], dotted: str, default: Any = None) -> Any:
    node: Any = raw
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return node


def raw_layers(sources: ConfigSources, env_cls: type[EnvConfig] = EnvConfig) -> dict[str, Any]:
    """Merge every layer into one raw dict, typing ``--set`` values from the schema."""
    raw: dict[str, Any] = deep_merge(deep_merge({}, sources.preset), sources.read_file())
    for assignment in sources.assignments:
        raw = apply_assignment(raw, assignment, env_cls)
    for dotted, value in sources.flags.items():
        if value is None:
            continue
        raw = _set_path(raw, dotted.split("."), _coerce(value, field_type(dotted, env_cls), dotted))
    return raw


def env_name_of(sources: ConfigSources) -> str:
    """The env a run names, read before the env's own schema (and so its keys) is known."""
    name = peek(sources.read_file(), "env.name", "")
    for assignment in sources.assignments:
        key, _, value = assignment.partition("=")
        if key.strip() == "env.name":
            name = value.strip().strip("'\"")
    return str(sources.flags.get("env.name") or name or "")


def check_raw(raw: dict[str, Any], env_cls: type[EnvConfig] = EnvConfig) -> None:
    """Raise ConfigError naming the first key of ``raw`` the schema does not declare."""
    rest = dict(raw)
    env_raw = rest.pop("env", {}) or {}
    if not isinstance(env_raw, dict):
        raise ConfigError("config section 'env' must be a table")
    check_known_keys(rest, RunConfig)
    check_known_keys(env_raw, env_cls, prefix="env")


def resolve_config(sources: ConfigSources, env_cls: type[EnvConfig] = EnvConfig) -> RunConfig:
    """Build the frozen :class:`RunConfig`; unknown keys are errors naming the key."""
    raw = raw_layers(sources, env_cls)
    check_raw(raw, env_cls)
    env_raw = raw.pop("env", {}) or {}
    cfg = structure_strict(raw, RunConfig)
    env = structure_strict(env_raw, env_cls, where="env")
    mode = canonical_update_mode(cfg.optimizer.skill_update_mode)
    cfg = attrs.evolve(cfg, env=env, optimizer=attrs.evolve(cfg.optimizer, skill_update_mode=mode))
    if not sources.plugin_sections:
        return cfg
    from skillopt.plugin_config import check_tracking, resolve_sections

    sections: dict[str, Any] = resolve_sections(raw, {"gates": cfg.evaluation.gate if cfg.evaluation.use_gate else "", "edit_policies": mode,
                                      "executors": cfg.engine.executor, "strategies": cfg.search.strategy})
    if cfg.tracking:
        check_tracking(cfg.tracking)
    from skillopt.strategies import check_settings

    check_settings(cfg.search)
    return attrs.evolve(cfg, **sections)


def apply_assignment(raw: dict[str, Any], assignment: str, env_cls: type[EnvConfig] = EnvConfig) -> dict[str, Any]:
    """Apply one ``section.key=value`` override to ``raw`` (typed from the schema)."""
    if "=" not in assignment:
        raise ConfigError(f"--set expects section.key=value, got {assignment!r}")
    dotted, _, text = assignment.partition("=")
    dotted = dotted.strip()
    if not dotted:
        raise ConfigError(f"--set expects section.key=value, got {assignment!r}")
    tp = field_type(dotted, env_cls)
    return _set_path(raw, dotted.split("."), _coerce(text.strip(), tp, dotted))


_FREE = object()  # marks a path inside a free-form dict field (options, prices)


def field_type(dotted: str, env_cls: type[EnvConfig] = EnvConfig) -> Any:
    """The schema type at a dotted path; raises for an unknown key."""
    cls: Any = RunConfig
    parts = dotted.split(".")
    from skillopt.plugin_config import SECTIONS

    if parts[0] in SECTIONS and len(parts) >= 3:
        from skillopt.plugin_config import field_type as plugin_field_type

        return plugin_field_type(parts)
    for i, part in enumerate(parts):
        if cls is _FREE:
            return Any
        if i == 1 and parts[0] == "env":
            cls = env_cls
        names = field_types(cls)
        if part not in names:
            raise ConfigError(unknown_key_message(".".join(parts[: i + 1]), part, list(names)))
        tp = names[part]
        if i == len(parts) - 1:
            return tp
        if parts[0] == "env" and i == 0:
            continue
        sub = attrs_class_of(tp)
        if sub is not None:
            cls = sub
        elif typing.get_origin(tp) is dict:
            cls = _FREE
        else:
            raise ConfigError(f"'{'.'.join(parts[: i + 1])}' is a value, not a section (in '{dotted}')")
    return Any


def _set_path(raw: dict[str, Any], parts: list[str], value: Any) -> dict[str, Any]:
    out = dict(raw)
    if len(parts) == 1:
        out[parts[0]] = value
        return out
    child = out.get(parts[0])
    out[parts[0]] = _set_path(child if isinstance(child, dict) else {}, parts[1:], value)
    return out


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}
_NULL = {"null", "none", "~"}


def _literal(text: str) -> Any:
    """Parse a TOML/JSON literal; raise ValueError when it is not one."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return json.loads(text)


def _coerce(value: Any, tp: Any, dotted: str) -> Any:
    """Turn a command-line value into data of schema type ``tp``."""
    if not isinstance(value, str):
        return value
    text = value
    args = typing.get_args(tp)
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        if text.lower() in _NULL and type(None) in args:
            return None
        non_none = [a for a in args if a is not type(None)]
        tp = non_none[0] if len(non_none) == 1 else Any
        origin, args = typing.get_origin(tp), typing.get_args(tp)
    try:
        if tp is bool:
            low = text.lower()
            if low in _TRUE:
                return True
            if low in _FALSE:
                return False
            raise ValueError("expected true or false")
        if tp is int:
            return int(text)
        if tp is float:
            return float(text)
        if tp is str:
            if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
                return _literal(text)
            return text
        if origin in (tuple, list):
            if text.startswith("["):
                try:
                    return list(_literal(text))
                except (ValueError, json.JSONDecodeError):
                    text = text.strip("[]")  # bare words: [MUST, NEVER]
            return [item.strip().strip("'\"") for item in text.split(",") if item.strip()]
        if origin is dict:
            parsed = _literal(text) if text.startswith("{") else None
            if not isinstance(parsed, dict):
                raise ValueError("expected an inline table such as {a = 1}")
            return parsed
        try:
            return _literal(text)
        except (ValueError, json.JSONDecodeError):
            return text
    except (ValueError, json.JSONDecodeError) as exc:
        kind = getattr(tp, "__name__", str(tp))
        raise ConfigError(f"--set {dotted}={value}: cannot read {value!r} as {kind} ({exc})") from None


def config_data(cfg: RunConfig) -> dict[str, Any]:
    """Plain data of a resolved config (env section included, with its own keys)."""
    data: dict[str, Any] = to_data(cfg)
    data["env"] = to_data(cfg.env)
    return data


def redacted_config_data(cfg: RunConfig) -> dict[str, Any]:
    redacted: dict[str, Any] = redact_data(config_data(cfg))
    return redacted


def _flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(data, dict):
        flat: dict[str, Any] = {}
        for key, value in data.items():
            flat.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    return {prefix: data}


def _resume_neutral(key: str) -> bool:
    return key in RESUME_NEUTRAL_KEYS or key.startswith(RESUME_NEUTRAL_SECTIONS)


def config_fingerprint(data: dict[str, Any]) -> str:
    """Hash of the result-relevant part of a (redacted) config."""
    flat = {k: val for k, val in _flatten(data).items() if not _resume_neutral(k)}
    blob = json.dumps(flat, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def config_diff(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Human-readable lines for each result-relevant key that differs."""
    a, b = _flatten(old), _flatten(new)
    lines = []
    for key in sorted(set(a) | set(b)):
        if _resume_neutral(key) or a.get(key) == b.get(key):
            continue
        lines.append(f"{key}: {a.get(key, '<unset>')!r} -> {b.get(key, '<unset>')!r}")
    return lines
