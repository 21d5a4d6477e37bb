"""The harvester contract (``skillopt sleep``): read one coding agent's transcripts.

A harvester finds its agent's session files, parses them into
:class:`~skillopt.records.Session` records and redacts secrets before returning them,
so nothing downstream (state, staging, prompts) ever sees an unredacted secret.
"""

from __future__ import annotations

import abc
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import ClassVar

from skillopt.records import Session


class Harvester(abc.ABC):
    """Base class of harvester plugins."""

    #: the name it is registered under; also each Session's ``source`` (``claude-code``, ``codex`` ...)
    name: ClassVar[str] = ""
    #: one line for ``skillopt list`` (default: the docstring's first line)
    summary: ClassVar[str] = ""
    #: environment variable that overrides the default roots (os.pathsep-separated)
    root_env_var: ClassVar[str] = ""

    @abc.abstractmethod
    def default_roots(self) -> list[Path]:
        """Where this agent keeps its transcripts on this machine."""

    @abc.abstractmethod
    def sessions(self, roots: list[Path], since: datetime | None = None) -> Iterator[Session]:
        """Parsed, redacted sessions found under ``roots`` (newer than ``since``)."""

    def roots(self, override: list[Path] | None = None) -> list[Path]:
        """Where to look: ``override``, else the paths in ``root_env_var``, else :meth:`default_roots`."""
        import os

        if override:
            return list(override)
        if self.root_env_var and os.environ.get(self.root_env_var):
            return [Path(p).expanduser() for p in os.environ[self.root_env_var].split(os.pathsep) if p]
        return self.default_roots()

    def available(self, override: list[Path] | None = None) -> bool:
        """True when any of those roots exists (the agent has transcripts here)."""
        return any(path.exists() for path in self.roots(override))
