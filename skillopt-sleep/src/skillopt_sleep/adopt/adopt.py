"""``adopt`` and ``rollback``: moving a staged night into the live files, and back.

Adoption refuses when a live file changed since the night pinned it, when a target
(or a directory above it inside the project) is a symlink, or when a proposed file no
longer matches its manifest hash. Every change runs through the write-ahead
transaction in :mod:`.transaction` under the per-project lock, and each adopt or
rollback is appended to the project's adoption log, so ``rollback [NIGHT]`` restores
the exact bytes (and modes) the night replaced.

A night stages one or more *units* (see :mod:`skillopt_sleep.stage.writer`): ``main``
(its skill and memory files) and, on a fan-out night, ``skill:NAME`` for each skill.
Each unit is adopted and rolled back on its own (``--skill NAME``, ``--all-skills``);
the log records which units every adopt and rollback moved, and each adoption keeps
its own receipt and backups, so rolling back one skill restores exactly that skill's
file and leaves the others as they are.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from skillopt.api import SkillOptError
from skillopt_sleep.adopt import transaction
from skillopt_sleep.adopt.lock import project_lock
from skillopt_sleep.fsutil import read_json, sha256_bytes, sha256_file, write_json
from skillopt_sleep.stage.layout import find_night, manifest
from skillopt_sleep.stage.writer import MAIN, skill_unit
from skillopt_sleep.state import project_state_dir


class AdoptRefused(SkillOptError):
    """Adoption or rollback would be unsafe; the message says why and what to do."""


def _paths(project: Path) -> tuple[Path, Path, Path]:
    state = project_state_dir(project)
    return state / "adopt.lock", state / "transaction.json", state / "adoptions.json"


def recover(project: Path) -> bool:
    """Undo a transaction a crash left behind. Callers hold the project lock, so a
    transaction still running in another process is never mistaken for a crashed one."""
    _lock, log, _events = _paths(project)
    return transaction.undo(log) if log.exists() else False


def recover_locked(project: Path) -> str:
    """``recover`` under the lock, for read-only commands: 'recovered', 'clean' or 'busy'."""
    from skillopt_sleep.adopt.lock import LockBusy

    lock, _log, _ = _paths(Path(project).resolve())
    try:
        with project_lock(lock):
            return "recovered" if recover(project) else "clean"
    except LockBusy:
        return "busy"


def events(project: Path) -> list[dict]:
    return read_json(_paths(project)[2], default=[]) or []


def _record(project: Path, event: dict) -> None:
    path = _paths(project)[2]
    data = events(project)
    data.append(event)
    write_json(path, data)


def _units(event: dict) -> list[str]:
    return list(event.get("units") or [MAIN])  # logs written before units existed moved the whole night


def adopted_units(project: Path) -> list[tuple[str, str]]:
    """(night, unit) currently adopted (adopted and not rolled back since), oldest first."""
    last: dict[tuple[str, str], dict] = {}
    order: list[tuple[str, str]] = []
    for e in events(project):
        for unit in _units(e):
            key = (e["night"], unit)
            last[key] = e
            if key in order:
                order.remove(key)
            order.append(key)
    return [key for key in order if last[key]["kind"] == "adopt"]


def adopted_nights(project: Path) -> list[str]:
    """Nights with at least one unit currently adopted, oldest first."""
    return list(dict.fromkeys(night for night, _unit in adopted_units(project)))


def _adoption(project: Path, night: str, unit: str) -> dict:
    """The adopt event currently in force for (night, unit)."""
    found = None
    for e in events(project):
        if e["night"] == night and unit in _units(e):
            found = e if e["kind"] == "adopt" else None
    if found is None:
        raise AdoptRefused(f"{_label(unit)} of night {night} is not adopted")
    return found


def _label(unit: str) -> str:
    return f"skill {unit.split(':', 1)[1]}" if unit.startswith("skill:") else "the main proposal"


def labels(units: list[str]) -> str:
    """Units as people read them: ``the main proposal, skill release``."""
    return ", ".join(_label(u) for u in units)


def _check_path(project: Path, path: Path) -> None:
    if path.is_symlink():
        raise AdoptRefused(f"{path} is a symlink; refusing to write through it")
    try:
        rel = path.resolve(strict=False).relative_to(project.resolve())
    except ValueError:
        rel = None
    if rel is not None:
        cur = project
        for part in rel.parts[:-1]:
            cur = cur / part
            if cur.is_symlink():
                raise AdoptRefused(f"{cur} is a symlink; refusing to write below it")


def staged_units(data: dict) -> list[str]:
    """The units a night's manifest stages, main first."""
    return list(dict.fromkeys(t.get("unit", MAIN) for t in data["targets"]))


def select_units(
    staged: list[str], skills: tuple[str, ...] | list[str] = (), all_skills: bool = False, *, night: str
) -> list[str]:
    """Which staged units an adopt selects: the named skills, every skill, or (bare) the
    main proposal — a night that staged only skills needs the choice said out loud."""
    skill_units = [u for u in staged if u.startswith("skill:")]
    names = ", ".join(u.split(":", 1)[1] for u in skill_units) or "none"
    if skills and all_skills:
        raise AdoptRefused("pass --skill NAME or --all-skills, not both")
    if all_skills:
        if not skill_units:
            raise AdoptRefused(f"night {night} staged no per-skill proposal (--all-skills has nothing to adopt)")
        return skill_units
    if skills:
        wanted = [skill_unit(n) for n in dict.fromkeys(skills)]
        unknown = [u.split(":", 1)[1] for u in wanted if u not in staged]
        if unknown:
            raise AdoptRefused(f"night {night} staged no proposal for skill {unknown[0]!r} (staged skills: {names})")
        return wanted
    if MAIN in staged:
        return [MAIN]
    raise AdoptRefused(
        f"night {night} staged only per-skill proposals ({names}): pass --skill NAME (repeatable) or --all-skills"
    )


def adopt(
    project: Path, night: str | None = None, *, skills: tuple[str, ...] | list[str] = (), all_skills: bool = False,
    break_lock: bool = False,
) -> dict:
    """Adopt a staged night's main proposal (bare), or its fan-out skills (``skills`` /
    ``all_skills``), as one transaction; returns the receipt."""
    project = Path(project).resolve()
    lock, log, _ = _paths(project)
    with project_lock(lock, break_lock=break_lock):
        recover(project)
        night_dir = find_night(project, night)
        data = manifest(night_dir)
        units = select_units(staged_units(data), skills, all_skills, night=night_dir.name)
        already = [u for u in units if (night_dir.name, u) in adopted_units(project)]
        if already:
            flag = "" if already[0] == MAIN else f" --skill {already[0].split(':', 1)[1]}"
            raise AdoptRefused(
                f"{_label(already[0])} of night {night_dir.name} is already adopted; "
                f"`skillopt sleep rollback {night_dir.name}{flag}` undoes it"
            )
        changes = []
        for t in data["targets"]:
            if t.get("unit", MAIN) not in units:
                continue
            live = Path(t["live_path"])
            _check_path(project, live)
            current = sha256_file(live)
            if current != t["baseline_sha256"]:
                raise AdoptRefused(
                    f"{live} changed since night {night_dir.name} was staged (expected "
                    f"{(t['baseline_sha256'] or 'absent')[:12]}, found {(current or 'absent')[:12]}); re-run `skillopt sleep run`"
                )
            proposed = (night_dir / t["proposed"]).read_bytes()
            if sha256_bytes(proposed) != t["proposed_sha256"]:
                raise AdoptRefused(f"{night_dir / t['proposed']} does not match its manifest hash; it was modified after staging")
            changes.append(transaction.Change(path=live, new_bytes=proposed, unit=t.get("unit", MAIN)))
        tag = _tag()
        receipt = transaction.run(
            log,
            night_dir / "backups" / tag,
            changes,
            kind="adopt",
            receipt=night_dir / "receipts" / f"adopt-{tag}.json",
            receipt_data={"night": night_dir.name, "kind": "adopt", "units": units, "at": _now()},
        )
        event = {"night": night_dir.name, "kind": "adopt", "units": units, "at": receipt["at"]}
        _record(project, {**event, "transaction": receipt["transaction"], "receipt": str(night_dir / "receipts" / f"adopt-{tag}.json")})
        return receipt


def rollback(
    project: Path, night: str | None = None, *, skills: tuple[str, ...] | list[str] = (), all_skills: bool = False,
    force: bool = False, break_lock: bool = False,
) -> dict:
    """Restore what adopted units replaced: bare, every unit still adopted from ``night``
    (default: the latest night with one); ``skills`` / ``all_skills``, only those skills."""
    project = Path(project).resolve()
    lock, log, _ = _paths(project)
    with project_lock(lock, break_lock=break_lock):
        recover(project)
        adopted = adopted_units(project)
        if not adopted:
            raise AdoptRefused("nothing to roll back: no adopted night for this project")
        if skills and all_skills:
            raise AdoptRefused("pass --skill NAME or --all-skills, not both")
        wanted = {skill_unit(n) for n in skills}
        chosen = (lambda u: u in wanted) if skills else (lambda u: u.startswith("skill:")) if all_skills else (lambda u: True)
        candidates = [(n, u) for n, u in adopted if chosen(u)]
        if not candidates:
            what = ", ".join(f"skill {n}" for n in skills) if skills else "per-skill proposal"
            raise AdoptRefused(f"no adopted {what} to roll back (adopted: {_describe(adopted)})")
        name = night or candidates[-1][0]
        units = [u for n, u in candidates if n == name]
        if not units:
            if skills or all_skills:
                raise AdoptRefused(f"night {name} has no such adopted skill (adopted: {_describe(adopted)})")
            raise AdoptRefused(f"night {name} is not adopted (adopted: {', '.join(adopted_nights(project))})")
        night_dir = find_night(project, name)
        changes, entries = [], []
        for unit in units:
            for entry in _receipt_entries(project, night_dir, _adoption(project, name, unit), unit):
                live = Path(entry["path"])
                _check_path(project, live)
                if sha256_file(live) != entry["after_sha256"] and not force:
                    raise AdoptRefused(f"{live} changed after night {name} was adopted; pass --force to restore the backup anyway")
                if entry["existed"]:
                    changes.append(transaction.Change(path=live, new_bytes=Path(entry["backup"]).read_bytes(), unit=unit))
                else:
                    changes.append(
                        transaction.Change(path=live, new_bytes=None, remove_dirs=tuple(entry.get("created_dirs", [])), unit=unit)
                    )
                entries.append(entry)
        tag = _tag()
        result = transaction.run(
            log,
            night_dir / "backups" / f"rollback-{tag}",
            changes,
            kind="rollback",
            receipt=night_dir / "receipts" / f"rollback-{tag}.json",
            receipt_data={"night": name, "kind": "rollback", "units": units, "at": _now()},
            install=_restore_mode_aware(entries),
        )
        event = {"night": name, "kind": "rollback", "units": units, "at": result["at"]}
        _record(project, {**event, "transaction": result["transaction"]})
        return result


def _receipt_entries(project: Path, night_dir: Path, event: dict, unit: str) -> list[dict]:
    """The entries of ``unit`` in the receipt of the adoption ``event``."""
    path = Path(event.get("receipt") or night_dir / "adopted.json")  # older logs kept one receipt per night
    receipt = read_json(path)
    if not isinstance(receipt, dict):
        raise AdoptRefused(f"{path} is missing; cannot know what to restore")
    return [e for e in receipt["entries"] if (e.get("unit") or MAIN) == unit]


def _describe(adopted: list[tuple[str, str]]) -> str:
    return ", ".join(f"{n} ({_label(u)})" for n, u in adopted)


def _restore_mode_aware(entries: list[dict]):
    modes = {e["path"]: int(e.get("mode", 0o644)) for e in entries}

    def install(path: Path, data: bytes, mode: int) -> None:
        transaction._install(path, data, modes.get(str(path), mode))

    return install


def _tag() -> str:
    """A sortable, unique name for one adoption's receipt and backups."""
    import uuid

    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
