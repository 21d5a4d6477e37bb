"""Run one ``skillopt … --json`` command as a child process, with a deadline.

Why a child process and not the engine's Python API in this process:

* stdout belongs to the MCP protocol: one stray ``print`` from the engine or a plugin
  would corrupt the JSON-RPC stream. The child gets its own pipes (and no stdin, so it
  can never read the protocol's bytes).
* a night can run for an hour; a child can be interrupted when the client cancels or
  the deadline passes, and a crash in native code (llama.cpp) cannot take the server
  down.
* the CLI's ``--json`` output and exit codes are the documented contract of
  ``skillopt sleep``, so this server cannot drift from what a terminal user sees.

On a deadline or a cancelled call the child's process group first gets SIGINT (the
sleep cycle stops cleanly and stages nothing), then SIGKILL if it does not exit.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import attrs

STDOUT_LIMIT = 64 * 1024 * 1024
STDERR_TAIL = 256 * 1024
GRACE_SECONDS = 10.0


@attrs.frozen
class Completed:
    exit_code: int
    stdout: str
    stderr: str


class TimedOut(Exception):
    def __init__(self, seconds: float):
        super().__init__(f"timed out after {seconds:g} s")
        self.seconds = seconds


class OutputTooLarge(Exception):
    pass


def cli_command(args: list[str]) -> list[str]:
    """The full argv: this interpreter running the ``skillopt`` CLI module."""
    return [sys.executable, "-m", "skillopt", *args]


def child_environment() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"NO_COLOR": "1", "TERM": "dumb", "PYTHONIOENCODING": "utf-8", "PYTHONUNBUFFERED": "1"})
    env.pop("FORCE_COLOR", None)
    return env


async def run_cli(args: list[str], *, cwd: Path | None, timeout: float) -> Completed:
    process = await anyio.open_process(
        cli_command(args),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=str(cwd) if cwd else None,
        env=child_environment(),
        start_new_session=sys.platform != "win32",
    )
    stdout, stderr = bytearray(), bytearray()
    overflow = False

    async def collect_stdout() -> None:
        nonlocal overflow
        async for chunk in process.stdout:
            stdout.extend(chunk)
            if len(stdout) > STDOUT_LIMIT and not overflow:
                overflow = True
                _signal_group(process, signal.SIGKILL if sys.platform != "win32" else None)

    async def collect_stderr() -> None:
        async for chunk in process.stderr:
            stderr.extend(chunk)
            if len(stderr) > 2 * STDERR_TAIL:
                del stderr[:-STDERR_TAIL]

    try:
        with anyio.move_on_after(timeout) as deadline:
            async with anyio.create_task_group() as group:
                group.start_soon(collect_stdout)
                group.start_soon(collect_stderr)
            await process.wait()
        if deadline.cancelled_caught:
            raise TimedOut(timeout)
        if overflow:
            raise OutputTooLarge(f"the command printed more than {STDOUT_LIMIT // (1024 * 1024)} MB")
    finally:
        if process.returncode is None:
            with anyio.CancelScope(shield=True):
                await _stop(process)
    return Completed(
        exit_code=process.returncode,
        stdout=stdout.decode("utf-8", errors="replace"),
        stderr=stderr.decode("utf-8", errors="replace"),
    )


async def _stop(process) -> None:
    """SIGINT to the whole process group (a clean stop), then SIGKILL after a grace period."""
    _signal_group(process, signal.SIGINT if sys.platform != "win32" else None)
    with anyio.move_on_after(GRACE_SECONDS):
        await process.wait()
        return
    _signal_group(process, signal.SIGKILL if sys.platform != "win32" else None)
    with anyio.move_on_after(GRACE_SECONDS):
        await process.wait()


def _signal_group(process, sig) -> None:
    try:
        if sig is None:
            process.kill()
        else:
            os.killpg(process.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
