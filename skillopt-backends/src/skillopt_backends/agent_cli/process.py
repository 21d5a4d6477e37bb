"""Running one headless agent-CLI call as a contained subprocess.

Why not ``subprocess.run(timeout=…)``: it kills only the direct child, and agent CLIs
are Node or Rust launchers that spawn workers; a timed-out call must take its whole
process group with it. Output is capped so a runaway CLI cannot fill memory.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

import attrs

#: Variables every CLI needs to find its binary, its login and a locale.
BASE_ENV = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "SHELL", "TERM")
#: Prefixes of per-user config locations the CLIs read their login from.
BASE_ENV_PREFIXES = ("XDG_",)
OUTPUT_CAP = 8 * 1024 * 1024
#: An argument starting with this names a path inside the call's temp directory.
WORKDIR = "{workdir}"


class Killed(Exception):
    """The call was stopped from outside (timeout or close)."""

    def __init__(self, reason: str, elapsed: float):
        super().__init__(reason)
        self.reason = reason
        self.elapsed = elapsed


@attrs.frozen
class CliResult:
    returncode: int
    stdout: str
    stderr: str
    elapsed_s: float


def scrubbed_env(keep: Iterable[str], source: Mapping[str, str] | None = None) -> dict[str, str]:
    """Only what the CLI needs: the base variables, ``XDG_*`` and the named ones.

    Provider keys of *other* services, cloud credentials and tokens in the caller's
    environment never reach the agent.
    """
    source = os.environ if source is None else source
    wanted = set(BASE_ENV) | set(keep)
    env = {k: v for k, v in source.items() if k in wanted or k.startswith(BASE_ENV_PREFIXES)}
    env["NO_COLOR"] = "1"
    env["CI"] = "1"  # no interactive prompts, spinners or update checks
    return env


class ProcessGroups:
    """The live calls of one backend, so ``close()`` can kill them all."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: dict[int, subprocess.Popen] = {}
        self.closed = threading.Event()

    def run(
        self,
        argv: list[str],
        *,
        stdin: str,
        env: Mapping[str, str],
        timeout_s: float,
        files: Mapping[str, str] | None = None,
        modes: Mapping[str, int] | None = None,
    ) -> CliResult:
        """Run ``argv`` in a fresh temp directory holding ``files`` (with ``modes``, by
        name, where given); raise :class:`Killed` on timeout or when the backend is
        closed. The directory is removed afterwards."""
        workdir = Path(tempfile.mkdtemp(prefix="skillopt-agent-"))
        try:
            for name, text in (files or {}).items():
                (workdir / name).parent.mkdir(parents=True, exist_ok=True)
                (workdir / name).write_text(text, encoding="utf-8")
                if modes and name in modes:
                    (workdir / name).chmod(modes[name])
            return self._run_in(workdir, argv, stdin=stdin, env=env, timeout_s=timeout_s)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _run_in(self, workdir: Path, argv: list[str], *, stdin: str, env: Mapping[str, str], timeout_s: float) -> CliResult:
        argv = [str(workdir) + a[len(WORKDIR) :] if a.startswith(WORKDIR) else a for a in argv]
        started = time.monotonic()
        with self._lock:
            if self.closed.is_set():
                raise Killed("closed", 0.0)
            proc = subprocess.Popen(
                argv,
                cwd=workdir,
                env=dict(env),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # its own process group, killed as one
            )
            self._live[proc.pid] = proc
        try:
            out, err = proc.communicate(stdin.encode("utf-8"), timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.communicate()
            raise Killed("timeout", time.monotonic() - started) from None
        finally:
            with self._lock:
                self._live.pop(proc.pid, None)
        elapsed = time.monotonic() - started
        if self.closed.is_set():
            raise Killed("closed", elapsed)
        return CliResult(
            returncode=proc.returncode,
            stdout=out[:OUTPUT_CAP].decode("utf-8", "replace"),
            stderr=err[-OUTPUT_CAP:].decode("utf-8", "replace"),
            elapsed_s=elapsed,
        )

    def kill_all(self) -> None:
        self.closed.set()
        with self._lock:
            live = list(self._live.values())
        for proc in live:
            _kill_group(proc)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
