"""Starting and stopping training runs from the dashboard.

A launch is exactly the command a person would type (``skillopt run --env … --out …``)
run as a child process in its own process group, so the dashboard adds no second way
of training. The request is resolved with the run's own config resolver first, so a
typo in a ``--set`` key comes back as the same clear error the CLI prints, before
anything starts. Stopping kills the process group; the run resumes later from its run
directory with the same command.
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
from typing import Any

from skillopt.errors import ConfigError

_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


def _name(value: Any, what: str) -> str:
    text = str(value or "").strip()
    if not text or not set(text) <= _SAFE or text.startswith("-"):
        raise ConfigError(f"{what}: expected a plain name, got {text!r}")
    return text


class Launcher:
    """Runs started by this dashboard, by run id."""

    def __init__(self, runs_root: Path):
        self.runs_root = Path(runs_root)
        self._lock = threading.Lock()
        self._procs: dict[str, subprocess.Popen] = {}
        #: keys given to launches, by the env var the child reads them from (memory only)
        self._secrets: dict[str, str] = {}

    def check(self, spec: dict[str, Any]) -> list[dict[str, Any]]:
        """``skillopt check --no-call`` for a launch request: what would fail, and the
        run's call, token and cost estimate, before anything starts."""
        import attrs

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
        assignments = [str(s).strip() for s in spec.get("set") or [] if str(s).strip()]
        for item in assignments:
            if "=" not in item or item.startswith("-"):
                raise ConfigError(f"set: expected key=value, got {item!r}")
        args += [part for item in self._without_secrets(assignments) for part in ("--set", item)]
        return args, flags, assignments

    def _without_secrets(self, assignments: list[str]) -> list[str]:
        """Assignments safe to put on a command line and in a file: a key given to the
        dashboard (``model.api_key=…``) becomes ``model.api_key_env=VAR`` and the value
        goes to the child's environment only (kept in this process's memory, never stored)."""
        from skillopt.redact import is_secret_key, register_secret

        out = []
        for item in assignments:
            key, _, value = item.partition("=")
            key = key.strip()
            if not is_secret_key(key.rsplit(".", 1)[-1]):
                out.append(item)
                continue
            if not key.endswith("api_key"):
                raise ConfigError(f"set: {key} is a secret; give keys with `skillopt keys set` or an environment variable")
            var = "SKILLOPT_DASHBOARD_" + key.upper().replace(".", "_")
            register_secret(value.strip())
            self._secrets[var] = value.strip()
            out.append(f"{key}_env={var}")
        return out

    def command(self, spec: dict[str, Any]) -> tuple[str, list[str]]:
        """(run id, argv) for a launch request, validated as ``skillopt run`` would."""
        from skillopt.engine.session import resolve_run_config

        args, flags, assignments = self._parse(spec)
        env = flags["env.name"]
        resolve_run_config(config_file=None, assignments=assignments, flags=flags)  # raises the CLI's errors
        run_id = f"{env}-{time.strftime('%Y%m%d-%H%M%S')}"
        out = self.runs_root / run_id
        n = 1
        while out.exists():
            n += 1
            run_id = f"{env}-{time.strftime('%Y%m%d-%H%M%S')}-{n}"
            out = self.runs_root / run_id
        return run_id, [sys.executable, "-m", "skillopt", "run", *args, "--out", str(out)]

    def launch(self, spec: dict[str, Any]) -> dict[str, Any]:
        run_id, argv = self.command(spec)
        self.log_path(run_id).parent.mkdir(parents=True, exist_ok=True)
        from skillopt.fsio import write_atomic

        write_atomic(self.log_path(run_id).with_suffix(".argv.json"), json.dumps(argv[3:]), mode=0o600)
        return self._start(run_id, argv, mode="wb")

    def resume(self, run_id: str) -> dict[str, Any]:
        """Re-run a launched run's exact command: the engine picks up where it stopped."""
        saved = self.log_path(run_id).with_suffix(".argv.json")
        if not saved.is_file():
            raise ConfigError(f"{run_id} was not launched from the dashboard; resume it with the command that started it")
        if self.running(run_id):
            raise ConfigError(f"{run_id} is already running")
        args = json.loads(saved.read_text(encoding="utf-8"))
        return self._start(run_id, [sys.executable, "-m", "skillopt", *args], mode="ab")

    def _start(self, run_id: str, argv: list[str], *, mode: str) -> dict[str, Any]:
        log = self.log_path(run_id)
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | (os.O_APPEND if mode == "ab" else os.O_TRUNC), 0o600)
        env = {**os.environ, **{var: value for var, value in self._secrets.items() if var in " ".join(argv)}}
        with os.fdopen(fd, "wb") as sink:
            proc = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                                    env=env)
        with self._lock:
            self._procs[run_id] = proc
        return {"id": run_id, "pid": proc.pid, "command": ["skillopt", *argv[3:]]}

    def log_path(self, run_id: str) -> Path:
        return self.runs_root / ".dashboard-logs" / f"{_name(run_id, 'run')}.log"

    def running(self, run_id: str) -> bool:
        with self._lock:
            proc = self._procs.get(run_id)
        return proc is not None and proc.poll() is None

    def stop(self, run_id: str) -> bool:
        """Kill a run this dashboard started (its whole process group)."""
        with self._lock:
            proc = self._procs.get(run_id)
        if proc is None or proc.poll() is not None:
            return False
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        except ProcessLookupError:
            pass
        return True

    def stop_all(self) -> None:
        with self._lock:
            ids = list(self._procs)
        for run_id in ids:
            self.stop(run_id)
