"""``schedule`` / ``unschedule``: a user crontab entry that runs tonight's cycle.

The line runs ``<this python> -m skillopt_sleep run --project P …`` from the project
directory and appends to a log in the per-project state dir. Every value is checked
before it goes into the line: control characters, quotes, backslashes and ``%``
(which cron turns into a newline) are refused rather than escaped, so no argument can
smuggle a second command into the crontab. The crontab is read and written through an
injectable command (``crontab -l`` / ``crontab -``) or a plain file, so tests never
touch the real one.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from skillopt.api import ConfigError, SkillOptError

BEGIN = "# >>> skillopt-sleep (managed) >>>"
END = "# <<< skillopt-sleep (managed) <<<"
CRONTAB_FILE_ENV = "SKILLOPT_SLEEP_CRONTAB_FILE"
_UNSAFE = re.compile(r"[\x00-\x1f\x7f'\"\\%`$]")


class ScheduleError(SkillOptError):
    """The crontab could not be read or written."""


def check_value(name: str, value: str) -> str:
    if _UNSAFE.search(value):
        raise ConfigError(
            f"{name}: {value!r} contains a quote, backslash, %, $, ` or control character; refusing to put it in a crontab"
        )
    return value


def project_tag(project: Path) -> str:
    return "project-sha256=" + hashlib.sha256(str(Path(project).resolve()).encode("utf-8")).hexdigest()[:16]


def cron_line(project: Path, *, hour: int, minute: int, args: list[str], log: Path, python: str | None = None) -> str:
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        raise ConfigError("--hour must be 0-23 and --minute 0-59")
    project = Path(project).resolve()
    python = python or sys.executable
    values = [("project", str(project)), ("python", python), ("log", str(log))] + [("argument", a) for a in args]
    for name, value in values:
        check_value(name, value)
    command = " ".join(shlex.quote(part) for part in [python, "-m", "skillopt_sleep", "run", "--project", str(project), *args])
    where = shlex.quote(str(project))
    return f"{minute} {hour} * * * cd {where} && {command} >> {shlex.quote(str(log))} 2>&1 # {project_tag(project)}"


class Crontab:
    """Read/write the user's crontab through a command, or a file when one is given."""

    def __init__(self, file: Path | None = None, command: tuple[str, ...] = ("crontab",)):
        env_file = os.environ.get(CRONTAB_FILE_ENV)
        self.file = Path(file) if file else (Path(env_file) if env_file else None)
        self.command = command

    def read(self) -> str:
        if self.file is not None:
            return self.file.read_text(encoding="utf-8") if self.file.exists() else ""
        try:
            proc = subprocess.run([*self.command, "-l"], capture_output=True, text=True, timeout=30, check=False)
        except FileNotFoundError:
            raise ScheduleError(
                f"{self.command[0]!r} is not installed; use `skillopt sleep schedule --print` and add the line yourself"
            ) from None
        if proc.returncode != 0 and "no crontab" not in proc.stderr.lower():
            raise ScheduleError(f"crontab -l failed: {proc.stderr.strip()[:200]}")
        return proc.stdout if proc.returncode == 0 else ""

    def write(self, text: str) -> None:
        if self.file is not None:
            self.file.write_text(text, encoding="utf-8")
            return
        proc = subprocess.run([*self.command, "-"], input=text, capture_output=True, text=True, timeout=30, check=False)
        if proc.returncode != 0:
            raise ScheduleError(f"crontab - failed: {proc.stderr.strip()[:200]}")


def _split(text: str) -> tuple[list[str], list[str]]:
    """(lines outside the managed block, lines inside it)."""
    outside, inside, in_block = [], [], False
    for line in text.splitlines():
        if line.strip() == BEGIN:
            in_block = True
        elif line.strip() == END:
            in_block = False
        elif in_block:
            inside.append(line)
        else:
            outside.append(line)
    return outside, inside


def _join(outside: list[str], inside: list[str]) -> str:
    lines = list(outside)
    if inside:
        lines += [BEGIN, *inside, END]
    return "\n".join(lines).rstrip("\n") + "\n" if lines else ""


def install(crontab: Crontab, project: Path, line: str) -> str:
    """Add (or replace) this project's line in the managed block; returns the new crontab."""
    outside, inside = _split(crontab.read())
    tag = project_tag(project)
    inside = [entry for entry in inside if not entry.endswith(tag)] + [line]
    text = _join(outside, inside)
    crontab.write(text)
    return text


def remove(crontab: Crontab, project: Path, *, everything: bool = False) -> int:
    """Remove this project's line (or the whole managed block); returns lines removed."""
    outside, inside = _split(crontab.read())
    tag = project_tag(project)
    kept = [] if everything else [entry for entry in inside if not entry.endswith(tag)]
    crontab.write(_join(outside, kept))
    return len(inside) - len(kept)
