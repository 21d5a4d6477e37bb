"""The agent's three document tools, pure local Python over a :class:`DocsIndex`.

``glob(pattern)``: matching document paths (at most 50). ``read(path, start=1, limit=80)``:
a numbered line window (at most 4000 characters). ``grep(pattern, path)``: lines holding
the case-insensitive literal ``pattern`` (at most 20). Arguments are validated (numbers as
strings are coerced); every problem is a :class:`ToolError` whose text the agent sees.
"""

from __future__ import annotations

import fnmatch
from pathlib import PurePosixPath
from typing import Any

from skillopt_envs_officeqa.docs import DocsIndex, ToolError, iter_lines

MAX_GLOB = 50
MAX_READ_CHARS = 4000
DEFAULT_READ_LINES = 80
MAX_READ_LINES = 400
MAX_GREP_LINES = 20
MAX_LINE_CHARS = 300
#: files a grep over every document names when it skips them (the count is always given)
MAX_SKIPPED_NAMED = 5

TOOL_NAMES = ("glob", "read", "grep")
PARAMETERS = {"glob": ("pattern",), "read": ("path", "start", "limit"), "grep": ("pattern", "path")}


def _int(args: dict[str, Any], key: str, default: int, low: int, high: int | None = None) -> int:
    raw = args.get(key, default)
    if raw is None or raw == "":
        return default
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise ToolError(f"'{key}' must be a whole number, not {raw!r}") from None
    if value < low or (high is not None and value > high):
        raise ToolError(f"'{key}' must be between {low} and {high}" if high else f"'{key}' must be at least {low}")
    return value


def _text_arg(args: dict[str, Any], key: str, required: bool = True) -> str:
    raw = args.get(key)
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        if required:
            raise ToolError(f"missing '{key}'")
        return ""
    if not isinstance(raw, str | int | float):
        raise ToolError(f"'{key}' must be a string, not {type(raw).__name__}")
    return str(raw)


def run_tool(index: DocsIndex, allowed: tuple[str, ...], name: str, args: dict[str, Any]) -> str:
    """Run one tool call and return its text result; raises ToolError on any bad call."""
    if name not in TOOL_NAMES:
        raise ToolError(f"unknown tool {name!r}; the tools are {', '.join(TOOL_NAMES)}")
    if not isinstance(args, dict):
        raise ToolError(f"arguments of {name} must be an object such as {{\"{PARAMETERS[name][0]}\": ...}}")
    unknown = sorted(set(args) - set(PARAMETERS[name]))
    if unknown:
        raise ToolError(f"{name} takes {', '.join(PARAMETERS[name])}; unknown argument(s): {', '.join(unknown)}")
    if name == "glob":
        return glob(index, allowed, _text_arg(args, "pattern"))
    if name == "read":
        return read(index, allowed, _text_arg(args, "path"), _int(args, "start", 1, 1), _int(args, "limit", DEFAULT_READ_LINES, 1, MAX_READ_LINES))
    return grep(index, allowed, _text_arg(args, "pattern"), _text_arg(args, "path", required=False))


def glob(index: DocsIndex, allowed: tuple[str, ...], pattern: str) -> str:
    pattern = pattern.strip().lstrip("./") or "*"
    matches = [rel for rel in index.visible(allowed)
               if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(PurePosixPath(rel).name, pattern)]  # fmt: skip
    if not matches:
        return f"no files match {pattern!r}"
    shown = matches[:MAX_GLOB]
    more = f"\n... {len(matches) - MAX_GLOB} more not shown; use a narrower pattern" if len(matches) > MAX_GLOB else ""
    return "\n".join(shown) + more


def read(index: DocsIndex, allowed: tuple[str, ...], path: str, start: int = 1, limit: int = DEFAULT_READ_LINES) -> str:
    real = index.resolve(path, allowed)
    out: list[str] = []
    used, end, total, full = 0, start - 1, 0, False
    for number, text in enumerate(iter_lines(real), 1):  # streamed: memory bounded by the window
        total = number
        if number < start or full or number >= start + limit:
            continue
        line = f"{number:>5}: {text[:MAX_LINE_CHARS]}"
        if used + len(line) + 1 > MAX_READ_CHARS:
            full = True
            continue
        out.append(line)
        used += len(line) + 1
        end = number
    if start > max(total, 1):
        raise ToolError(f"{path} has {total} lines; 'start' {start} is past the end")
    header = f"{path} lines {start}-{end} of {total}"
    if end < total:
        header += f" (continue with start={end + 1})"
    return header + "\n" + "\n".join(out)


def grep(index: DocsIndex, allowed: tuple[str, ...], pattern: str, path: str = "") -> str:
    """Lines containing ``pattern``. With ``path``, a file that cannot be opened is the
    call's error; without it every visible file is searched, and one that cannot be (a
    link out of the folder, not UTF-8) is skipped and named on a last line, so one bad
    file never fails the whole search."""
    needle = pattern.lower()
    hits: list[str] = []
    skipped: list[str] = []
    total = 0
    for shown in [path] if path else index.visible(allowed):
        try:
            for number, line in enumerate(iter_lines(index.resolve(shown, allowed)), 1):
                if needle in line.lower():
                    total += 1
                    if len(hits) < MAX_GREP_LINES:
                        prefix = f"{number:>5}: " if path else f"{shown}:{number}: "
                        hits.append(prefix + line[:MAX_LINE_CHARS])
        except ToolError as exc:
            if path:
                raise
            skipped.append(f"{shown} ({_why_skipped(str(exc))})")
    out = "\n".join(hits) if hits else f"no lines contain {pattern!r}" + (f" in {path}" if path else "")
    if total > len(hits):
        out += f"\n... {total - len(hits)} more matching lines not shown; use a more specific pattern"
    if skipped:
        rest = len(skipped) - MAX_SKIPPED_NAMED
        named = "; ".join(skipped[:MAX_SKIPPED_NAMED]) + (f"; and {rest} more" if rest > 0 else "")
        out += f"\nskipped {len(skipped)} file{'s' if len(skipped) > 1 else ''}: {named}"
    return out


def _why_skipped(message: str) -> str:
    """A refusal's reason in a few words, for grep's skipped-files line."""
    for reason in ("resolves outside the document folder", "not UTF-8 text", "no such file", "cannot be read"):
        if reason in message:
            return reason
    return message[:80]
