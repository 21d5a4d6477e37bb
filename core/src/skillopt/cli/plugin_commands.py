"""Attaching command plugins to the ``skillopt`` app without letting one shadow another.

Typer (click underneath) keeps the last command registered under a name, so a plugin
command named ``report`` silently replaced the built-in ``skillopt report``. Each plugin's
``skillopt_register_commands`` is called on its own here, the top-level names it added
are read, and a name that is already a built-in, or that two plugins both add, is
refused: neither plugin keeps it, and a warning names the command and every
distribution involved. A plugin whose hook raises is reported and skipped, like a plugin
that fails to import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from pluggy import HookImpl

    from skillopt.plugins import PluginHost


def top_names(commands: list[Any], groups: list[Any]) -> set[str]:
    """The top-level command names these typer registrations give, named as typer names
    them (without building the click commands: ``skillopt --help`` stays fast); a group
    added without a name contributes its own commands."""
    from typer.main import get_command_name, solve_typer_info_defaults

    names = {c.name or get_command_name(c.callback.__name__) for c in commands}
    for group in groups:
        name = solve_typer_info_defaults(group).name
        if name:
            names.add(name)
        elif group.typer_instance is not None:
            names |= top_names(group.typer_instance.registered_commands, group.typer_instance.registered_groups)
    return names


def _label(host: PluginHost, impl: HookImpl) -> str:
    ep = host.provider_of(impl.plugin_name)
    if ep is None:
        return f"plugin {impl.plugin_name!r}"
    return f"plugin '{ep.name}' from distribution {ep.distribution} {ep.version}".rstrip()


def register_plugin_commands(root: typer.Typer, host: PluginHost) -> None:
    """Call every command plugin's hook on ``root``; refuse and report name clashes."""
    from skillopt.report import warn

    builtin = top_names(root.registered_commands, root.registered_groups)
    added: list[tuple[str, list[Any], list[Any], set[str]]] = []
    for impl in reversed(host.pm.hook.skillopt_register_commands.get_hookimpls()):  # registration order
        before = (len(root.registered_commands), len(root.registered_groups))
        try:
            impl.function(**{name: root for name in impl.argnames})
        except Exception as exc:  # noqa: BLE001 - a plugin's bug must not break the CLI
            del root.registered_commands[before[0]:], root.registered_groups[before[1]:]
            warn(f"{_label(host, impl)} failed to add its commands and was skipped: {type(exc).__name__}: {exc}")
            continue
        commands, groups = root.registered_commands[before[0]:], root.registered_groups[before[1]:]
        added.append((_label(host, impl), commands, groups, top_names(commands, groups)))
    refused: dict[str, list[str]] = {}
    for label, _, _, names in added:
        for name in names:
            refused.setdefault(name, []).append(label)
    refused = {name: sorted(labels) for name, labels in refused.items() if name in builtin or len(labels) > 1}
    for name, labels in sorted(refused.items()):
        if name in builtin:
            warn(f"command '{name}' of {' and of '.join(labels)} clashes with the built-in `skillopt {name}` and was not added "
                 "(the plugin must rename it)")
        else:
            warn(f"command '{name}' is added by {' and by '.join(labels)}; neither was added (uninstall one, or block it "
                 "with SKILLOPT_DISABLE_PLUGINS=DISTRIBUTION)")
    if not refused:
        return
    for _, commands, groups, _ in added:
        for entry in [*commands, *groups]:
            if top_names(*(([entry], []) if entry in commands else ([], [entry]))) & set(refused):
                _remove(root, entry)


def _remove(root: typer.Typer, entry: Any) -> None:
    for registry in (root.registered_commands, root.registered_groups):
        for i, item in enumerate(registry):
            if item is entry:
                del registry[i]
                return
