"""Progress on stderr (rich): epoch, step, stage, items done, verdicts, tokens, cost.

stdout is left alone so ``--json`` output stays machine-readable.
"""

from __future__ import annotations

import threading


class NullReporter:
    """Progress that shows nothing: what code driving the engine gets when no one watches.

    ``phase(text)`` names the current stage, ``items(label, done, total)`` counts one
    batch of work, ``line(text)`` prints a line of rich markup, ``close()`` ends the display."""

    def phase(self, text: str) -> None: ...
    def items(self, label: str, done: int, total: int) -> None: ...
    def line(self, text: str) -> None: ...
    def close(self) -> None: ...


class RichReporter(NullReporter):
    """Progress on stderr: a live bar per batch of items (with the ledger's calls, tokens
    and cost when given a :class:`Ledger`) and printed lines; stdout is untouched."""

    def __init__(self, ledger=None):
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
        self.progress.start()
        self._tasks: dict[str, int] = {}

    def _usage(self) -> str:
        if self.ledger is None:
            return ""
        calls, cached, tokens, cost = self.ledger.headline()
        shown = f" ${cost:.4f}" if cost else ""
        return f"calls {calls} (+{cached} cached) tok {tokens}{shown}"

    def phase(self, text: str) -> None:
        with self._lock:
            self._phase = text

    def items(self, label: str, done: int, total: int) -> None:
        with self._lock:
            tid = self._tasks.get(label)
            if tid is None:
                for old in list(self._tasks.values()):
                    self.progress.remove_task(old)
                self._tasks.clear()
                tid = self._tasks[label] = self.progress.add_task(label, total=total, phase=self._phase, usage="")
            self.progress.update(tid, completed=done, total=total, phase=self._phase, usage=self._usage())

    def line(self, text: str) -> None:
        with self._lock:
            self.progress.console.print(text, markup=True)

    def close(self) -> None:
        with self._lock:
            self.progress.stop()
