"""Components by kind and name, with the distribution that provided each.

A lookup imports only the entry point carrying the requested name, then asks just that
plugin's ``skillopt_register_*`` hookimpl to register its components, so ``skillopt
run --env searchqa --backend openai`` imports exactly two plugin modules.
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs

from skillopt.errors import PluginError
from skillopt.plugins import GROUPS, KIND_LABEL, EntryPointInfo, PluginHost, declared, get_host, is_disabled

if TYPE_CHECKING:
    from skillopt.hookspecs import Register

HOOKS = {
    "envs": "skillopt_register_envs",
    "backends": "skillopt_register_backends",
    "edit_policies": "skillopt_register_edit_policies",
    "gates": "skillopt_register_gates",
    "harvesters": "skillopt_register_harvesters",
    "executors": "skillopt_register_executors",
    "strategies": "skillopt_register_strategies",
}

#: components shipped in a distribution of their own: an unknown name says what to install
INSTALL_HINTS = {("executors", "ray"): "skillopt-executors-ray"}


@attrs.frozen(kw_only=True)
class Component:
    kind: str
    name: str
    obj: Any
    aliases: tuple[str, ...] = ()
    summary: str = ""
    plugin_name: str = ""
    distribution: str = ""
    version: str = ""


class Registry:
    def __init__(self, host: PluginHost) -> None:
        self.host = host
        self._components: dict[str, dict[str, Component]] = {kind: {} for kind in HOOKS}
        self._collected: set[tuple[str, str]] = set()
        self._lock = threading.RLock()

    # ------------------------------------------------------------ collection

    def _collect_plugin(self, kind: str, plugin_name: str) -> None:
        if (kind, plugin_name) in self._collected:
            return
        self._collected.add((kind, plugin_name))
        hook = getattr(self.host.pm.hook, HOOKS[kind])
        ep = self.host.provider_of(plugin_name)
        for impl in hook.get_hookimpls():
            if impl.plugin_name != plugin_name:
                continue
            impl.function(register=self._register_fn(kind, plugin_name, ep))

    def _collect_in_process(self, kind: str) -> None:
        """Collect from plugins registered without an entry point of this kind."""
        for name, _plugin in self.host.pm.list_name_plugin():
            self._collect_plugin(kind, name)

    def _register_fn(self, kind: str, plugin_name: str, ep: EntryPointInfo | None) -> Register[Any]:
        def register(obj: Any, *, name: str | None = None, aliases: Sequence[str] = (), summary: str | None = None) -> None:
            comp_name = name or getattr(obj, "name", "") or ""
            if not comp_name:
                raise PluginError(f"{plugin_name}: registered a {KIND_LABEL[kind]} without a name")
            text = summary if summary is not None else (getattr(obj, "summary", "") or _first_line(obj.__doc__))
            component = Component(
                kind=kind,
                name=comp_name,
                obj=obj,
                aliases=tuple(aliases),
                summary=text,
                plugin_name=plugin_name,
                distribution=ep.distribution if ep else "(in-process)",
                version=ep.version if ep else "",
            )
            with self._lock:
                for key in (comp_name, *component.aliases):
                    existing = self._components[kind].get(key)
                    if existing is not None and existing.obj is not obj:
                        raise PluginError(
                            f"two plugins register the {KIND_LABEL[kind]} '{key}': "
                            f"{existing.distribution} ({existing.plugin_name}) and "
                            f"{component.distribution} ({plugin_name}); uninstall one or disable it "
                            f"with SKILLOPT_DISABLE_PLUGINS"
                        )
                    self._components[kind][key] = component

        return register

    # ------------------------------------------------------------ lookup

    def get(self, kind: str, name: str) -> Component:
        """The component ``name`` of ``kind``; imports only the plugin that declares it."""
        with self._lock:
            if name in self._components[kind]:
                return self._components[kind][name]
            eps = [ep for ep in declared(kind) if ep.name == name]
            dists = sorted({ep.distribution for ep in eps})
            if len(dists) > 1:
                raise PluginError(
                    f"the {KIND_LABEL[kind]} '{name}' is provided by two distributions: "
                    f"{' and '.join(dists)}; uninstall one or disable it with SKILLOPT_DISABLE_PLUGINS"
                )
            for ep in eps:
                if is_disabled(ep):
                    raise PluginError(
                        f"the {KIND_LABEL[kind]} '{name}' ({ep.distribution}) is disabled by SKILLOPT_DISABLE_PLUGINS"
                    )
                if self.host.load(ep) is None:
                    reason = self.host.failures.get(ep.plugin_name, "unknown error")
                    raise PluginError(
                        f"the {KIND_LABEL[kind]} '{name}' is installed ({ep.distribution} {ep.version}) "
                        f"but failed to import: {reason}"
                    )
                self._collect_plugin(kind, ep.plugin_name)
            if name not in self._components[kind]:
                self._collect_in_process(kind)
            if name not in self._components[kind] and not eps:
                # an alias given only to register(): import every plugin of the kind once
                self.load_all(kind)
            if name in self._components[kind]:
                return self._components[kind][name]
            raise PluginError(self._unknown_message(kind, name))

    def _unknown_message(self, kind: str, name: str) -> str:
        names = self.names(kind)
        label = KIND_LABEL[kind]
        dist = INSTALL_HINTS.get((kind, name))
        if dist:
            return f"the {label} '{name}' is not installed: pip install {dist} (installed {label}s: {', '.join(names) or 'none'})"
        close = difflib.get_close_matches(name, names, n=1)
        hint = f" Did you mean '{close[0]}'?" if close else ""
        installed = ", ".join(names) if names else "none"
        return f"unknown {label} '{name}'.{hint} Installed {label}s: {installed}."

    def names(self, kind: str) -> list[str]:
        """Every available name: declared entry points plus what is registered so far
        (aliases given only to ``register()`` appear once their plugin was imported)."""
        names = {ep.name for ep in declared(kind) if not is_disabled(ep)}
        names |= set(self._components[kind])
        return sorted(names)

    def load_all(self, kind: str) -> list[Component]:
        """Import every plugin of a kind and return its components (one per name)."""
        for ep in declared(kind):
            if self.host.load(ep) is not None:
                self._collect_plugin(kind, ep.plugin_name)
        self._collect_in_process(kind)
        seen: dict[int, Component] = {}
        for comp in self._components[kind].values():
            seen.setdefault(id(comp), comp)
        return sorted(seen.values(), key=lambda c: c.name)


def _first_line(doc: str | None) -> str:
    return (doc or "").strip().splitlines()[0].strip() if (doc or "").strip() else ""


_REGISTRY: Registry | None = None
_REGISTRY_LOCK = threading.Lock()


def get_registry() -> Registry:
    """The registry over the current plugin host: built again when the host was reset
    (:func:`skillopt.plugins.reset_host`), so a reset needs no call back into this module."""
    global _REGISTRY
    host = get_host()
    with _REGISTRY_LOCK:
        if _REGISTRY is None or _REGISTRY.host is not host:
            _REGISTRY = Registry(host)
        return _REGISTRY


def reset_registry() -> None:
    global _REGISTRY
    with _REGISTRY_LOCK:
        _REGISTRY = None


def get(kind: str, name: str) -> Component:
    """The component ``name`` of ``kind`` (``envs``, ``backends``, ``gates``, ``edit_policies``,
    ``harvesters``, ``executors``); imports only the plugin that declares it. Raises PluginError naming
    the installed ones when there is none."""
    return get_registry().get(kind, name)


def load_components(kind: str) -> list[Component]:
    """Every installed component of ``kind`` (imports each plugin of the kind), one per
    name, sorted; in-process registrations included."""
    return get_registry().load_all(kind)


__all__ = ["GROUPS", "Component", "Registry", "get", "get_registry", "reset_registry"]
