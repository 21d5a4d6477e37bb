"""Finding the sections of a Markdown answer, for the ``section_present`` and
``section_contains`` checks.

An answer's sections are its headings: ATX (``## Summary``), setext (a line
underlined with ``===`` or ``---``), a bold line (``**Summary**``) and a label line
(``Summary: …``). Headings inside fenced code blocks are code, not sections.

Names are compared after Unicode NFKC normalisation and case folding, so
``## ZUSAMMENFASSUNG``, ``## Résumé`` and a full-width ``## 总结：`` match the names a
developer writes. ``section_present`` is strict about *which* section it is: the
heading's title, once its numbering (``1.``, ``2.3)``, ``IV.``, ``(a)``) and its
annotation (``(optional)``, ``— details``, ``: subtitle``, ``[draft]``) are set aside,
must be the name itself, so "## Summary of risks" is not a "Summary" section.
``section_contains`` only asks that some heading's text contains the name (numbering,
translations and subtitles allowed), never body text.
"""

from __future__ import annotations

import re
import unicodedata

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_BOLD = re.compile(r"^ {0,3}(?:\*\*|__)(.+?)(?:\*\*|__)[ \t]*:?[ \t]*$")
_LABEL = re.compile(r"^ {0,3}([^\s:#*>|`-][^:]{0,80}?)[ \t]*:(?:[ \t]|$)")
_NUMBERING = re.compile(
    r"^(?:"
    r"(?:\d+[.)])+(?:\d+)?"  # 1.  2)  1.2.  1.2
    r"|\d+(?:\.\d+)+"  # 1.2 without a trailing dot
    r"|[ivxlcdm]+[.)]"  # iv.  ii)
    r"|\(?[a-z\d][.)]"  # a)  (a)  b.
    r"|§\s*\d+(?:\.\d+)*"  # §2
    r"|(?:step|part|section|chapter|schritt|teil|étape|partie|paso|parte)\s+\d+[.:)]?"
    r"|第\s*[\d一二三四五六七八九十]+\s*[章节部步]"  # 第一章 / 第2节
    r")\s*",
    re.IGNORECASE,
)
# an annotation starts at one of these and runs to the end of the title
_ANNOTATION = re.compile(r"\s*(?:[(\[{<]|[-–—:|/]\s|[-–—]$|:$).*$")
_EMPHASIS = re.compile(r"[*_`~]+")
#: a label line ("Summary: …") names a section only when the label is this short
MAX_LABEL_WORDS = 4


def norm(text: str) -> str:
    """NFKC, case-folded, inner whitespace collapsed: the form names are compared in."""
    return " ".join(unicodedata.normalize("NFKC", text or "").casefold().split())


def headings(answer: str, *, labels: bool = True) -> list[str]:
    """The heading texts of ``answer`` — ATX, setext, bold lines and (with ``labels``)
    short ``Name:`` label lines — outside fenced code blocks, markup removed."""
    found: list[str] = []
    fence = ""
    previous, previous_heading = "", False
    for line in (answer or "").splitlines():
        opening = _FENCE.match(line)
        if fence or opening:
            if not fence:
                fence = opening.group(1)
            elif opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = ""
            previous, previous_heading = "", False
            continue
        text = None
        atx = _ATX.match(line)
        if atx:
            text = atx.group(1) or ""
        elif _SETEXT.match(line) and previous.strip() and not previous_heading:
            text = previous.strip()
        else:
            bold = _BOLD.match(line)
            label = _LABEL.match(line) if labels and not bold else None
            if bold:
                text = bold.group(1)
            elif label and len(label.group(1).split()) <= MAX_LABEL_WORDS:
                text = label.group(1)
        if text is not None:
            found.append(_EMPHASIS.sub("", text).strip())
        previous, previous_heading = line, text is not None
    return found


def title(heading: str) -> str:
    """A heading's title: normalised, without its numbering and its annotation."""
    text = norm(heading)
    text = _NUMBERING.sub("", text, count=1)
    text = _ANNOTATION.sub("", text)
    return text.strip(" .:")


def section_present(answer: str, name: str) -> bool:
    """Some heading *is* the section ``name`` (numbering and annotations aside)."""
    wanted = title(name) or norm(name)
    return bool(wanted) and any(title(h) == wanted for h in headings(answer))


def section_contains(answer: str, name: str) -> bool:
    """Some heading's text contains ``name`` (body text never counts)."""
    wanted = norm(name)
    return bool(wanted) and any(wanted in norm(h) for h in headings(answer, labels=False))
