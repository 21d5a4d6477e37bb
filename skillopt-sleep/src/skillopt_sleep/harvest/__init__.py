"""Harvest: run the selected harvester plugins and keep this project's sessions.

Harvesters are found only through the registry (``skillopt.harvesters`` entry
points), so a third-party harvester is used exactly like a built-in one. ``auto``
loads every installed harvester and keeps those whose roots exist. A harvester that
fails (unknown schema, unreadable file) becomes a warning naming it; the night goes on
with the other sources. What each source skipped (lines that were not JSON, files it
could not read) and dropped (automated replays and graders, by reason) is counted per
source (:mod:`.tally`) and reported with the sessions.
"""

from __future__ import annotations

import os
import sqlite3
from collections import Counter
from datetime import datetime
from pathlib import Path

import attrs

from skillopt.api import ConfigError, PluginError, Session
from skillopt_sleep.harvest.sqlite import SchemaMismatch
from skillopt_sleep.harvest.tally import counting


@attrs.frozen(kw_only=True)
class HarvestRequest:
    sources: tuple[str, ...] = ("auto",)
    roots: dict[str, tuple[Path, ...]] = attrs.field(factory=dict)
    project: Path | None = None
    scope: str = "invoked"
    since: datetime | None = None
    max_sessions: int = 200


@attrs.frozen(kw_only=True)
class HarvestResult:
    sessions: tuple[Session, ...] = ()
    per_source: dict[str, int] = attrs.field(factory=dict)
    sources_tried: tuple[str, ...] = ()
    out_of_scope: int = 0
    warnings: tuple[str, ...] = ()
    #: sessions left out as automation, by reason (``grader``, ``sleep-replay`` …)
    dropped: dict[str, int] = attrs.field(factory=dict)
    #: transcript lines that were not JSON, by source
    skipped_lines: dict[str, int] = attrs.field(factory=dict)
    #: files and stores that could not be read, each with its source and reason
    unreadable: tuple[str, ...] = ()

    def left_out(self) -> list[str]:
        return left_out(self.dropped, self.skipped_lines, self.unreadable)


def left_out(dropped: dict[str, int], skipped_lines: dict[str, int], unreadable) -> list[str]:
    """What a harvest did not use, one line each, for people: automated sessions by
    reason, lines that were not JSON, files and stores it could not read."""
    lines = []
    if dropped:
        lines.append("left out as automation: " + ", ".join(f"{n} {why}" for why, n in sorted(dropped.items())))
    lines += [f"{source}: {n} line(s) were not JSON and were skipped" for source, n in sorted(skipped_lines.items()) if n]
    lines += [f"unreadable: {what}" for what in unreadable]
    return lines


def resolve_harvesters(names: tuple[str, ...], roots: dict[str, tuple[Path, ...]]) -> list[tuple[str, object]]:
    """``(name, harvester)`` pairs; ``auto`` means every installed one with data present."""
    from skillopt.api import get_component, load_components

    if not names or "auto" in names:
        chosen = []
        for comp in load_components("harvesters"):
            harvester = comp.obj()
            override = list(roots.get(comp.name, ()))
            if harvester.available(override or None):
                chosen.append((comp.name, harvester))
        return chosen
    out = []
    for name in names:
        try:
            comp = get_component("harvesters", name)
        except PluginError as exc:
            raise ConfigError(f"--source: {exc}") from None
        out.append((comp.name, comp.obj()))
    return out


def _norm(path: str) -> str:
    return os.path.normcase(os.path.normpath(path))


def in_scope(session: Session, project: Path | None, scope: str) -> bool:
    """``invoked``: the session ran in the project or below it. ``all``: everything."""
    return ran_in(session.project or "", project, scope)


def ran_in(where: str, project: Path | None, scope: str) -> bool:
    """Whether a session whose working directory is ``where`` belongs to the harvest."""
    if scope == "all" or project is None:
        return True
    if where.startswith("cursor-slug:"):
        from skillopt_sleep.harvest.cursor import slug

        return where.split(":", 1)[1] == slug(str(project))
    if not where:
        return False
    target = _norm(str(project))
    candidate = _norm(where)
    return candidate == target or candidate.startswith(target.rstrip(os.sep) + os.sep)


def harvest(request: HarvestRequest) -> HarvestResult:
    if request.scope not in ("invoked", "all"):
        raise ConfigError(f"--scope must be 'invoked' or 'all', not {request.scope!r}")
    project = Path(request.project).resolve() if request.project else None
    found: dict[str, Session] = {}
    per_source: dict[str, int] = {}
    warnings: list[str] = []
    unreadable: list[str] = []
    dropped: Counter = Counter()
    skipped: dict[str, int] = {}
    out_of_scope = 0
    chosen = resolve_harvesters(request.sources, request.roots)
    for name, harvester in chosen:
        roots = harvester.roots(list(request.roots.get(name, ())) or None)
        count = 0
        with counting() as tally:
            try:
                for session in harvester.sessions(roots, request.since):
                    if not in_scope(session, project, request.scope):
                        out_of_scope += 1
                        continue
                    if session.id not in found:
                        found[session.id] = session
                        count += 1
            except (SchemaMismatch, OSError, sqlite3.Error, ValueError, UnicodeError) as exc:
                warnings.append(f"harvester {name!r} stopped: {type(exc).__name__}: {exc}")
                tally.add_unreadable(f"{type(exc).__name__}: {exc}")
        per_source[name] = count
        dropped.update(tally.dropped)  # a harvester that cannot say where a session ran
        dropped.update(reason for reason, where in tally.automated if ran_in(where, project, request.scope))
        skipped[name] = tally.skipped_lines
        unreadable += [f"{name}: {what}" for what in tally.unreadable]
    ordered = sorted(found.values(), key=lambda s: s.ended_at or s.started_at, reverse=True)
    return HarvestResult(
        sessions=tuple(ordered[: request.max_sessions]),
        per_source=per_source,
        sources_tried=tuple(name for name, _ in chosen),
        out_of_scope=out_of_scope,
        warnings=tuple(warnings),
        dropped=dict(sorted(dropped.items())),
        skipped_lines={k: v for k, v in skipped.items() if v},
        unreadable=tuple(unreadable),
    )
