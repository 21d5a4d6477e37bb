"""microsoft/SkillOpt's YAML configs, read as ours (``skillopt run --config upstream.yaml``).

Someone moving from upstream has a folder of YAML configs (``_base_`` inheritance, six
sections, ~100 backend plumbing keys) and ``--cfg-options k=v`` habits. This module reads
such a file the way upstream does (``_base_`` paths relative to the file, deep merge,
cycles refused; overrides cast bool → int → float → str) and hands it to
:mod:`skillopt.config.upstream_map`, which maps every key of every upstream release by
the table in :mod:`skillopt.config.upstream_keys` (printed as docs/upstream-configs.md by
``python -m skillopt.config.upstream_doc``).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from skillopt.errors import ConfigError


def is_upstream_file(path: Path | None) -> bool:
    return path is not None and Path(path).suffix.lower() in (".yaml", ".yml")


#: the deepest ``_base_`` chain and the most files one config may read through it
MAX_BASE_DEPTH, MAX_BASE_FILES = 32, 128


def read_yaml_layers(path: Path, seen: tuple[Path, ...] = (), _budget: list[int] | None = None) -> dict[str, Any]:
    """The file merged over its ``_base_`` chain (string or list, relative to the file).
    Each file is read bounded (:mod:`skillopt.config.bounded`); a chain deeper than
    :data:`MAX_BASE_DEPTH` or reading more than :data:`MAX_BASE_FILES` files is refused."""
    from skillopt.config.bounded import load_yaml, read_config_text
    from skillopt.config.merge import deep_merge

    budget = [MAX_BASE_FILES] if _budget is None else _budget
    path = Path(path).expanduser().resolve()
    if path in seen:
        raise ConfigError(f"{path}: _base_ inheritance loops back to itself ({' -> '.join(p.name for p in (*seen, path))})")
    if len(seen) >= MAX_BASE_DEPTH:
        raise ConfigError(f"{seen[0]}: its _base_ chain is deeper than {MAX_BASE_DEPTH} files (at {path.name})")
    budget[0] -= 1
    if budget[0] < 0:
        raise ConfigError(f"{seen[0] if seen else path}: its _base_ files read more than {MAX_BASE_FILES} files")
    try:
        import yaml
    except ImportError:  # pragma: no cover - pyyaml is a dependency of skillopt-core
        raise ConfigError("reading YAML configs needs PyYAML: pip install pyyaml") from None
    what = f"the _base_ of {seen[-1]}:" if seen else "--config"
    try:
        data = load_yaml(read_config_text(path, what), str(path)) or {}
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}" + (f" (the _base_ of {seen[-1]})" if seen else "")) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not a readable YAML config ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a YAML config is a mapping of sections, not a {type(data).__name__}")
    bases = data.pop("_base_", None) or []
    bases = [bases] if isinstance(bases, str) else bases
    if not isinstance(bases, list) or not all(isinstance(b, str) and b for b in bases):
        raise ConfigError(f"{path}: _base_ is a path or a list of paths (relative to the file), not {bases!r:.80}")
    merged: dict[str, Any] = {}
    for base in bases:
        merged = deep_merge(merged, read_yaml_layers(path.parent / base, (*seen, path), budget))
    return deep_merge(merged, data)


def cast_option(text: str) -> Any:
    """``--cfg-options`` values as upstream casts them: bool, then int, then float, else str."""
    low = text.strip().lower()
    if low in ("true", "yes"):
        return True
    if low in ("false", "no"):
        return False
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


_PAIRS = re.compile(r"\s+(?=[A-Za-z_][\w.-]*=)")


def option_pairs(options: tuple[str, ...]) -> list[tuple[str, str]]:
    """``(dotted key, text)`` of each ``--cfg-options`` pair. Several pairs may share one
    argument (``"a=1 b=2"``); a flat key is upstream's legacy name (``batch_size`` →
    ``train.batch_size``), any other flat key an ``env.`` key, as upstream."""
    from skillopt.config.upstream_keys import CODEX_ALIASES, FLAT

    pairs = []
    for option in (part for text in options for part in _PAIRS.split(text.strip()) if part):
        key, sep, value = option.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--cfg-options expects key=value, got {option!r}")
        if "." not in key:
            key = FLAT.get(CODEX_ALIASES.get(key, key)) or f"env.{key}"
        pairs.append((key, value))
    return pairs


def apply_cfg_options(data: dict[str, Any], options: tuple[str, ...]) -> dict[str, Any]:
    """``k=v`` overrides (dotted keys; flat keys as :func:`option_pairs` says)."""
    from skillopt.config.merge import deep_merge

    for key, value in option_pairs(options):
        node: Any = cast_option(value)
        for part in reversed(key.split(".")):
            node = {part: node}
        data = deep_merge(data, node)
    return data


def load_upstream(path: Path, cfg_options: tuple[str, ...] = ()) -> dict[str, Any]:
    """Our raw config from an upstream YAML file and ``--cfg-options`` overrides (read and
    reported once per process for the same file and overrides)."""
    import copy

    resolved = Path(path).expanduser()
    stamp = resolved.stat().st_mtime_ns if resolved.exists() else 0
    return copy.deepcopy(_load_once(str(resolved), stamp, tuple(cfg_options)))


@functools.lru_cache(maxsize=16)
def _load_once(path: str, _stamp: int, cfg_options: tuple[str, ...]) -> dict[str, Any]:
    from skillopt.config.upstream_map import translate

    data = apply_cfg_options(read_yaml_layers(Path(path)), cfg_options)
    raw, notes = translate(data, where=path, explicit=frozenset(key for key, _ in option_pairs(cfg_options)))
    if notes:
        from skillopt.report import say

        say(summarize_notes(Path(path).name, notes))
    return raw


def summarize_notes(name: str, notes: list[str]) -> str:
    """One line: the ignored keys, those of backends no role runs counted by backend."""
    unused: dict[str, int] = {}
    rest = []
    for note in notes:
        key, _, why = note.partition(" (no role runs ")
        if why:
            unused[why.rstrip(")")] = unused.get(why.rstrip(")"), 0) + 1
        else:
            rest.append(note)
    parts = rest[:6] + ([f"… (+{len(rest) - 6})"] if len(rest) > 6 else [])
    if unused:
        parts.append(f"{sum(unused.values())} key(s) of backends no role runs ({', '.join(sorted(unused))})")
    return f"upstream config {name}: {len(notes)} key(s) with no effect here were ignored: " + ", ".join(parts)
