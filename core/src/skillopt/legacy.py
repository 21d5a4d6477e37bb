"""Mapping reads of records that replaced dicts handed to plugins.

The run summary an observer's ``skillopt_run_finished`` receives was a dict in the first
release (``summary["status"]``, ``summary.get("val")["best_gate_score"]``, as the docs then
showed); it is a :class:`~skillopt.results.RunSummary` record now, and its ``val``,
``gate``, ``test`` entries and ``usage`` are records too. A plugin written against the
dict must not break without a word: these records keep the dict's reads for at least one
more release, each emitting a :class:`DeprecationWarning` that names the attribute to
read instead (see docs/plugin-hooks.md, "Changes for plugins").
"""

from __future__ import annotations

import warnings
from typing import Any, cast

import attrs


class MappingReads:
    """``record[key]``, ``record.get(key)``, ``key in record``, ``keys()``, ``items()`` and
    ``values()`` over the record's fields, as on the dict it replaced (deprecated)."""

    __slots__ = ()

    def _deprecated(self, read: str, key: str | None = None) -> None:
        """Warn about ``read`` (the mapping read, ``{}`` standing for the record's class)."""
        instead = f"read .{key}" if key else "read its attributes (attrs.fields lists them)"
        warnings.warn(f"{read.format(type(self).__name__)} reads a record as the dict it replaced; {instead} instead "
                      "(mapping reads go after the next release; see docs/plugin-hooks.md)",
                      DeprecationWarning, stacklevel=3)

    def _names(self) -> list[str]:
        # a mixin: the class it is mixed into is an attrs class
        return [f.name for f in attrs.fields(cast("type[attrs.AttrsInstance]", type(self)))]

    def __getitem__(self, key: str) -> Any:
        self._deprecated(f"{{}}[{key!r}]", key if key in self._names() else None)
        if key not in self._names():
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        self._deprecated(f"{{}}.get({key!r})", key if key in self._names() else None)
        return getattr(self, key) if key in self._names() else default

    def __contains__(self, key: object) -> bool:
        self._deprecated(f"{key!r} in {{}}", str(key) if key in self._names() else None)
        return key in self._names()

    def keys(self) -> list[str]:
        self._deprecated("{}.keys()")
        return self._names()

    def items(self) -> list[tuple[str, Any]]:
        self._deprecated("{}.items()")
        return [(n, getattr(self, n)) for n in self._names()]

    def values(self) -> list[Any]:
        self._deprecated("{}.values()")
        return [getattr(self, n) for n in self._names()]
