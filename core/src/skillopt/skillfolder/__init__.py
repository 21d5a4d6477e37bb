"""Multi-file skills: an Agent Skills folder carried through the engine as one text.

A skill may be a folder in the Agent Skills layout: ``SKILL.md`` (``name`` and
``description`` front matter, then the instructions), ``references/NAME.md`` (read
when needed) and ``scripts/NAME`` (run by the agent). The engine treats a skill as one
value everywhere (its hash, the gate, the score book, the call cache, resume, the step
buffer), so a folder travels as its *canonical text*: every file after a marker line
``<!-- skillopt:file PATH -->`` (``mode=NNN`` added for a file that is not ``0644``),
``SKILL.md`` first, references and scripts after it in path order, each file ending
with a newline. A text is a folder skill exactly when it starts with the ``SKILL.md``
marker; any other text is a single-file skill and is handled as before.

:class:`SkillFolder` is the parsed view; this module also holds the path rules (what
exists, what the optimizer may edit or create) and what a target sees of a folder
(:func:`render_inline`, :func:`render_installed`).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

import attrs

from skillopt.errors import ConfigError
from skillopt.records import SkillFile

if TYPE_CHECKING:
    from collections.abc import Iterable

MAIN = "SKILL.md"
REFERENCES, SCRIPTS = "references", "scripts"
DEFAULT_MODE = 0o644
_MARKER = re.compile(r"^<!-- skillopt:file (?P<path>\S+)(?: mode=(?P<mode>[0-7]{3}))? -->$", re.MULTILINE)
HEAD = f"<!-- skillopt:file {MAIN} -->\n"
_NAME_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(?P<yaml>.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
#: Agent Skills: a skill's name is 1-64 lowercase letters, digits and single hyphens
NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_NAME, MAX_DESCRIPTION = 64, 1024
#: the longest ``target_file`` an edit may name (the edit schema's ``maxLength``): far below
#: a file system's 255-byte name limit, so every file an edit creates can be written
MAX_PATH_CHARS = 200
LAYOUT = f"{MAIN}, {REFERENCES}/NAME.md, {SCRIPTS}/NAME"


def is_folder(text: str) -> bool:
    """Is ``text`` the canonical text of a folder skill?"""
    return text.startswith(HEAD)


def marker(path: str, mode: int = DEFAULT_MODE) -> str:
    return f"<!-- skillopt:file {path}{'' if mode == DEFAULT_MODE else f' mode={mode:03o}'} -->"


def file_marker(line: str) -> str | None:
    """The path a file-marker line opens, or None for any other line."""
    found = _MARKER.match(line)
    return found.group("path") if found and found.end() == len(line) else None


def strip_file_markers(text: str) -> str:
    """``text`` without file-marker lines (edit content must not split a file in two)."""
    return _MARKER.sub("", text).replace("\n\n\n", "\n\n") if _MARKER.search(text) else text


# ------------------------------------------------------------------ path rules


def path_problem(path: str) -> str:
    """Why ``path`` is not a file of the layout ('' when it is one)."""
    if not path:
        return "an empty path"
    if "\\" in path:
        return "a path with a backslash (use '/')"
    pure = PurePosixPath(path)
    if pure.is_absolute() or re.match(r"^[A-Za-z]:", path):
        return "an absolute path"
    parts = path.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return "a path with an empty, '.' or '..' part"
    if path == MAIN:
        return ""
    if len(parts) == 2 and _NAME_PART.match(parts[1]):
        if parts[0] == REFERENCES and parts[1].endswith(".md"):
            return ""
        if parts[0] == SCRIPTS:
            return ""
    return f"not in the Agent Skills layout ({LAYOUT})"


def is_script(path: str) -> bool:
    return path.startswith(f"{SCRIPTS}/")


def _order(path: str) -> tuple[int, str]:
    return (0 if path == MAIN else 1 if path.startswith(f"{REFERENCES}/") else 2, path)


def _normal(content: str) -> str:
    return content if not content or content.endswith("\n") else content + "\n"


# ------------------------------------------------------------------ front matter


def split_front_matter(text: str) -> tuple[str, str]:
    """(front matter block with its closing line, the rest) of a ``SKILL.md``."""
    found = FRONT_MATTER.match(text)
    return (text[: found.end()], text[found.end() :]) if found else ("", text)


def front_matter_fields(front: str, where: str) -> dict[str, Any]:
    """The front matter's keys (YAML); a broken block is a ConfigError naming ``where``."""
    import yaml

    found = FRONT_MATTER.match(front)
    if not found:
        return {}
    from skillopt.config.bounded import load_yaml

    try:
        data = load_yaml(found.group("yaml"), f"{where}: the front matter") or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{where}: the front matter is not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: the front matter must be YAML keys (name: ..., description: ...)")
    return data


def check_front_matter(main: str, where: str) -> None:
    """A folder's ``SKILL.md`` must name itself and say when to use it (Agent Skills)."""
    front, _ = split_front_matter(main)
    if not front:
        raise ConfigError(f"{where}: SKILL.md must start with front matter (---, name: ..., description: ..., ---)")
    data = front_matter_fields(front, where)
    name, description = data.get("name"), data.get("description")
    if not isinstance(name, str) or not NAME.match(name) or len(name) > MAX_NAME:
        raise ConfigError(f"{where}: front matter 'name' must be 1-{MAX_NAME} lowercase letters, digits and single "
                          f"hyphens, not {name!r}")
    if not isinstance(description, str) or not description.strip() or len(description) > MAX_DESCRIPTION:
        raise ConfigError(f"{where}: front matter 'description' must be 1-{MAX_DESCRIPTION} characters saying when "
                          "to use the skill")


# ------------------------------------------------------------------ the folder


@attrs.frozen(kw_only=True)
class SkillFolder:
    """A folder skill's files, ``SKILL.md`` first (see the module docstring)."""

    #: the files in canonical order: ``SKILL.md``, then ``references/`` and ``scripts/`` by path
    files: tuple[SkillFile, ...]

    @classmethod
    def of(cls, files: Iterable[SkillFile]) -> SkillFolder:
        """A folder of ``files`` (any order), each path checked, contents ending in a newline."""
        seen: dict[str, SkillFile] = {}
        for f in files:
            problem = path_problem(f.path)
            if problem:
                raise ConfigError(f"skill file {f.path!r}: {problem}")
            if f.path in seen:
                raise ConfigError(f"skill file {f.path!r} appears twice")
            if _MARKER.search(f.content):
                raise ConfigError(f"skill file {f.path!r} holds a line of the form <!-- skillopt:file ... -->, which "
                                  "separates a folder skill's files; remove it")
            seen[f.path] = attrs.evolve(f, content=_normal(f.content))
        if MAIN not in seen:
            raise ConfigError(f"a folder skill needs {MAIN}")
        return cls(files=tuple(seen[p] for p in sorted(seen, key=_order)))

    @classmethod
    def parse(cls, text: str, where: str = "skill") -> SkillFolder:
        """The folder whose canonical text is ``text``; a malformed one is a ConfigError naming ``where``."""
        if not is_folder(text):
            raise ConfigError(f"{where}: not a folder skill (it does not start with {HEAD.strip()})")
        found = list(_MARKER.finditer(text))
        files = []
        for i, m in enumerate(found):
            end = found[i + 1].start() if i + 1 < len(found) else len(text)
            content = text[m.end() + 1 : end] if m.end() < len(text) else ""
            mode = int(m.group("mode"), 8) if m.group("mode") else DEFAULT_MODE
            files.append(SkillFile(path=m.group("path"), content=content, mode=mode))
        try:
            return cls.of(files)
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None

    def text(self) -> str:
        """The canonical text (what the engine hashes, saves and passes around)."""
        return "".join(f"{marker(f.path, f.mode)}\n{f.content}" for f in self.files)

    # -------------------------------------------------------------- views

    def file(self, path: str) -> SkillFile | None:
        """The file at ``path``, or None."""
        return next((f for f in self.files if f.path == path), None)

    @property
    def main(self) -> str:
        """``SKILL.md``'s text, front matter included."""
        found = self.file(MAIN)
        return found.content if found else ""

    @property
    def front_matter(self) -> str:
        """``SKILL.md``'s front matter block (``---`` lines included); protected from edits."""
        return split_front_matter(self.main)[0]

    @property
    def body(self) -> str:
        """``SKILL.md`` without its front matter."""
        return split_front_matter(self.main)[1]

    def field(self, key: str) -> str:
        """A front-matter value as one line ('' when absent)."""
        value = front_matter_fields(self.front_matter, MAIN).get(key)
        return " ".join(str(value).split()) if value is not None else ""

    @property
    def name(self) -> str:
        """The front matter's ``name`` (how agents name the skill)."""
        return self.field("name")

    @property
    def description(self) -> str:
        """The front matter's ``description`` (when agents load the skill)."""
        return self.field("description")

    @property
    def references(self) -> tuple[SkillFile, ...]:
        """The ``references/*.md`` files, by path."""
        return tuple(f for f in self.files if f.path.startswith(f"{REFERENCES}/"))

    @property
    def scripts(self) -> tuple[SkillFile, ...]:
        """The ``scripts/*`` files, by path (read-only to the optimizer)."""
        return tuple(f for f in self.files if is_script(f.path))

    @property
    def others(self) -> tuple[SkillFile, ...]:
        """Every file but ``SKILL.md``: what a harness installs beside the instructions."""
        return tuple(f for f in self.files if f.path != MAIN)

    # -------------------------------------------------------------- changes

    def with_file(self, path: str, content: str) -> SkillFolder:
        """This folder with ``path`` holding ``content`` (added when new; mode kept)."""
        old = self.file(path)
        new = SkillFile(path=path, content=content, mode=old.mode if old else DEFAULT_MODE)
        return SkillFolder.of([*(f for f in self.files if f.path != path), new])

    def with_body(self, body: str) -> SkillFolder:
        """This folder with ``SKILL.md``'s body replaced (its front matter kept)."""
        return self.with_file(MAIN, self.front_matter + body)

    def without(self, path: str) -> SkillFolder:
        """This folder without ``path``."""
        return SkillFolder.of([f for f in self.files if f.path != path])


# ------------------------------------------------------------------ the two kinds of skill


@attrs.frozen
class SingleFile:
    """A single-file skill: one markdown text (the paper's skill document)."""

    #: the skill's text
    text: str


#: a skill is one of two kinds; the engine carries either as its text (hash, cache, resume)
Skill = SingleFile | SkillFolder


def skill_of(text: str, where: str = "skill") -> Skill:
    """The kind of skill ``text`` is, parsed: a :class:`SkillFolder` when it is a folder
    skill's canonical text (see the module docstring), else a :class:`SingleFile`. The one
    place the two are told apart; code that treats them differently asks this and
    dispatches on the value. A broken folder text is a ConfigError naming ``where``."""
    return SkillFolder.parse(text, where) if is_folder(text) else SingleFile(text)


# ------------------------------------------------------------------ what a target sees


def render_inline(folder: SkillFolder) -> str:
    """A folder as a chat target reads it in its system prompt: ``SKILL.md``'s body
    (no front matter), then each reference file under ``## Reference: references/NAME.md``,
    separated by blank lines. Scripts are left out: a chat target cannot run them."""
    parts = [folder.body.strip("\n")]
    parts += [f"## Reference: {ref.path}\n\n{ref.content.strip(chr(10))}" for ref in folder.references]
    return "\n\n".join(p for p in parts if p.strip()) + "\n"


def render_installed(folder: SkillFolder) -> str:
    """The system text for a target whose harness installs the folder's other files in
    its workspace (an agent CLI in agent mode): ``SKILL.md``'s body, then a line naming
    those files, which the agent reads (or runs) from its working directory."""
    body = folder.body.strip("\n")
    others = [f.path for f in folder.others]
    if not others:
        return body + "\n"
    note = "## Files of this skill\nIn the working directory: " + ", ".join(others) + "."
    return "\n\n".join(p for p in (body, note) if p) + "\n"
