"""Command-line spellings taken from upstream's argparse scripts.

Upstream's ``--cfg-options`` takes several ``key=value`` pairs after one flag (argparse
``nargs='+'``); click takes one value per flag. The root command rewrites
``--cfg-options a=1 b=2`` into ``--cfg-options a=1 --cfg-options b=2`` before parsing,
so both spellings mean the same here.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from typer.core import TyperGroup

if TYPE_CHECKING:
    from collections.abc import Sequence

MULTI_VALUE_OPTIONS = ("--cfg-options",)


def expand_multi_values(args: list[str]) -> list[str]:
    """Each word after a multi-value option, up to the next option, as its own value."""
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            out.extend(args[i:])
            break
        name, eq, first = arg.partition("=")
        if name not in MULTI_VALUE_OPTIONS:
            out.append(arg)
            i += 1
            continue
        values = [first] if eq else []
        i += 1
        while i < len(args) and not args[i].startswith("-"):
            values.append(args[i])
            i += 1
        out.extend(part for value in values for part in (name, value))
        if not values:
            out.append(name)  # click says the value is missing
    return out


class UpstreamArgvGroup(TyperGroup):
    """The root ``skillopt`` group: argv rewritten by :func:`expand_multi_values` first."""

    def main(self, args: Sequence[str] | None = None, *rest: Any, **kwargs: Any) -> Any:
        args = list(sys.argv[1:] if args is None else args)
        return super().main(expand_multi_values(args), *rest, **kwargs)
