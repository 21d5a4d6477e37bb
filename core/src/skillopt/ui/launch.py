"""Starting, stopping and resuming training runs from the dashboard.

A launch is exactly the command a person would type (``skillopt run --env … --out …``)
run as a child process in its own process group, so the dashboard adds no second way
of training. Before anything starts, the request goes through the same checks as
"Check & estimate" (``skillopt check --no-call``): a typo in a ``--set`` key or a
missing provider key comes back as the CLI's error. A child that dies while starting
is reported with its log, not as "started".

Whether a run is running is the run directory's lock's to say (``run.lock``, held by
the ``skillopt run`` process for its whole life), never this process's memory: Resume
is refused while a live process holds the lock, and Stop signals the holder, so a
dashboard restarted mid-run can neither start a second run on the directory nor lose
the way to stop the first.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from skillopt.engine.lock import holder, pid_alive
from skillopt.errors import ConfigError, SkillOptError

if TYPE_CHECKING:
    from collections.abc import Callable

_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
#: the folder beside launched runs that holds each one's log and command
LOGS = ".dashboard-logs"


class LaunchRefused(SkillOptError):
    """A launch that failed its checks, or whose process died while starting."""

    def __init__(self, message: str, checks: list[dict[str, Any]] | None = None, log: str = "") -> None:
        super().__init__(message)
        self.checks = checks or []
        self.log = log


class RunBusy(SkillOptError):
    """A live process holds the run directory: a second run on it is refused."""


def _name(value: Any, what: str) -> str:
    text = str(value or "").strip()
    if not text or not set(text) <= _SAFE or text.startswith("-"):
        raise ConfigError(f"{what}: expected a plain name, got {text!r}")
    return text


@attrs.define
class Launch:
    """A child process this dashboard started (memory only: the lock outlives it)."""

    proc: subprocess.Popen[bytes]
    run_dir: Path
    log: Path


class Launcher:
    """Runs started by this dashboard, and the way to stop or resume any run."""

    def __init__(self, runs_root: Path, *, startup_timeout_s: float = 30.0) -> None:
        self.runs_root = Path(runs_root)
        self.startup_timeout_s = startup_timeout_s
        self._lock = threading.Lock()
        self._launches: dict[str, Launch] = {}
        #: keys given to launches, by the env var the child reads them from (memory only)
        self._secrets: dict[str, str] = {}

    # ------------------------------------------------------------------ requests

    def check(self, spec: dict[str, Any]) -> list[dict[str, Any]]:
        """``skillopt check --no-call`` for a launch request: what would fail, and the
        run's call, token and cost estimate, before anything starts."""
        from skillopt.engine.preflight import run_checks

        _args, flags, assignments = self._parse(spec)
        return [attrs.asdict(c) for c in run_checks(config_file=None, assignments=assignments, flags=flags, call=False)]

    def _parse(self, spec: dict[str, Any]) -> tuple[list[str], dict[str, Any], list[str]]:
        """(CLI arguments, first-class flags, --set assignments) of a request; names checked."""
        env = _name(spec.get("env"), "env")
        args = ["--env", env]
        flags: dict[str, Any] = {"env.name": env}
        for key, flag, dotted in (("backend", "--backend", "model.backend"), ("preset", "--preset", "preset")):
            if spec.get(key):
                value = _name(spec[key], key)
                args += [flag, value]
                flags[dotted] = value
        raw = spec.get("set") or []
        assignments = [str(s).strip() for s in (raw if isinstance(raw, list) else [raw]) if str(s).strip()]
        for item in assignments:
            if "=" not in item or item.startswith("-"):
                raise ConfigError(f"set: expected key=value, got {item.partition('=')[0]!r}")
        args += [part for item in self._without_secrets(assignments) for part in ("--set", item)]
        return args, flags, assignments

    def _without_secrets(self, assignments: list[str]) -> list[str]:
        """Assignments safe to put on a command line and in a file. A key given to the
        dashboard (``model.api_key=…``) becomes ``model.api_key_env=VAR`` and the value
        goes to the child's environment only (kept in this process's memory, never
        stored). Any other credential-shaped value is refused: it has no such channel."""
        from skillopt.redact import is_secret_key, redact_text, register_secret

        out = []
        for item in assignments:
            key, _, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if is_secret_key(key.rsplit(".", 1)[-1]):
                if not key.endswith("api_key"):
                    raise ConfigError(f"set: {key} is a secret; give keys with `skillopt keys set` or an environment variable")
                var = "SKILLOPT_DASHBOARD_" + key.upper().replace(".", "_")
                register_secret(value)
                self._secrets[var] = value
                out.append(f"{key}_env={var}")
            elif redact_text(value) != value:
                raise ConfigError(f"set: the value of {key} looks like a credential; give keys with "
                                  "`skillopt keys set`, an environment variable or model.api_key")
            else:
                out.append(item)
        return out

    def command(self, spec: dict[str, Any]) -> tuple[str, list[str]]:
        """(run id, argv) for a launch request, validated as ``skillopt run`` would."""
        from skillopt.engine.session import resolve_run_config

        args, flags, assignments = self._parse(spec)
        env = flags["env.name"]
        resolve_run_config(config_file=None, assignments=assignments, flags=flags)  # raises the CLI's errors
        stamp = time.strftime("%Y%m%d-%H%M%S")
        run_id, n = f"{env}-{stamp}", 1
        while (self.runs_root / run_id).exists() or run_id in self._launches:
            n += 1
            run_id = f"{env}-{stamp}-{n}"
        return run_id, [sys.executable, "-m", "skillopt", "run", *args, "--out", str(self.runs_root / run_id)]

    def launch(self, spec: dict[str, Any]) -> dict[str, Any]:
        """Check, then start a run; returns once the child holds its run directory (or
        raises :class:`LaunchRefused` with the failed checks, or the child's log)."""
        from skillopt.fsio import write_atomic
        from skillopt.redact import redact_data

        run_id, argv = self.command(spec)
        failed = [c for c in self.check(spec) if not c["ok"]]
        if failed:
            raise LaunchRefused("not started: " + "; ".join(f"{c['name']}: {c['detail']}" for c in failed), checks=failed)
        run_dir = self.runs_root / run_id
        logs = self.logs_dir(run_dir)
        logs.mkdir(parents=True, exist_ok=True)
        write_atomic(logs / f"{run_id}.argv.json", json.dumps(redact_data(argv[3:])), mode=0o600)
        return self._start(run_id, run_dir, argv, append=False)

    def resume(self, run_id: str, run_dir: Path) -> dict[str, Any]:
        """Re-run a launched run's exact command (the engine picks up where it stopped),
        unless a live process holds the run directory."""
        with self._lock:
            held = holder(run_dir)
            if held.state in ("held", "remote") and held.owner is not None:
                raise RunBusy(f"{run_id} is running ({held.owner.describe()}); a second run on it is refused")
            saved = self.logs_dir(run_dir) / f"{_name(run_id, 'run')}.argv.json"
            if not saved.is_file():
                raise RunBusy(f"{run_id} was not launched from the dashboard; resume it with the command that started it")
            args = json.loads(saved.read_text(encoding="utf-8"))
            if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
                raise RunBusy(f"{saved.name} is damaged; resume {run_id} with the command that started it")
        return self._start(run_id, run_dir, [sys.executable, "-m", "skillopt", *args], append=True)

    def _start(self, run_id: str, run_dir: Path, argv: list[str], *, append: bool) -> dict[str, Any]:
        from skillopt.redact import redact_data

        log = self.logs_dir(run_dir) / f"{_name(run_id, 'run')}.log"
        config_before = _mtime_ns(run_dir / "config.json")
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC), 0o600)
        env = {**os.environ, **{var: value for var, value in self._secrets.items() if var in " ".join(argv)}}
        with os.fdopen(fd, "wb") as sink:
            proc = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True, env=env)
        with self._lock:
            self._launches[run_id] = Launch(proc=proc, run_dir=run_dir, log=log)
        state = self._wait_started(run_id, config_before)
        return {"id": run_id, "pid": proc.pid, "state": state, "command": redact_data(["skillopt", *argv[3:]])}

    def _wait_started(self, run_id: str, config_before: int | None) -> str:
        """``started`` once the child holds the run's lock and has written its config
        (rewritten, on a resume: the child checks the saved config and builds its
        backends first, so a changed config or a missing key fails before); ``finished`` if it
        ended well that fast; ``starting`` after the timeout. A child that died is
        :class:`LaunchRefused` with the end of its log."""
        launch = self._launches[run_id]
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            code = launch.proc.poll()
            if code is not None:
                if code == 0:
                    return "finished"
                log = self.log_tail(run_id)
                raise LaunchRefused(f"{run_id} stopped while starting (exit status {code}): {_reason(log)}", log=log)
            held = holder(launch.run_dir)
            written = _mtime_ns(launch.run_dir / "config.json")
            if held.state == "held" and held.owner and held.owner.pid == launch.proc.pid and written not in (None, config_before):
                return "started"
            time.sleep(0.1)
        return "starting"

    # ------------------------------------------------------------------ state

    def logs_dir(self, run_dir: Path) -> Path:
        """Logs and commands live beside the runs, so any dashboard over that folder finds them."""
        return Path(run_dir).parent / LOGS

    def log_path(self, run_id: str, run_dir: Path | None = None) -> Path:
        launch = self._launches.get(run_id)
        folder = self.logs_dir(run_dir if run_dir is not None else launch.run_dir if launch else self.runs_root / run_id)
        return folder / f"{_name(run_id, 'run')}.log"

    def log_tail(self, run_id: str, run_dir: Path | None = None, limit: int = 20000) -> str:
        from skillopt.redact import redact_text

        try:
            path = self.log_path(run_id, run_dir)
        except ConfigError:
            return ""
        text = path.read_text(encoding="utf-8", errors="replace")[-limit:] if path.is_file() else ""
        return redact_text(text)

    def resumable(self, run_id: str, run_dir: Path) -> bool:
        """Whether a dashboard launched this run (and so knows its command)."""
        return "/" not in run_id and (self.logs_dir(run_dir) / f"{run_id}.argv.json").is_file()

    def exit_code(self, run_id: str) -> int | None:
        launch = self._launches.get(run_id)
        return launch.proc.poll() if launch is not None else None

    def launches(self) -> dict[str, Launch]:
        with self._lock:
            return dict(self._launches)

    # ------------------------------------------------------------------ stopping

    def stop(self, run_id: str, run_dir: Path | None) -> bool:
        """Stop the process that holds the run directory (the whole process group of a
        run this dashboard started). False when no process runs it."""
        launch = self._launches.get(run_id)
        if launch is not None and launch.proc.poll() is None:
            _terminate(launch.proc.pid, group=True, gone=lambda: launch.proc.poll() is not None)
            launch.proc.wait()
            return True
        if run_dir is None:
            return False
        held = holder(run_dir)
        if held.state != "held" or held.owner is None or not _is_skillopt(held.owner.pid):
            return False
        pid = held.owner.pid
        try:
            group = os.getpgid(pid) == pid  # a session leader (started by a dashboard): its children too
        except OSError:
            return False
        _terminate(pid, group=group, gone=lambda: holder(run_dir).state != "held")
        return True

    def stop_all(self) -> None:
        for run_id, launch in self.launches().items():
            if launch.proc.poll() is None:
                self.stop(run_id, None)


def _mtime_ns(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def _reason(log: str) -> str:
    """The line of a log that says why the process stopped (its ``error:`` line, else its last)."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    errors = [i for i, line in enumerate(lines) if line.lower().startswith(("error", "usage:"))]
    if errors:  # an error may wrap over a few lines
        return " ".join(lines[errors[-1]:errors[-1] + 4])[:600]
    return lines[-1][:600] if lines else "(no output)"


def _terminate(pid: int, *, group: bool, gone: Callable[[], bool], grace_s: float = 10.0) -> None:
    """SIGTERM, then SIGKILL if ``gone()`` is still false after ``grace_s``."""
    send = os.killpg if group else os.kill
    try:
        send(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        if gone() or not pid_alive(pid):
            return
        time.sleep(0.05)
    try:
        send(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _is_skillopt(pid: int) -> bool:
    """Whether ``pid`` runs skillopt, where the process table says (a ``run.lock`` could
    name any pid; the dashboard signals only the run's own process)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return pid_alive(pid) and not Path("/proc/self").exists()  # no procfs (macOS): the lock's word
    except OSError:
        return False
    return b"skillopt" in cmdline
