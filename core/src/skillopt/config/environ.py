"""Environment variables that fill a role's connection settings, and the ``.env`` file.

Upstream configures its backends from variable families (``OPENAI_COMPATIBLE_MODEL``,
``TARGET_OPENAI_COMPATIBLE_BASE_URL``, ``AZURE_OPENAI_AUTH_MODE`` …); a backend names its
family with :meth:`~skillopt.backends.Backend.env_vars`, and :func:`fill_role` fills the
settings the config leaves unset. The precedence, highest first:

    flag > --set > config file > role variable > shared variable > .env

``.env`` in the working directory is read by the ``skillopt`` command (``--no-dotenv``
or ``SKILLOPT_NO_DOTENV=1`` to skip it): a name already in the environment keeps its
value, and a name that only ``.env`` sets ranks below every variable of the real
environment, so a shell's shared variable beats a role variable written in ``.env``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from skillopt.errors import ConfigError

#: names this process took from a ``.env`` file (they rank below the real environment)
FROM_DOTENV: set[str] = set()
_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")
_SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSWORD", re.IGNORECASE)


def parse_dotenv(text: str) -> dict[str, str]:
    """``KEY=VALUE`` lines (``export`` allowed, ``#`` comments, single or double quotes)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _LINE.match(line)
        if not match:
            continue
        name, value = match.groups()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        else:
            value = value.split(" #", 1)[0].strip()
        found[name] = value
    return found


def load_dotenv(path: Path) -> list[str]:
    """Set the variables of ``path`` that the environment lacks; their names."""
    from skillopt.redact import register_secret

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it as a .env file ({exc}); fix it, or pass --no-dotenv") from None
    loaded = []
    for name, value in parse_dotenv(text).items():
        if name in os.environ:
            continue
        os.environ[name] = value
        FROM_DOTENV.add(name)
        loaded.append(name)
        if value and _SECRET.search(name):
            register_secret(value)
    return loaded


def lookup(names: Iterable[str]) -> tuple[str, str] | None:
    """``(value, name)`` of the first of ``names`` set in the real environment, else the
    first that ``.env`` set; None when none is set (an empty value counts as unset)."""
    names = tuple(names)
    for from_file in (False, True):
        for name in names:
            value = os.environ.get(name, "")
            if value and (name in FROM_DOTENV) == from_file:
                return value, name
    return None


def role_family(role: str, prefix: str, fields: Mapping[str, str], *, infix: bool = False) -> dict[str, tuple[str, ...]]:
    """``{field: (ROLE_PREFIX_SUFFIX, [PREFIX_ROLE_SUFFIX,] PREFIX_SUFFIX)}`` for a family such as
    ``OPENAI_COMPATIBLE`` with ``{"base_url": "BASE_URL"}``; role variables first."""
    out = {}
    for field, suffix in fields.items():
        names = [f"{role.upper()}_{prefix}_{suffix}"]
        if infix:
            names.append(f"{prefix}_{role.upper()}_{suffix}")
        out[field] = (*names, f"{prefix}_{suffix}")
    return out


_FLOATS = ("temperature", "timeout_s")
_INTS = ("max_tokens",)
_BOOLS = ("options.allow_all_tools",)


def _typed(field: str, value: str, name: str) -> Any:
    try:
        if field in _FLOATS:
            return float(value)
        if field in _INTS:
            return int(value)
    except ValueError:
        raise ConfigError(f"{name}={value!r} is not a number ({field})") from None
    if field in _BOOLS:
        return value.strip().lower() in ("1", "true", "yes", "on")
    return value


def fill_role(settings: dict[str, Any], unset: Iterable[str], spec: Mapping[str, tuple[str, ...]]) -> dict[str, str]:
    """Fill each field of ``spec`` that is in ``unset`` from its variables (in place);
    returns ``{field: variable}`` for what came from the environment."""
    unset = set(unset)
    used: dict[str, str] = {}
    for field, names in spec.items():
        if field not in unset:
            continue
        found = lookup(names)
        if found is None:
            continue
        value, name = found
        if field.startswith("options."):
            settings.setdefault("options", {})[field[8:]] = _typed(field, value, name)
        else:
            settings[field] = _typed(field, value, name)
        used[field] = name
    return used
