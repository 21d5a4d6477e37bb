"""Running an experiment without touching the developer's own sleep state."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator


@contextlib.contextmanager
def skillopt_home(path) -> Iterator[None]:
    """``SKILLOPT_HOME`` pointed at ``path`` for the block (state, cache, evidence go there)."""
    previous = os.environ.get("SKILLOPT_HOME")
    os.environ["SKILLOPT_HOME"] = str(path)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("SKILLOPT_HOME", None)
        else:
            os.environ["SKILLOPT_HOME"] = previous
