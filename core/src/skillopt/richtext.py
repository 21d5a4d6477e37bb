"""Text for the terminal: the project's own style tags render, every other bracket is text.

rich reads ``[word]`` as markup and drops it, so an install hint ``pip install
'skillopt-backends[local]'`` printed as ``pip install 'skillopt-backends'``, a help text's
``lists as [a,b]`` as ``lists as`` and a split name ``[train]`` vanished. Every place a
message reaches rich (``say``/``warn``, the CLI's lines and errors, progress lines, table
cells, typer's help) turns it into a :class:`rich.text.Text` here, so nothing in it is ever
parsed as markup except the few style tags below. rich's own escape (``\\[``) is honoured,
so text a plugin escaped with :func:`rich.markup.escape` still prints exactly.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.text import Text

#: the style tags a message may use (``[bold]…[/bold]``, ``[/]`` closes the last one);
#: any other bracketed text prints as written
STYLES = frozenset({"bold", "dim", "italic", "red", "green", "yellow", "bold red", "bold green", "bold yellow"})

#: rich's tag syntax (backslashes before a ``[`` escape it in pairs, as rich counts them)
_TAG = re.compile(r"(\\*)\[([a-z#/@][^[]*?)]")


def styled(message: str, style: str = "") -> Text:
    """``message`` as rich Text: our style tags applied, everything else literal.

    A closing tag with no opening one, or a style tag that is not ours, prints as typed
    (rich would raise or swallow it)."""
    from rich.text import Text

    text = Text(style=style)
    opened: list[tuple[str, int]] = []
    position = 0
    for match in _TAG.finditer(message):
        backslashes, tag = match.group(1), match.group(2)
        text.append(message[position:match.start()])
        position = match.end()
        text.append("\\" * (len(backslashes) // 2))
        if len(backslashes) % 2:  # an escaped bracket: rich's ``\[``
            text.append(f"[{tag}]")
            continue
        name = tag.strip().lower()
        if name in STYLES:
            opened.append((name, len(text)))
        elif name.startswith("/") and (name == "/" or name[1:].strip() in STYLES) and _close(text, opened, name[1:].strip()):
            pass
        else:
            text.append(f"[{tag}]")
    text.append(message[position:])
    for name, start in opened:  # unclosed: to the end, as rich does
        text.stylize(name, start, len(text))
    return text


def _close(text: Text, opened: list[tuple[str, int]], name: str) -> bool:
    """Close the innermost open ``name`` (any, for ``[/]``); False when none is open."""
    for index in range(len(opened) - 1, -1, -1):
        if not name or opened[index][0] == name:
            style, start = opened.pop(index)
            text.stylize(style, start, len(text))
            return True
    return False


def literal(text: str, style: str = "") -> Text:
    """``text`` as rich Text with nothing in it read as markup (data: paths, ids, cells)."""
    from rich.text import Text

    return Text(str(text), style=style)


def plain(message: str) -> str:
    """``message`` without its style tags: what a plain-text writer prints."""
    return styled(message).plain


def escape_help(command: Any) -> None:  # a click command of typer's vendored click (private) or click's
    """Make the help of a click command tree literal for typer's rich help.

    typer parses every help text as rich markup (``rich_markup_mode="rich"``, its default
    with rich installed), which ate ``[a,b]`` from ``--set``'s help. Escaping each help
    string of ``command`` and its subcommands (plugin commands included) once, when the
    CLI builds its command tree, keeps every word a help text says."""
    stack = [command]
    while stack:
        cmd = stack.pop()
        stack.extend(getattr(cmd, "commands", {}).values())
        if getattr(cmd, "rich_markup_mode", None) != "rich":
            continue
        from rich.markup import escape  # only for a command whose help rich renders

        for attr in ("help", "short_help", "epilog"):
            if getattr(cmd, attr, None):
                setattr(cmd, attr, escape(getattr(cmd, attr)))
        for param in cmd.params:
            if getattr(param, "help", None):
                param.help = escape(param.help or "")


__all__ = ["STYLES", "escape_help", "literal", "plain", "styled"]
