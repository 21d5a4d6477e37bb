"""``adopt`` and ``rollback``: moving a staged night into the live files, and back.

Adoption refuses when a live file changed since the night pinned it, when a target
(or a directory above it inside the project) is a symlink, or when a proposed file no
longer matches its manifest hash. Every change runs through the write-ahead
transaction in :mod:`.transaction` under the per-project lock, and each adopt or
rollback is appended to the project's adoption log, so ``rollback [NIGHT]`` restores
the exact bytes (and modes) the night replaced.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from skillopt.api import SkillOptError

from skillopt_sleep.adopt import transaction
from skillopt_sleep.adopt.lock import project_lock
from skillopt_sleep.fsutil import read_json, sha256_bytes, sha256_file, write_json
from skillopt_sleep.stage.layout import find_night, manifest
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


def adopted_nights(project: Path) -> list[str]:
    """Nights currently adopted (adopt not followed by a rollback), oldest first."""
    state: dict[str, str] = {}
    order: list[str] = []
    for e in events(project):
        state[e["night"]] = e["kind"]
        if e["night"] in order:
            order.remove(e["night"])
        order.append(e["night"])
    return [n for n in order if state.get(n) == "adopt"]


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


def adopt(project: Path, night: str | None = None, *, break_lock: bool = False) -> dict:
    project = Path(project).resolve()
    lock, log, _ = _paths(project)
    with project_lock(lock, break_lock=break_lock):
        recover(project)
        night_dir = find_night(project, night)
        data = manifest(night_dir)
        if night_dir.name in adopted_nights(project):
            raise AdoptRefused(f"night {night_dir.name} is already adopted; `skillopt sleep rollback {night_dir.name}` undoes it")
        changes = []
        for t in data["targets"]:
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
            changes.append(transaction.Change(path=live, new_bytes=proposed))
        receipt = transaction.run(
            log,
            night_dir / "backup",
            changes,
            kind="adopt",
            receipt=night_dir / "adopted.json",
            receipt_data={"night": night_dir.name, "kind": "adopt", "at": _now()},
        )
        _record(project, {"night": night_dir.name, "kind": "adopt", "at": receipt["at"], "transaction": receipt["transaction"]})
        return receipt


def rollback(project: Path, night: str | None = None, *, force: bool = False, break_lock: bool = False) -> dict:
    project = Path(project).resolve()
    lock, log, _ = _paths(project)
    with project_lock(lock, break_lock=break_lock):
        recover(project)
        adopted = adopted_nights(project)
        if not adopted:
            raise AdoptRefused("nothing to roll back: no adopted night for this project")
        name = night or adopted[-1]
        if name not in adopted:
            raise AdoptRefused(f"night {name} is not adopted (adopted: {', '.join(adopted)})")
        night_dir = find_night(project, name)
        receipt = read_json(night_dir / "adopted.json")
        if not isinstance(receipt, dict):
            raise AdoptRefused(f"{night_dir / 'adopted.json'} is missing; cannot know what to restore")
        changes = []
        for entry in receipt["entries"]:
            live = Path(entry["path"])
            _check_path(project, live)
            if sha256_file(live) != entry["after_sha256"] and not force:
                raise AdoptRefused(f"{live} changed after night {name} was adopted; pass --force to restore the backup anyway")
            if entry["existed"]:
                changes.append(transaction.Change(path=live, new_bytes=Path(entry["backup"]).read_bytes()))
            else:
                changes.append(transaction.Change(path=live, new_bytes=None, remove_dirs=tuple(entry.get("created_dirs", []))))
        result = transaction.run(
            log,
            night_dir / "rollback-backup",
            changes,
            kind="rollback",
            receipt=night_dir / "rolled_back.json",
            receipt_data={"night": name, "kind": "rollback", "at": _now()},
            install=_restore_mode_aware(receipt["entries"]),
        )
        _record(project, {"night": name, "kind": "rollback", "at": result["at"], "transaction": result["transaction"]})
        return result


def _restore_mode_aware(entries: list[dict]):
    modes = {e["path"]: int(e.get("mode", 0o644)) for e in entries}

    def install(path: Path, data: bytes, mode: int) -> None:
        transaction._install(path, data, modes.get(str(path), mode))

    return install


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
