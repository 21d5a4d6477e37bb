"""Reading a skill folder from disk and writing one back, whole.

Reading checks the layout file by file, so a bad folder is refused with the file and
the rule it breaks, before a run pays for anything. Writing builds the folder beside
its destination and renames it into place: a reader (an agent loading its skills, a
resumed run) sees the old folder or the new one, never a mix of both.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from skillopt.errors import ConfigError
from skillopt.fsio import replace_dir
from skillopt.records import SkillFile
from skillopt.skillfolder import DEFAULT_MODE, LAYOUT, MAIN, SkillFolder, check_front_matter, is_script, path_problem

if TYPE_CHECKING:
    from collections.abc import Callable

#: a folder skill may hold at most this many characters in all (as a single-file skill)
MAX_FOLDER_CHARS = 200_000


def load_folder(root: Path, what: str = "skill") -> SkillFolder:
    """The skill folder at ``root``, checked: ``SKILL.md`` with ``name`` and ``description``
    front matter, only files of the layout (hidden files are skipped), UTF-8 text, no
    symbolic links, at most :data:`MAX_FOLDER_CHARS` characters. Scripts keep their
    permission bits; markdown files are read as ``0644``."""
    root = Path(root)
    if not (root / MAIN).is_file():
        raise ConfigError(f"{what}: {root} has no {MAIN}; a folder skill is {LAYOUT} (Agent Skills layout)")
    files, total = [], 0
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for d in dirnames:
            if (Path(dirpath) / d).is_symlink():
                raise ConfigError(f"{what}: {Path(dirpath) / d} is a symbolic link; copy the files into the folder")
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            problem = path_problem(rel)
            if problem:
                raise ConfigError(f"{what}: {path} is {problem}")
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                raise ConfigError(f"{what}: {path} is a symbolic link; copy the file into the folder")
            try:
                content = path.read_text(encoding="utf-8")
            except UnicodeDecodeError as exc:
                raise ConfigError(f"{what}: {path} is not UTF-8 text (byte {exc.start}); a skill's files are text") from None
            total += len(content)
            if total > MAX_FOLDER_CHARS:
                raise ConfigError(f"{what}: {root} holds more than {MAX_FOLDER_CHARS:,} characters; a skill is read "
                                  "on every call")
            mode = stat.S_IMODE(info.st_mode) if is_script(rel) else DEFAULT_MODE
            files.append(SkillFile(path=rel, content=content, mode=mode))
    try:
        folder = SkillFolder.of(files)
    except ConfigError as exc:
        raise ConfigError(f"{what}: {root}: {exc}") from None
    check_front_matter(folder.main, f"{what}: {root / MAIN}")
    return folder


def on_disk(dest: Path) -> dict[str, tuple[str, int]] | None:
    """``path -> (text, mode)`` of the files under ``dest`` (None when it is no folder or unreadable)."""
    if not dest.is_dir():
        return None
    found = {}
    try:
        for path in sorted(p for p in dest.rglob("*") if p.is_file()):
            found[path.relative_to(dest).as_posix()] = (path.read_text(encoding="utf-8"), stat.S_IMODE(path.stat().st_mode))
    except (OSError, UnicodeDecodeError):
        return None
    return found


def matches(folder: SkillFolder, dest: Path) -> bool:
    """Does ``dest`` hold exactly ``folder``'s files, texts and modes?"""
    return on_disk(dest) == {f.path: (f.content, f.mode) for f in folder.files}


def write_folder(folder: SkillFolder, dest: Path, *, keep_old: Path | None = None,
                 render: Callable[[SkillFile], str] | None = None) -> None:
    """Replace the folder ``dest`` with ``folder``'s files (modes included), all at once.

    The files are written to a hidden sibling and renamed into place; an existing
    ``dest`` is renamed to ``keep_old`` (kept, a backup) or to a hidden sibling that is
    then removed. ``render`` maps a file to the text written for it (default: its content)."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    for stale in [*dest.parent.glob(f".{dest.name}.tmp-*"), *dest.parent.glob(f".{dest.name}.old-*")]:
        shutil.rmtree(stale, ignore_errors=True)  # left by a writer that was killed
    tmp = dest.with_name(f".{dest.name}.tmp-{os.getpid()}")
    try:
        for f in folder.files:
            path = tmp.joinpath(*f.path.split("/"))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render(f) if render else f.content, encoding="utf-8")
            path.chmod(f.mode)
        replace_dir(tmp, dest, keep_old=keep_old)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
