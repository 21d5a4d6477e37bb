"""Typed config for every plugin kind, each under its own section.

A gate, edit policy, backend, executor or observer declares its keys as an attrs class named
``Config`` (on the class; for an observer, in its module) and reads them as
``self.settings`` (observers: the ``config`` argument of their hooks). Users set them
under ``[gates.NAME]``, ``[edit_policies.NAME]``, ``[backends.NAME]``,
``[executors.NAME]`` or ``[observers.NAME]`` in a config file, or ``--set gates.NAME.key=value``; unknown
plugins and keys are errors with the same typo hints as every other key. The
selected gate's, edit policy's and executor's sections are always filled in with their
defaults, so ``skillopt config show`` shows every key that shapes a run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from skillopt.errors import ConfigError, PluginError

if TYPE_CHECKING:
    from skillopt.config.schema import RunConfig

#: config section -> registry kind (``observers`` are hook modules, not components)
SECTIONS = {"gates": "gates", "edit_policies": "edit_policies", "backends": "backends", "observers": "observers",
            "executors": "executors", "strategies": "strategies"}
LABEL = {"gates": "gate", "edit_policies": "edit policy", "backends": "backend", "observers": "observer",
         "executors": "executor", "strategies": "search strategy"}


def config_class(section: str, name: str) -> type | None:
    """The ``Config`` class of plugin ``name`` in ``section`` (None: it declares none).

    Raises ConfigError for a plugin that is not installed."""
    if section == "observers":
        from skillopt.plugins import declared, get_host

        eps = [ep for ep in declared("observers") if ep.name == name]
        if not eps:
            names = sorted({ep.name for ep in declared("observers")})
            raise ConfigError(_unknown(section, name, names))
        module = get_host().load(eps[0])
        return getattr(module, "Config", None) if module is not None else None
    from skillopt.registry import get, get_registry

    try:
        comp = get(SECTIONS[section], name)
    except PluginError as exc:
        from skillopt.registry import INSTALL_HINTS

        if (SECTIONS[section], name) in INSTALL_HINTS:  # say what to install, not just what is installed
            raise ConfigError(str(exc)) from None
        raise ConfigError(_unknown(section, name, get_registry().names(SECTIONS[section]))) from None
    cls = getattr(comp.obj, "Config", None)
    return cls if cls is not None and attrs.has(cls) else None


def _unknown(section: str, name: str, names: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, names, n=1)
    hint = f" Did you mean '{section}.{close[0]}'?" if close else ""
    return f"unknown {LABEL[section]} '{name}' in config section '{section}'.{hint} Installed: {', '.join(names) or 'none'}."


def resolve_sections(raw: dict[str, Any], selected: dict[str, str]) -> dict[str, dict[str, dict[str, Any]]]:
    """Check and fill every plugin section of a raw config.

    ``selected`` maps a section to the plugin the run uses there (``gates`` -> the
    gate), whose defaults are filled in even when the user set nothing. Returns plain
    data, ``{section: {name: {key: value}}}``."""
    from skillopt.serde import check_known_keys, structure_strict, to_data

    out: dict[str, dict[str, dict[str, Any]]] = {}
    for section in SECTIONS:
        given = raw.get(section) or {}
        if not isinstance(given, dict):
            raise ConfigError(f"config section '{section}' must be a table of plugin names")
        names = dict.fromkeys([*given, *([selected[section]] if selected.get(section) else [])])
        filled: dict[str, dict[str, Any]] = {}
        for name in names:
            values = given.get(name) or {}
            if not isinstance(values, dict):
                raise ConfigError(f"'{section}.{name}' must be a table of keys")
            cls = config_class(section, name)
            if cls is None:
                if values:
                    raise ConfigError(f"the {LABEL[section]} '{name}' declares no config keys; remove '{section}.{name}'")
                continue
            check_known_keys(values, cls, prefix=f"{section}.{name}")
            filled[name] = to_data(structure_strict(values, cls, where=f"{section}.{name}"))
        out[section] = filled
    return out


def check_tracking(names: list[str]) -> None:
    """``tracking`` names installed observers (metadata only; whether each is a tracker
    is known once the run imports it): a typo is caught before a run starts."""
    from skillopt.plugins import declared

    installed = sorted({ep.name for ep in declared("observers")})
    for name in names:
        if name not in installed:
            hint = ", ".join(installed) or "none; pip install skillopt-tracking-mlflow or skillopt-tracking-wandb"
            raise ConfigError(f"tracking: no observer named {name!r} is installed (installed: {hint})")


def settings_for(cfg: RunConfig, section: str, name: str, cls: type | None) -> Any:
    """The typed settings of one plugin for a resolved run config (None if it has no Config)."""
    if cls is None or not attrs.has(cls):
        return None
    from skillopt.serde import from_data

    data = (getattr(cfg, section, None) or {}).get(name) or {}
    return from_data(data, cls)


def field_type(parts: list[str]) -> Any:
    """The type of ``section.name.key`` (for typing ``--set`` values)."""
    from skillopt.serde import field_types, unknown_key_message

    section, name, key = parts[0], parts[1], parts[2]
    cls = config_class(section, name)
    if cls is None:
        dotted = ".".join(parts)
        raise ConfigError(f"the {LABEL[section]} '{name}' declares no config keys ('{dotted}')")
    names = field_types(cls)
    if key not in names or len(parts) > 3:
        raise ConfigError(unknown_key_message(".".join(parts[:3]), key, list(names)))
    return names[key]


def plugin_keys(section: str) -> list[tuple[str, Any, Any, str]]:
    """(dotted key, type, default, meaning) of every installed plugin's Config in ``section``."""
    from skillopt.fielddocs import field_docs
    from skillopt.serde import field_types

    rows = []
    if section == "observers":
        from skillopt.plugins import declared

        names = sorted({ep.name for ep in declared("observers")})
    else:
        from skillopt.registry import get_registry

        names = sorted({c.name for c in get_registry().load_all(SECTIONS[section])})
    for name in names:
        try:
            cls = config_class(section, name)
        except ConfigError:
            continue
        if cls is None:
            continue
        docs = field_docs(cls)
        defaults = {f.name: f.default for f in attrs.fields(cls)}
        for key, tp in field_types(cls).items():
            default = defaults[key]
            if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
                default = default.factory()
            rows.append((f"{section}.{name}.{key}", tp, default, docs.get(key, "")))
    return rows
