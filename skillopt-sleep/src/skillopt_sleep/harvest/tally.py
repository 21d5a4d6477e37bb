"""Counting what a harvest left out, without widening the harvester contract.

A harvester plugin yields sessions and nothing else (``Harvester.sessions``), yet a
developer must learn that 3 lines of a transcript were not JSON, that a store could
not be opened, or that 2 sessions were dropped as automated replays. Harvest opens a
:class:`Tally` per source with :func:`counting`; the shared readers and the session
builder report into whichever tally is current (a context variable, so concurrent
harvests never mix). A third-party harvester that uses neither simply reports nothing.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections import Counter
from collections.abc import Iterator

import attrs

MAX_UNREADABLE = 20


@attrs.define
class Tally:
    """What one source's harvest skipped and dropped."""

    #: sessions left out on purpose, by reason, where the harvester could not say where they ran
    dropped: Counter = attrs.field(factory=Counter)
    #: sessions left out as automation: (reason, the directory they ran in), so the harvest
    #: counts only the ones in the project it was asked about
    automated: list[tuple[str, str]] = attrs.field(factory=list)
    #: transcript lines that were not a JSON object
    skipped_lines: int = 0
    #: files or stores that could not be read, with the reason
    unreadable: list[str] = attrs.field(factory=list)

    def drop(self, reason: str, where: str = "") -> None:
        """A session left out as automation; ``where`` is its working directory ('' unknown)."""
        if where:
            self.automated.append((reason, where))
        else:
            self.dropped[reason] += 1

    def add_unreadable(self, what: str) -> None:
        if len(self.unreadable) < MAX_UNREADABLE:
            self.unreadable.append(what)


_CURRENT: contextvars.ContextVar[Tally | None] = contextvars.ContextVar("skillopt_sleep_harvest_tally", default=None)


@contextlib.contextmanager
def counting() -> Iterator[Tally]:
    """A fresh tally that the readers and builders below report into."""
    tally = Tally()
    token = _CURRENT.set(tally)
    try:
        yield tally
    finally:
        _CURRENT.reset(token)


def current() -> Tally:
    """The tally being filled, or a throwaway one when nobody is counting."""
    return _CURRENT.get() or Tally()
