"""The document roots and the confinement rules every tool path goes through.

Roots come from ``env.data_dirs``, then ``$OFFICEQA_DOCS_DIR`` (``os.pathsep``-separated),
then the bundled sample's ``docs`` folder when the items are the bundled ones. There is no
fallback into anyone's home directory (upstream probes ``~``).

A tool path is accepted only if it is relative, resolves (symlinks followed) to a regular
file inside one of the roots, and, when the item lists ``source_files``, its base name is
one of them. Every refusal is a :class:`ToolError` whose message the agent sees.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath, PureWindowsPath

import attrs

ENV_VAR = "OFFICEQA_DOCS_DIR"
MAX_INDEXED_FILES = 100_000


class ToolError(Exception):
    """A tool call that cannot be served; its message goes back to the agent as the result."""


def roots_from(data_dirs: Iterable[str], *, environ: dict[str, str] | None = None, bundled: Path | None = None) -> tuple[Path, ...]:
    """The configured roots that exist, in priority order (no home-directory fallbacks)."""
    env = os.environ if environ is None else environ
    candidates = [Path(d).expanduser() for d in data_dirs if str(d).strip()]
    candidates += [Path(p).expanduser() for p in env.get(ENV_VAR, "").split(os.pathsep) if p.strip()]
    if bundled is not None:
        candidates.append(bundled)
    seen: list[Path] = []
    for path in candidates:
        if path.is_dir():
            real = path.resolve()
            if real not in seen:
                seen.append(real)
    return tuple(seen)


@attrs.frozen
class DocsIndex:
    """The files under the roots, indexed once (upstream walks the tree for every item)."""

    roots: tuple[Path, ...]
    files: tuple[tuple[Path, str], ...]  # (root, posix path relative to it)

    @classmethod
    def build(cls, roots: tuple[Path, ...]) -> DocsIndex:
        files: list[tuple[Path, str]] = []
        for root in roots:
            for folder, dirs, names in os.walk(root):  # does not descend into symlinked folders
                dirs.sort()
                for name in sorted(names):
                    rel = (Path(folder) / name).relative_to(root).as_posix()
                    files.append((root, rel))
                    if len(files) > MAX_INDEXED_FILES:
                        raise ToolError(f"more than {MAX_INDEXED_FILES} files under the document roots; point env.data_dirs at the corpus folder")
        return cls(roots=roots, files=tuple(files))

    def find_by_name(self, name: str) -> Path | None:
        """The first indexed file whose base name is ``name`` (roots in priority order)."""
        for root, rel in self.files:
            if PurePosixPath(rel).name == name:
                return root / rel
        return None

    def visible(self, allowed: tuple[str, ...]) -> list[str]:
        """Relative paths the agent may see (all files when ``allowed`` is empty)."""
        return [rel for _, rel in self.files if not allowed or PurePosixPath(rel).name in allowed]

    def resolve(self, path: str, allowed: tuple[str, ...]) -> Path:
        """The real file behind a tool ``path``, or a ToolError saying why it is refused."""
        text = str(path or "").strip()
        if not text:
            raise ToolError("missing 'path': give a file name such as the ones glob('*.txt') lists")
        if len(text) > 512:
            raise ToolError(f"the path is {len(text)} characters long; give a file name as glob lists them")
        if "\x00" in text:
            raise ToolError("invalid path (NUL byte)")
        if PurePosixPath(text).is_absolute() or PureWindowsPath(text).is_absolute() or PureWindowsPath(text).drive:
            raise ToolError(f"absolute paths are not allowed ({text!r}); use a path relative to the documents folder, as glob lists them")
        if not self.roots:
            raise ToolError("no document folder is configured (set env.data_dirs or $OFFICEQA_DOCS_DIR)")
        name = PurePosixPath(text.replace("\\", "/")).name
        if allowed and name not in allowed:
            raise ToolError(f"{text!r} is not a document of this question; allowed: {', '.join(allowed)}")
        candidates = [root / text for root in self.roots]
        if "/" not in text.replace("\\", "/"):
            found = self.find_by_name(text)
            if found is not None:
                candidates.append(found)
        outside = False
        for candidate in candidates:
            try:
                real = Path(os.path.realpath(candidate))
            except (OSError, ValueError):
                continue
            root = next((r for r in self.roots if real == r or real.is_relative_to(r)), None)
            if root is None:
                if os.path.lexists(candidate):
                    outside = True
                continue
            if real.is_file():
                return real
        if outside or ".." in PurePosixPath(text.replace("\\", "/")).parts:
            raise ToolError(f"{text!r} resolves outside the document folder; only files inside it can be opened")
        raise ToolError(f"no such file: {text!r}; use glob to list the available documents")


#: bytes of one line a tool looks at; a longer "line" is read in pieces (memory stays bounded)
MAX_LINE_BYTES = 64 * 1024


def iter_lines(path: Path):
    """A document's lines, streamed (a 300 MB file is never held in memory); non-UTF-8
    bytes and unreadable files are ToolErrors the agent sees."""
    try:
        with open(path, "rb") as fh:
            while True:
                raw = fh.readline(MAX_LINE_BYTES)
                if not raw:
                    return
                try:
                    yield raw.decode("utf-8").rstrip("\r\n")
                except UnicodeDecodeError as exc:
                    raise ToolError(f"{path.name} is not UTF-8 text (byte {exc.start} of a line); it cannot be read with these tools") from None
    except OSError as exc:
        raise ToolError(f"{path.name} cannot be read ({exc.strerror or exc})") from None


def read_text(path: Path) -> str:
    """A document's text; non-UTF-8 bytes are a ToolError, not a crash of the item."""
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(f"{path.name} is not UTF-8 text (byte {exc.start}); it cannot be read with these tools") from None
    except OSError as exc:
        raise ToolError(f"{path.name} cannot be read ({exc.strerror or exc})") from None
