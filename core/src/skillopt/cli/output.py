"""Where output goes: people read stderr (rich), programs read stdout (``--json``)."""

from __future__ import annotations

import json
import sys
from typing import Any

import typer


def stderr_console():
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def info(message: str) -> None:
    stderr_console().print(message, markup=True)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print an error (secrets masked; its text printed literally, so ``[train]`` or a path
    with brackets is not taken for rich markup) and return the Exit to raise."""
    from rich.markup import escape

    from skillopt.redact import redact_text

    stderr_console().print(f"[bold red]error:[/bold red] {escape(redact_text(message))}", markup=True, soft_wrap=True)
    return typer.Exit(code)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()
