"""Where SkillOpt keeps user files.

platformdirs gives each kind of file its OS-conventional home; ``SKILLOPT_HOME``
overrides all of them at once (tests, containers, portable installs). Imports of
platformdirs stay inside the functions so ``skillopt --help`` does not pay for them.
"""

from __future__ import annotations

import os
from pathlib import Path

APP = "skillopt"


def home_override() -> Path | None:
    value = os.environ.get("SKILLOPT_HOME")
    return Path(value).expanduser() if value else None


def _dir(kind: str) -> Path:
    override = home_override()
    if override is not None:
        path = override / kind
    else:
        import platformdirs

        getter = {
            "config": platformdirs.user_config_dir,
            "data": platformdirs.user_data_dir,
            "cache": platformdirs.user_cache_dir,
            "state": platformdirs.user_state_dir,
        }[kind]
        path = Path(getter(APP, appauthor=False))
    return path


def config_dir() -> Path:
    """User config: ``config.toml`` and ``keys.json``."""
    return _dir("config")


def data_dir() -> Path:
    """User data: default run directories."""
    return _dir("data")


def cache_dir() -> Path:
    """Caches that can be deleted at any time: the LLM call cache."""
    return _dir("cache")


def state_dir() -> Path:
    """Per-project state (sleep)."""
    return _dir("state")


def keys_file() -> Path:
    return config_dir() / "keys.json"


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` (mode 0700 for new directories) and return it."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path
