"""The run directory: every file needed to inspect and resume a run.

All writes are atomic (temp file + rename) so a kill at any instant leaves either the
old or the new version of a file, never half of one. Per-item logs are append-only
JSONL; a torn last line is ignored on read.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from skillopt.errors import ConfigError
from skillopt.fsio import read_json_lines, write_atomic
from skillopt.redact import redact_data, redact_text

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(text: str, limit: int = 80) -> str:
    """A file-name-safe version of an item id (``train:0000`` -> ``train_0000``)."""
    name = _SAFE.sub("_", text).strip("._") or "item"
    return name[:limit]


def write_text(path: Path, text: str) -> None:
    write_atomic(path, text)


def write_json(path: Path, data: Any, *, redacted: bool = False) -> None:
    """Atomic JSON write; every string is scrubbed of secrets on the way out (unless the
    caller already did: ``redacted``, for data written to two files)."""
    write_text(path, json.dumps(data if redacted else redact_data(data), indent=2, ensure_ascii=False, default=str) + "\n")


class RunFileError(ConfigError):
    """A run file that cannot be read as what it must be: the message names the file,
    what is wrong with it and what to do; nothing else in the run directory is touched."""


def read_json(path: Path, default: Any = None, *, expect: type | None = None) -> Any:
    """The JSON in ``path`` (``default`` when it does not exist); a damaged or wrongly
    shaped file raises :class:`RunFileError` instead of a traceback."""
    advice = "move it aside (or restore it) and re-run; the run directory's other files are kept"
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return default
    except IsADirectoryError:
        raise RunFileError(f"{path} is a directory, not a file; {advice}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise RunFileError(f"{path} is not UTF-8 text (byte {exc.start}); {advice}") from None
    except json.JSONDecodeError as exc:
        where = f"truncated at byte {len(raw)}" if exc.pos >= len(raw.rstrip()) else f"damaged at byte {exc.pos}"
        raise RunFileError(f"{path} is not valid JSON ({where}); {advice}") from None
    if expect is not None and not isinstance(data, expect):
        raise RunFileError(f"{path} holds a JSON {type(data).__name__}, not the {expect.__name__} a run writes there; {advice}")
    return data


def move_aside(path: Path) -> Path:
    """Rename a damaged file to ``NAME.damaged-YYYYmmdd-HHMMSS`` beside it (kept for the
    user to inspect, never deleted) and return the new path."""
    import time

    from skillopt.fsio import move_aside as rename_aside

    return rename_aside(path, path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}"))


RESTART_ADVICE = "restore it, or move runtime_state.json aside to restart the run from its baseline (every saved result is re-used)"


def read_text_file(path: Path, advice: str = RESTART_ADVICE) -> str:
    """A run's text file (a skill version); unreadable content raises :class:`RunFileError`
    ending with ``advice``."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RunFileError(f"{path} is missing; {advice}") from None
    except IsADirectoryError:
        raise RunFileError(f"{path} is a directory, not a file; {advice}") from None
    except UnicodeDecodeError as exc:
        raise RunFileError(f"{path} is not UTF-8 text (byte {exc.start}); {advice}") from None


def append_jsonl(path: Path, record: dict[str, Any], *, redacted: bool = False) -> None:
    append_line(path, json.dumps(record if redacted else redact_data(record), ensure_ascii=False, default=str))


def append_line(path: Path, line: str) -> None:
    """Append one line (already JSON, already redacted) to an append-only log."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")
        fh.flush()


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every record of an append-only log; damaged lines (not a torn tail) are skipped
    with a warning naming them."""
    out, damaged = read_json_lines(path, lambda record: isinstance(record, dict))
    if damaged:
        from skillopt.report import warn

        shown = ", ".join(map(str, damaged[:5])) + (f" and {len(damaged) - 5} more" if len(damaged) > 5 else "")
        warn(f"{path}: line {shown} is damaged and was skipped (what it recorded is redone or not counted)")
    return out


#: the run directory's layout, numbered when a documented file moves (``summary.json`` →
#: ``run_layout``; what moved from each layout to the next: docs/run-layout.md)
RUN_LAYOUT = 2
#: what a step keeps at its first-layout path, for plugins and tests written against it
GATE_VERDICT = "gate_verdict.json"


class RunDir:
    """Paths of a run directory (upstream-compatible names)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def ensure(self) -> RunDir:
        if self.root.exists() and not self.root.is_dir():
            raise ConfigError(f"--out {self.root} is a file, not a run directory; pass a new folder or an existing run's folder")
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot create the run directory {self.root}: {exc.strerror or exc}") from None
        return self

    @property
    def config(self) -> Path:
        return self.root / "config.json"

    @property
    def history(self) -> Path:
        return self.root / "history.json"

    @property
    def state(self) -> Path:
        return self.root / "runtime_state.json"

    @property
    def summary(self) -> Path:
        return self.root / "summary.json"

    @property
    def best_skill(self) -> Path:
        return self.root / "best_skill.md"

    @property
    def scores(self) -> Path:
        return self.root / "score_book.json"

    @property
    def usage(self) -> Path:
        return self.root / "usage.jsonl"

    def skill_version(self, step: int) -> Path:
        return self.root / "skills" / f"skill_v{step:04d}.md"

    def step_dir(self, step: int) -> Path:
        return self.root / "steps" / f"step_{step:04d}"

    def epoch_dir(self, kind: str, epoch: int) -> Path:
        return self.root / kind / f"epoch_{epoch:02d}"

    def write_skill(self, path: Path, text: str) -> None:
        """A skill version (secrets masked). A folder skill is saved as its canonical text
        (what the state's hash covers) and unpacked beside it: ``NAME.md`` -> ``NAME/``."""
        text = redact_text(text)
        write_text(path, text)
        self.write_view(path, text)

    def write_view(self, path: Path, text: str) -> None:
        """The unpacked folder of the folder skill saved at ``path``, rewritten only when
        it differs (a kill between the two writes leaves it stale; a resume heals it)."""
        from skillopt.skillfolder import SkillFolder, skill_of
        from skillopt.skillfolder.disk import matches, write_folder

        if path.suffix != ".md":
            return
        try:
            folder = skill_of(text, str(path))
        except ConfigError as exc:  # a masked secret broke a marker: the text is still saved
            from skillopt.report import warn

            warn(f"{exc}; its folder was not unpacked")
            return
        if not isinstance(folder, SkillFolder):
            return
        view = path.with_suffix("")
        if not matches(folder, view):
            try:
                write_folder(folder, view)
            except OSError as exc:  # a name the file system refuses (a run an earlier release let write one)
                from skillopt.report import warn

                warn(f"{path.name}: its folder {view.name}/ could not be unpacked ({exc.strerror or exc}); "
                     "the version's text is saved and the run goes on")
