"""Oracle pages: the gold page of each source document, rendered for the prompt.

The page number comes from the ``?page=N`` of each ``source_docs`` entry; the page's
elements are read from the parsed-JSON twin (``jsons/<stem>.json`` next to the text file,
elements with ``bbox[].page_id``; HTML tables become Markdown). When no twin exists, the
page is cut from the text file at its ``=== Page N ===`` markers. Each page is capped at
``page_chars`` and all pages together at ``total_chars``.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from skillopt_envs_officeqa.docs import DocsIndex, ToolError, read_text

_PAGE = re.compile(r"[?&]page=(\d+)", re.IGNORECASE)
_MARKER = re.compile(r"^=== Page (\d+) ===$", re.MULTILINE)


def page_of(doc: str) -> int | None:
    m = _PAGE.search(doc or "")
    return int(m.group(1)) if m else None


def gold_pages(source_files: tuple[str, ...], source_docs: tuple[str, ...]) -> list[tuple[str, int]]:
    """``(file name, page)`` pairs: docs pair with files by position, or all with the only file."""
    pairs = []
    for i, doc in enumerate(source_docs):
        page = page_of(doc)
        if page is None or not source_files:
            continue
        if len(source_files) == len(source_docs):
            name = source_files[i]
        elif len(source_files) == 1:
            name = source_files[0]
        else:
            stamp = re.search(r"(\d{4})[-_](\d{2})", doc)
            key = f"{stamp.group(1)}_{stamp.group(2)}" if stamp else ""
            name = next((f for f in source_files if key and key in f), source_files[0])
        if (name, page) not in pairs:
            pairs.append((name, page))
    return pairs


class _TableToMarkdown(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None
        self._span = 1

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []
            span = dict(attrs).get("colspan") or "1"
            self._span = int(span) if str(span).isdigit() else 1

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            if not self.rows:
                self.rows.append([])
            text = " ".join("".join(self._cell).split()).replace("|", "\\|")
            self.rows[-1].extend([text] * max(self._span, 1))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def html_table_to_markdown(html: str) -> str:
    parser = _TableToMarkdown()
    parser.feed(html)
    rows = [r for r in parser.rows if r]
    if not rows:
        return re.sub(r"<[^>]+>", " ", html).strip()
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)


def _elements(twin: dict) -> list[dict]:
    if isinstance(twin.get("elements"), list):
        return twin["elements"]
    doc = twin.get("document")
    if isinstance(doc, dict) and isinstance(doc.get("elements"), list):
        return doc["elements"]
    return []


def page_from_twin(twin: dict, page: int) -> str:
    parts = []
    for element in _elements(twin):
        boxes = element.get("bbox") or []
        if not any(isinstance(b, dict) and b.get("page_id") == page for b in boxes):
            continue
        content = str(element.get("content") or "")
        parts.append(html_table_to_markdown(content) if "<table" in content.lower() else content)
    return "\n\n".join(p for p in parts if p.strip())


def page_from_text(text: str, page: int) -> str:
    marks = list(_MARKER.finditer(text))
    for i, m in enumerate(marks):
        if int(m.group(1)) == page:
            end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
            return text[m.end() : end].strip("\n")
    return ""


def render_page(index: DocsIndex, name: str, page: int, allowed: tuple[str, ...]) -> str:
    """One gold page as text (twin first, then the text file's markers); '' when unavailable."""
    try:
        real = index.resolve(name, allowed)
    except ToolError:
        return ""
    twin_path = real.parent / "jsons" / f"{Path(name).stem}.json"
    if twin_path.is_file():
        try:
            rendered = page_from_twin(json.loads(read_text(twin_path)), page)
        except (ToolError, json.JSONDecodeError, AttributeError):
            rendered = ""
        if rendered:
            return rendered
    try:
        return page_from_text(read_text(real), page)
    except ToolError:
        return ""


def oracle_context(index: DocsIndex, source_files: tuple[str, ...], source_docs: tuple[str, ...], *,
                   page_chars: int, total_chars: int) -> str:  # fmt: skip
    """The gold pages as prompt sections, within the character caps."""
    sections = []
    used = 0
    for name, page in gold_pages(source_files, source_docs):
        body = render_page(index, name, page, source_files) or "(this page is not available)"
        if len(body) > page_chars:
            body = body[:page_chars].rstrip() + "\n[... page cut ...]"
        section = f"### {name}, page {page}\n{body}"
        if used + len(section) > total_chars:
            room = total_chars - used
            if room < 200:
                break
            section = section[:room].rstrip() + "\n[... cut ...]"
        sections.append(section)
        used += len(section)
    return "\n\n".join(sections)
