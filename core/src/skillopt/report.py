"""The reporter port: how plugins talk to the person running them.

A plugin never prints. ``say()`` goes to whatever reporter the current invocation
installed: the CLI's rich console on stderr by default, a list in tests, nothing in an
embedding application. stdout stays free for ``--json``.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

#: ``(message, level)``; level is ``info``, ``warning`` or ``error``. Messages may use the
#: style tags of :data:`skillopt.richtext.STYLES` (``[bold]…[/bold]``); every other bracket
#: is text. A plain reporter strips the tags with :func:`skillopt.richtext.plain`.
Reporter = Callable[[str, str], None]

_lock = threading.Lock()
_reporter: Reporter | None = None


def _stderr(message: str, level: str) -> None:
    from skillopt.redact import redact_text
    from skillopt.richtext import plain, styled

    message = redact_text(message)
    prefix = {"warning": "[yellow]warning:[/yellow] ", "error": "[bold red]error:[/bold red] "}.get(level, "")
    try:
        from rich.console import Console

        Console(stderr=True, highlight=False).print(styled(prefix) + styled(message), soft_wrap=True)
    except Exception:  # noqa: BLE001 - reporting must never break the caller
        sys.stderr.write(f"{level}: {plain(message)}\n" if prefix else plain(message) + "\n")


def set_reporter(reporter: Reporter | None) -> Reporter | None:
    """Install ``reporter`` for this process (``None`` restores stderr); returns the old one."""
    global _reporter
    with _lock:
        old, _reporter = _reporter, reporter
    return old


def say(message: str, *, level: str = "info") -> None:
    """Tell the person running SkillOpt something (stderr; never stdout). Secrets are masked.
    Style tags (``[bold]``, ``[yellow]``, ``[red]``, ``[green]``, ``[dim]``, ``[italic]``)
    render; every other bracket prints as written (``pip install 'pkg[extra]'``)."""
    (_reporter or _stderr)(message, level)


def warn(message: str) -> None:
    """``say(message, level="warning")``."""
    say(message, level="warning")
