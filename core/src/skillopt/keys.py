"""API keys: environment variables first, then the user's keys file (mode 0600).

Keys are never written to a run directory; every key we hand out is registered with
:mod:`skillopt.redact` so it is masked if it ever reaches a message or a file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from skillopt import paths
from skillopt.fsio import write_atomic
from skillopt.redact import register_secret


def _read(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except json.JSONDecodeError:
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def stored_keys() -> dict[str, str]:
    return _read(paths.keys_file())


def get_key(name: str, env_vars: tuple[str, ...] = ()) -> str | None:
    """The key for ``name``: the first set env var of ``env_vars``, else the keys file."""
    for var in env_vars:
        value = os.environ.get(var)
        if value:
            register_secret(value)
            return value
    value = stored_keys().get(name)
    if value:
        register_secret(value)
    return value or None


def set_key(name: str, value: str) -> Path:
    """Store a key; the file is created with mode 0600 and replaced atomically."""
    path = paths.keys_file()
    paths.ensure_private_dir(path.parent)
    data = stored_keys()
    data[name] = value
    write_atomic(path, json.dumps(data, indent=2), mode=0o600)
    return path


def delete_key(name: str) -> bool:
    data = stored_keys()
    if name not in data:
        return False
    del data[name]
    path = paths.keys_file()
    write_atomic(path, json.dumps(data, indent=2), mode=0o600)
    return True
