"""Finding and loading plugins from entry points, one group per kind.

pluggy's own ``load_setuptools_entrypoints`` keys plugins on the entry-point name
alone and silently skips duplicates, which is wrong for us: an env and a backend may
share a short name, and two distributions claiming the same env must be an error. So
we read entry points ourselves, import only what a command names, remember which
distribution provided each plugin, and turn import failures into warnings.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import traceback
from importlib import import_module, metadata
from typing import TYPE_CHECKING, Any

import attrs
import pluggy

from skillopt import hookspecs

if TYPE_CHECKING:
    from collections.abc import Callable

GROUPS = {
    "envs": "skillopt.envs",
    "backends": "skillopt.backends",
    "edit_policies": "skillopt.edit_policies",
    "gates": "skillopt.gates",
    "harvesters": "skillopt.harvesters",
    "executors": "skillopt.executors",
    "strategies": "skillopt.strategies",
    "commands": "skillopt.commands",
    "observers": "skillopt.observers",
}

KIND_LABEL = {
    "envs": "env",
    "backends": "backend",
    "edit_policies": "edit policy",
    "gates": "gate",
    "harvesters": "harvester",
    "executors": "executor",
    "strategies": "search strategy",
    "commands": "command plugin",
    "observers": "observer",
}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@attrs.frozen(kw_only=True)
class EntryPointInfo:
    """One declared plugin, read from installed metadata without importing it."""

    kind: str
    name: str
    value: str
    distribution: str
    version: str

    @property
    def plugin_name(self) -> str:
        return f"{GROUPS[self.kind]}:{self.name}"


_SCAN: tuple[tuple[str, ...], dict[str, list[EntryPointInfo]]] | None = None
_SCAN_LOCK = threading.Lock()


def _scan() -> dict[str, list[EntryPointInfo]]:
    """Every skillopt entry point of every installed distribution, by group: one pass
    over the metadata per process (parsing it is most of a plugin lookup's cost), redone
    only when ``sys.path`` changes."""
    global _SCAN
    key = tuple(sys.path)
    with _SCAN_LOCK:
        if _SCAN is not None and _SCAN[0] == key:
            return _SCAN[1]
        wanted = set(GROUPS.values())
        by_group: dict[str, list[EntryPointInfo]] = {group: [] for group in wanted}
        seen: set[tuple[str, str, str]] = set()
        kind_of = {group: kind for kind, group in GROUPS.items()}
        for dist in metadata.distributions():
            text = dist.read_text("entry_points.txt")
            if not text or "[skillopt." not in text:  # most distributions: skip parsing their metadata
                continue
            eps = [ep for ep in dist.entry_points if ep.group in wanted]
            if not eps:
                continue
            meta = dist.metadata  # parsed once: name and version of every entry point of the distribution
            dist_name, dist_version = meta["Name"] or "?", meta["Version"] or ""
            for ep in eps:
                seen_key = (ep.group, _norm(dist_name), ep.name)
                if seen_key in seen:  # the same dist found twice on sys.path
                    continue
                seen.add(seen_key)
                by_group[ep.group].append(EntryPointInfo(kind=kind_of[ep.group], name=ep.name, value=ep.value,
                                                         distribution=dist_name, version=dist_version))
        for found in by_group.values():
            found.sort(key=lambda e: (e.name, e.distribution))
        _SCAN = (key, by_group)
        return by_group


def forget_scan() -> None:
    """Drop the cached metadata scan (a distribution was installed in this process)."""
    global _SCAN
    with _SCAN_LOCK:
        _SCAN = None


def declared(kind: str) -> list[EntryPointInfo]:
    """Entry points of a kind, from metadata only (nothing is imported)."""
    return list(_scan()[GROUPS[kind]])


def disabled_plugins() -> set[str]:
    """Names blocked by ``SKILLOPT_DISABLE_PLUGINS`` (entry-point or distribution names)."""
    raw = os.environ.get("SKILLOPT_DISABLE_PLUGINS", "")
    return {_norm(part) for part in re.split(r"[,\s]+", raw) if part.strip()}


def is_disabled(ep: EntryPointInfo) -> bool:
    blocked = disabled_plugins()
    return _norm(ep.name) in blocked or _norm(ep.distribution) in blocked


class PluginHost:
    """A pluggy manager plus the bookkeeping pluggy does not do for us."""

    def __init__(self, *, warn: Callable[[str, str], None] | None = None) -> None:
        """``warn(message, details)``: how an import failure is reported (default: stderr)."""
        self.pm = pluggy.PluginManager("skillopt")
        self.pm.add_hookspecs(hookspecs)
        self.providers: dict[str, EntryPointInfo | None] = {}
        self.failures: dict[str, str] = {}
        self._lock = threading.RLock()
        self._warn = warn or _stderr_warning
        if os.environ.get("SKILLOPT_TRACE_PLUGINS"):
            self.pm.trace.root.setwriter(lambda msg: sys.stderr.write(msg))
            self.pm.enable_tracing()

    def load(self, ep: EntryPointInfo) -> Any | None:
        """Import and register one entry point; a failure becomes a warning, not a crash."""
        with self._lock:
            if ep.plugin_name in self.providers:
                return self.pm.get_plugin(ep.plugin_name) or self._module_of(ep)
            if ep.plugin_name in self.failures:
                return None
            if is_disabled(ep):
                return None
            try:
                module_name, _, attr = ep.value.partition(":")
                obj: Any = import_module(module_name.strip())
                for part in filter(None, attr.strip().split(".")):
                    obj = getattr(obj, part)
            except Exception as exc:  # noqa: BLE001 - any plugin bug must not kill the CLI
                message = f"{type(exc).__name__}: {exc}"
                self.failures[ep.plugin_name] = message
                self._warn(
                    f"plugin '{ep.name}' ({KIND_LABEL[ep.kind]}) from distribution "
                    f"{ep.distribution} {ep.version} failed to import and was skipped: {message}",
                    traceback.format_exc(),
                )
                return None
            if self.pm.is_registered(obj):
                self.providers[ep.plugin_name] = ep
                return obj
            self.pm.register(obj, name=ep.plugin_name)
            self.providers[ep.plugin_name] = ep
            return obj

    def _module_of(self, ep: EntryPointInfo) -> Any:
        return import_module(ep.value.partition(":")[0].strip())

    def register(self, obj: Any, name: str) -> None:
        """Register an in-process plugin (tests, embedding applications)."""
        with self._lock:
            if not self.pm.is_registered(obj):
                self.pm.register(obj, name=name)
            self.providers.setdefault(name, None)

    def unregister(self, name: str) -> None:
        with self._lock:
            plugin = self.pm.get_plugin(name)
            if plugin is not None:
                self.pm.unregister(plugin, name=name)
            self.providers.pop(name, None)

    def load_kind(self, kind: str) -> None:
        """Import every enabled plugin of a kind (observers, commands, listing --load)."""
        for ep in declared(kind):
            self.load(ep)

    def provider_of(self, plugin_name: str) -> EntryPointInfo | None:
        if plugin_name in self.providers:
            return self.providers[plugin_name]
        # A module registered under one entry point may implement hooks of other kinds.
        return None


def _stderr_warning(message: str, details: str = "") -> None:
    try:
        from rich.console import Console

        from skillopt.richtext import literal, styled

        Console(stderr=True).print(styled("[yellow]warning:[/yellow] ") + literal(message), highlight=False)
    except Exception:  # noqa: BLE001
        sys.stderr.write(f"warning: {message}\n")
    if os.environ.get("SKILLOPT_DEBUG"):
        sys.stderr.write(details)


_HOST: PluginHost | None = None
_HOST_LOCK = threading.Lock()


def get_host() -> PluginHost:
    global _HOST
    with _HOST_LOCK:
        if _HOST is None:
            _HOST = PluginHost()
        return _HOST


def reset_host() -> None:
    """Forget every loaded plugin (tests); the next :func:`get_host` starts afresh."""
    global _HOST
    with _HOST_LOCK:
        _HOST = None
    forget_scan()  # the registry follows: it is rebuilt over the next host (registry.get_registry)
