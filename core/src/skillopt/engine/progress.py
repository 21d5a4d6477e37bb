"""Progress on stderr (rich): epoch, step, stage, items done, verdicts, tokens, cost.

stdout is left alone so ``--json`` output stays machine-readable.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.progress import TaskID

    from skillopt.calls import Ledger


class NullReporter:
    """Progress that shows nothing: what code driving the engine gets when no one watches.

    ``phase(text)`` names the current stage, ``items(label, done, total)`` counts one
    batch of work, ``line(text)`` prints a line (the style tags of
    :data:`skillopt.richtext.STYLES` render, every other bracket is text), ``close()`` ends the display."""

    def phase(self, text: str) -> None: ...
    def items(self, label: str, done: int, total: int) -> None: ...
    def line(self, text: str) -> None: ...
    def close(self) -> None: ...


class RichReporter(NullReporter):
    """Progress on stderr: a live bar per batch of items (with the ledger's calls, tokens
    and cost when given a :class:`Ledger`) and printed lines; stdout is untouched. When
    stderr is no terminal (a log file, CI) only the lines are written: nothing would
    show the bars, and redrawing them four times a second costs the run CPU."""

    #: seconds without an update after which a batch's bar gives way to a new batch
    QUIET_S = 2.0

    def __init__(self, ledger: Ledger | None = None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.console = Console(stderr=True, highlight=False)
        self.ledger = ledger
        self._lock = threading.Lock()
        self._phase = ""
        self.progress = Progress(
            TextColumn("[bold]{task.fields[phase]}[/bold] {task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[usage]}"),
            TimeElapsedColumn(),
            console=self.console,
            transient=True,
            refresh_per_second=4,  # for eyes; each redraw costs the run's threads the GIL
        )
        self.live = self.console.is_terminal
        if self.live:
            self.progress.start()
        self._tasks: dict[str, tuple[TaskID, float]] = {}  # label -> (bar, last update)

    def _usage(self) -> str:
        if self.ledger is None or not self.live:
            return ""
        calls, cached, tokens, cost = self.ledger.headline()
        shown = f" ${cost:.4f}" if cost else ""
        return f"calls {calls} (+{cached} cached) tok {tokens}{shown}"

    def phase(self, text: str) -> None:
        with self._lock:
            self._phase = text

    def items(self, label: str, done: int, total: int) -> None:
        import time

        with self._lock:
            now = time.monotonic()
            tid = self._tasks.get(label, (None, 0.0))[0]
            if tid is None:
                # a new batch replaces the bars that went quiet; batches running side by
                # side (a final evaluation's val and test) keep one bar each
                for old, (old_tid, seen) in list(self._tasks.items()):
                    if now - seen >= self.QUIET_S:
                        self.progress.remove_task(old_tid)
                        del self._tasks[old]
                tid = self.progress.add_task(label, total=total, phase=self._phase, usage="")
            self._tasks[label] = (tid, now)
            self.progress.update(tid, completed=done, total=total, phase=self._phase, usage=self._usage())

    def line(self, text: str) -> None:
        from skillopt.richtext import styled

        with self._lock:
            self.progress.console.print(styled(text))

    def close(self) -> None:
        with self._lock:
            self.progress.stop()
