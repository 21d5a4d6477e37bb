"""The DocVQA item and the rules every source shares: resolving image and layout paths.

An item is one question about one page image, with its accepted answers and, when known,
the page's OCR-like text (from the layout the generator drew, or a sidecar file next to the
image for real data). Paths are resolved against ``env.data_dir`` first (when set), then
the folder of the file that names them; a missing file is an error naming the item and
every place looked at.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from skillopt.api import ConfigError
from skillopt_envs_docvqa.layout import ocr_text, read_layout

#: OCR sidecars looked for next to an image (``page.png`` -> ``page.layout.json`` ...)
SIDECAR_SUFFIXES = (".layout.json", ".ocr.txt", ".txt")


@attrs.frozen(kw_only=True)
class DocItem:
    id: str
    question: str
    answers: tuple[str, ...]
    topic: str
    image: Path
    doc_id: str = ""
    ocr: str | None = None  # the page text in reading order, when a layout or OCR file exists


def resolve_path(ref: str, *, bases: list[Path], what: str, where: str) -> Path:
    """``ref`` as an existing file: absolute as is, relative against each of ``bases``."""
    path = Path(ref).expanduser()
    candidates = [path] if path.is_absolute() else [base / path for base in bases]
    for candidate in candidates:
        if candidate.is_file():
            return candidate.resolve()
    tried = ", ".join(str(c) for c in candidates) or ref
    hint = "" if path.is_absolute() else " (set env.data_dir to the folder image paths are relative to)"
    raise ConfigError(f"{where}: {what} not found: {ref!r}; looked at {tried}{hint}")


def search_bases(source_dir: Path, data_dir: str) -> list[Path]:
    bases = [Path(data_dir).expanduser()] if data_dir else []
    return [*bases, source_dir]


def read_ocr_file(path: Path) -> str:
    """OCR text from a layout JSON (the generator's format) or a plain text file."""
    if path.name.endswith(".json"):
        return ocr_text(read_layout(path))
    try:
        return path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the OCR text ({exc})") from exc


def sidecar_ocr(image: Path) -> str | None:
    """OCR text from a file next to the image, if there is one."""
    stem = image.with_suffix("")
    for suffix in SIDECAR_SUFFIXES:
        candidate = stem.with_name(stem.name + suffix)
        if candidate.is_file():
            return read_ocr_file(candidate)
    return None
