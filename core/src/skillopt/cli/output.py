"""Where output goes: people read stderr (rich), programs read stdout (``--json``)."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from rich.console import Console


def stderr_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def info(message: str) -> None:
    """A line for the person at the terminal; only the project's style tags render
    (:func:`skillopt.richtext.styled`), so an install hint's ``[local]`` prints."""
    from skillopt.richtext import styled

    stderr_console().print(styled(message))


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print an error (secrets masked; its text printed literally, so ``[train]`` or a path
    with brackets is not taken for rich markup) and return the Exit to raise."""
    from rich.text import Text

    from skillopt.redact import redact_text

    stderr_console().print(Text.assemble(("error:", "bold red"), " ", redact_text(message)), soft_wrap=True)
    return typer.Exit(code)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()
