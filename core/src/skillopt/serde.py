"""One converter factory for every record and config class.

Two flavours, as the data demands: *strict* for what a user typed (an unknown key is a
typo, and we say which key and what was probably meant), *lenient* for files an older
SkillOpt wrote (extra keys are ignored, so old run directories stay readable).
"""

from __future__ import annotations

import difflib
import functools
import json
import math
import threading
import types
import typing
from pathlib import Path
from typing import Any, TypeVar

import attrs
import cattrs
from cattrs.preconf.json import make_converter as _make_json_converter

from skillopt.errors import ConfigError

T = TypeVar("T")

_CONVERTERS: dict[bool, cattrs.Converter] = {}
#: classes whose unstructure hooks exist (cattrs generates a class's hook on first use,
#: unlocked: rollout threads finishing at once each generated the same code)
_UNSTRUCTURED: set[type] = set()
_FIRST_USE = threading.Lock()


#: attrs field metadata: leave the field out of the data while it holds its default.
#: For fields added after run files and cache keys existed: data (and every key hashed
#: from it) stays byte-identical for records that do not use the new field.
OMIT_IF_DEFAULT = "skillopt_omit_if_default"  # the key records.py spells out (it stays import-light)


def _has_omitted_fields(cls: Any) -> bool:
    return attrs.has(cls) and any(f.metadata.get(OMIT_IF_DEFAULT) for f in attrs.fields(cls))


def _finite_float(value: Any, _type: Any) -> float:
    """A number a user typed: ``nan`` and ``inf`` are refused (every comparison with NaN is
    false, so a NaN would slip past each ``>= 0`` check; an unbounded value is ``null``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"must be a number, got {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"must be a finite number, got {value!r}")
    return number


def make_converter(*, strict: bool) -> cattrs.Converter:
    """A fresh JSON-ready converter; ``strict`` forbids unknown keys."""
    from cattrs.gen import make_dict_unstructure_fn, override

    conv = _make_json_converter(forbid_extra_keys=strict, omit_if_default=False)
    if strict:
        conv.register_structure_hook(float, _finite_float)
    conv.register_unstructure_hook(Path, str)
    conv.register_structure_hook(Path, lambda v, _: Path(v))
    conv.register_unstructure_hook_factory(
        _has_omitted_fields,
        lambda cls: make_dict_unstructure_fn(
            # per-field overrides are **kwargs beside its flags (mypy matches them against the flags)
            cls, conv, **{f.name: override(omit_if_default=True) for f in attrs.fields(cls) if f.metadata.get(OMIT_IF_DEFAULT)}  # type: ignore[arg-type]
        ),
    )
    return conv


def converter(*, strict: bool = False) -> cattrs.Converter:
    """The shared converter of a flavour (converters are thread-safe once built)."""
    conv = _CONVERTERS.get(strict)
    if conv is None:
        conv = _CONVERTERS[strict] = make_converter(strict=strict)
    return conv


def to_data(obj: Any) -> Any:
    """Plain JSON-compatible data for a record (or a list/dict of records)."""
    cls = obj.__class__
    if cls in _UNSTRUCTURED:
        return converter().unstructure(obj)
    with _FIRST_USE:  # one thread generates the class's hooks; the others wait and reuse them
        data = converter().unstructure(obj)
    _UNSTRUCTURED.add(cls)
    return data


def from_data(data: Any, cls: type[T]) -> T:
    """Read a record written by any SkillOpt version: unknown keys are ignored."""
    return converter(strict=False).structure(data, cls)


def dumps(obj: Any, *, indent: int | None = 2) -> str:
    return json.dumps(to_data(obj), indent=indent, ensure_ascii=False, sort_keys=False)


def structure_strict(data: Any, cls: type[T], *, where: str = "") -> T:
    """Structure user-written data; errors name the offending key."""
    check_known_keys(data, cls, prefix=where)
    try:
        return converter(strict=True).structure(data, cls)
    except cattrs.BaseValidationError as exc:
        messages = cattrs.transform_error(exc, path=where or "config", format_exception=_format_exception)
        raise ConfigError("invalid configuration: " + "; ".join(messages)) from None  # one line, as every error
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"invalid configuration{' in ' + where if where else ''}: {exc}") from None


@functools.cache
def field_types(cls: type) -> dict[str, Any]:
    """Resolved field types of an attrs class (annotations may be strings)."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints.get(f.name, f.type) for f in attrs.fields(cls)}


def _format_exception(exc: BaseException, type_: Any) -> str:
    """Keep attrs validator messages (they name the field and the allowed values)."""
    if isinstance(exc, (ValueError, TypeError)) and exc.args:
        return exc.args[0] if isinstance(exc.args[0], str) else str(exc)
    from cattrs.v import format_exception

    return format_exception(exc, type_)


def check_known_keys(data: Any, cls: type, *, prefix: str = "") -> None:
    """Raise :class:`ConfigError` for the first key that ``cls`` does not declare.

    The message gives the full dotted path and the closest valid key, which is what a
    user needs to fix a typo (cattrs' own error only says that *some* key is extra).
    """
    if not isinstance(data, dict) or not attrs.has(cls):
        return
    fields = field_types(cls)
    for key, value in data.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if key not in fields:
            raise ConfigError(unknown_key_message(path, key, list(fields)))
        sub = attrs_class_of(fields[key])
        if sub is not None:
            check_known_keys(value, sub, prefix=path)


def unknown_key_message(path: str, key: str, valid: list[str]) -> str:
    close = difflib.get_close_matches(str(key), valid, n=1, cutoff=0.5)
    # the section is the path before the key (a key may itself contain dots: "train.epochs")
    parent = path[: -len(str(key)) - 1] if path.endswith(f".{key}") else ""
    hint = f" Did you mean '{parent + '.' if parent else ''}{close[0]}'?" if close else ""
    where = f"'{parent}'" if parent else "the top level"
    return f"unknown config key '{path}'.{hint} Valid keys in {where}: {', '.join(sorted(valid))}."


def attrs_class_of(tp: Any) -> type | None:
    """The attrs class inside ``tp`` (``X`` or ``X | None``), if any."""
    if isinstance(tp, str):
        return None
    if attrs.has(tp):
        return tp
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(tp):
            if arg is not type(None) and attrs.has(arg):
                return arg
    return None
