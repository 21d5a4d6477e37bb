"""Run model-written code on a workbook in a separate, confined process.

The code is written to its own file in a fresh temporary work directory that holds a
copy of the input workbook (the caller's cwd is never used) and is run by
``sandbox_runner.py`` under ``python -I -B`` with a scrubbed environment: no API keys,
no proxy settings, nothing but PATH, HOME/TMPDIR (the work directory), locale and the
two paths. On Linux the process starts in fresh mount, network and PID namespaces when
the system permits (``unshare``, as root or through a user namespace); the runner then
makes the filesystem read-only except the work directory and drops all capabilities.
In every mode a seccomp filter refuses new processes (root, which namespace mode runs
as, is exempt from RLIMIT_NPROC) and sockets.
Wall time is enforced here by killing the whole process group. What was actually
enforced for a run is recorded in :attr:`ExecResult.sandbox`.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import attrs

RUNNER = Path(__file__).with_name("sandbox_runner.py")
#: ``strict``: Linux namespaces or refuse; ``auto``: namespaces, else process isolation
#: when the kernel confines it (Landlock + seccomp), else refuse; ``process``: process
#: isolation whatever the kernel offers (``basic`` is its former name)
ISOLATION_LEVELS = ("auto", "strict", "process", "basic")
NO_NAMESPACES = (
    "model-written code runs only inside Linux namespaces (util-linux `unshare` with mount and network namespaces, "
    "as root or with unprivileged user namespaces) or under Landlock, and this host allows neither. To run it with process isolation "
    "instead (Landlock and seccomp on Linux: writes only in the work directory, no sockets, no new processes; "
    "elsewhere only rlimits and a Python audit hook, which native code can bypass), set env.isolation=process"
)
INPUT_NAME, OUTPUT_NAME, CODE_NAME = "input.xlsx", "output.xlsx", "solution.py"

_SIGNAL_REASONS = {
    signal.SIGXCPU: "CPU time limit exceeded",
    signal.SIGXFSZ: "file size limit exceeded (output too large)",
    signal.SIGKILL: "killed (SIGKILL)",
    signal.SIGSEGV: "crashed (SIGSEGV)",
}


try:
    from skillopt.api import EnvUnavailable as _Base
except ImportError:  # the sandbox also works without skillopt installed
    _Base = RuntimeError


class SandboxUnavailable(_Base):
    """Namespaces cannot be created here and the weaker isolation was not asked for."""


@attrs.frozen(kw_only=True)
class Limits:
    """Per-run resource limits (each also bounds what a run can cost the host)."""

    wall_s: float = 30.0
    cpu_s: int = 20
    memory_mb: int = 1024
    file_mb: int = 32
    nproc: int = 64
    nofile: int = 256
    output_chars: int = 4000

    def rlimits(self) -> dict:
        return {
            "cpu_s": self.cpu_s,
            "memory_bytes": self.memory_mb * 1024 * 1024,
            "file_bytes": self.file_mb * 1024 * 1024,
            "nproc": self.nproc,
            "nofile": self.nofile,
            "core": 0,
        }


@attrs.frozen(kw_only=True)
class ExecResult:
    """What one run did. ``status``: ok, error, timeout, no_output or cancelled."""

    status: str
    returncode: int | None = None
    stdout: str = ""
    stderr: str = ""
    duration_s: float = 0.0
    output: Path | None = None
    message: str = ""
    sandbox: dict = attrs.field(factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def feedback(self, limit: int = 3000) -> str:
        """The error text a model can act on: the message plus the traceback's tail."""
        parts = [self.message] if self.message else []
        if self.stderr.strip():
            parts.append(self.stderr.strip()[-limit:])
        return "\n".join(parts)[-limit:]


# ---------------------------------------------------------------------------- namespace probe

_PROBE_LOCK = threading.Lock()
_PROBED: dict[str, list[str]] = {}


def _candidates(unshare: str) -> list[list[str]]:
    pid = ["--pid", "--fork", "--kill-child", "--mount-proc"]
    return [
        [unshare, "--mount", "--net", *pid],
        [unshare, "--user", "--map-root-user", "--mount", "--net", *pid],
        [unshare, "--user", "--map-root-user", "--mount", "--net"],
        [unshare, "--user", "--map-root-user", "--net"],
    ]


def namespace_prefix(isolation: str = "auto") -> list[str]:
    """The ``unshare`` command line that works on this host (probed once), or []."""
    if isolation not in ISOLATION_LEVELS:
        raise ValueError(f"isolation must be one of {', '.join(ISOLATION_LEVELS)}, got {isolation!r}")
    if isolation in ("process", "basic"):
        return []
    with _PROBE_LOCK:
        if "auto" not in _PROBED:
            _PROBED["auto"] = _probe()
        prefix = _PROBED["auto"]
    if not prefix and (isolation == "strict" or not landlock_available()):
        raise SandboxUnavailable(NO_NAMESPACES if isolation == "auto" else NO_NAMESPACES.split(". To run")[0] + ".")
    return list(prefix)


def landlock_available() -> bool:
    """Whether this kernel offers Landlock (the file confinement of process isolation)."""
    if not sys.platform.startswith("linux"):
        return False
    import platform

    if platform.machine() not in ("x86_64", "aarch64"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        return libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1)) >= 1
    except (OSError, AttributeError):
        return False


def _probe() -> list[str]:
    if not sys.platform.startswith("linux"):
        return []
    unshare = shutil.which("unshare") or ("/usr/bin/unshare" if os.path.exists("/usr/bin/unshare") else None)
    if not unshare:
        return []
    for prefix in _candidates(unshare):
        try:
            done = subprocess.run(
                [*prefix, sys.executable, "-I", "-B", "-c", "pass"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                env=_base_env(tempfile.gettempdir()), timeout=20,
            )
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0:
            return prefix
    return []


def _namespaces() -> dict[str, int]:
    out = {}
    for kind in ("mnt", "net", "pid"):
        try:
            out[kind] = os.stat(f"/proc/self/ns/{kind}").st_ino
        except OSError:
            pass
    return out


def secret_paths() -> list[str]:
    """Folders and files that may hold credentials; hidden from the code when mounts allow."""
    home = Path.home()
    names = [".ssh", ".aws", ".azure", ".config", ".docker", ".kube", ".gnupg", ".netrc", ".git-credentials", ".pypirc",
             ".npmrc", ".local/share/skillopt",
             # coding agents' logins and transcripts, and shell histories (typed secrets end up there)
             ".codex", ".claude", ".claude.json", ".cursor", ".copilot", ".gemini", ".continue", ".local/share/opencode",
             ".vscode-server", ".bash_history", ".zsh_history", ".python_history", ".node_repl_history", ".psql_history",
             ".mysql_history", ".lesshst", ".viminfo"]
    paths = [home / n for n in names]
    try:
        from skillopt.api import cache_dir, config_dir

        paths += [config_dir(), cache_dir()]
        if os.environ.get("SKILLOPT_HOME"):
            paths.append(Path(os.environ["SKILLOPT_HOME"]).expanduser())
    except Exception:  # noqa: BLE001 - optional: the sandbox works without skillopt installed
        pass
    # Never hide a folder the interpreter or its packages live in (a venv under ~/.config, say).
    needed = {os.path.realpath(p) for p in [sys.prefix, sys.base_prefix, sys.executable, str(RUNNER), *sys.path] if p}
    out = set()
    for p in paths:
        real = os.path.realpath(p)
        if p.exists() and not any(n == real or n.startswith(real + os.sep) for n in needed):
            out.add(str(p))
    return sorted(out)


def _protect_parent() -> None:
    """Without a PID namespace the code could read this process's environment (API keys)
    from ``/proc/PID/environ``; a non-dumpable process's files there are root's only."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 0
    except (OSError, AttributeError):
        pass


def _base_env(workdir: str) -> dict[str, str]:
    """The child's whole environment: nothing inherited, so no key can leak through it."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": workdir,
        "TMPDIR": workdir,
        "TMP": workdir,
        "TEMP": workdir,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }


# ---------------------------------------------------------------------------- running


class Sandbox:
    """Runs code on a workbook; one instance may serve many threads."""

    def __init__(self, limits: Limits | None = None, *, isolation: str = "auto", guard: bool = True, python: str | None = None):
        self.limits = limits or Limits()
        self.isolation = isolation
        self.guard = guard
        self.python = python or sys.executable
        self.prefix = namespace_prefix(isolation)
        if not self.prefix:
            _protect_parent()

    def describe(self) -> str:
        if not self.prefix and not landlock_available():
            return "process isolation without kernel confinement: empty environment, private HOME, rlimits, audit guard (native code can bypass it)"
        if not self.prefix:
            return ("process isolation (no namespaces): Landlock (writes only in the work dir, no reads of HOME, /proc or "
                    "/tmp), seccomp (no sockets, no new processes), empty environment, private HOME, rlimits, audit guard")
        flags = [a for a in self.prefix[1:] if a.startswith("--")]
        return ("namespaces " + " ".join(flags) + " + read-only mounts + no capabilities + seccomp (no new processes)"
                " + rlimits + audit guard")

    def run(self, code: str, input_path: Path, *, output_to: Path | None = None, cancel: threading.Event | None = None) -> ExecResult:
        """Run ``code`` with INPUT_PATH = a copy of ``input_path``; move the produced
        workbook to ``output_to`` (when given and produced)."""
        base = Path(tempfile.mkdtemp(prefix="skillopt-xlsx-"))
        try:
            return self._run_in(base, code, Path(input_path), output_to, cancel)
        finally:
            _remove_tree(base)

    def _run_in(self, base: Path, code: str, input_path: Path, output_to: Path | None, cancel) -> ExecResult:
        work, ctl = base / "work", base / "ctl"
        work.mkdir()
        ctl.mkdir()
        work_s = os.path.realpath(work)
        shutil.copyfile(input_path, work / INPUT_NAME)
        (work / CODE_NAME).write_text(code, encoding="utf-8")
        spec = {
            "workdir": work_s,
            "code_path": os.path.join(work_s, CODE_NAME),
            "input_path": os.path.join(work_s, INPUT_NAME),
            "output_path": os.path.join(work_s, OUTPUT_NAME),
            "report_fd": -1,
            "limits": self.limits.rlimits(),
            "confine_mounts": bool(self.prefix) and "--mount" in self.prefix,
            "drop_capabilities": bool(self.prefix),
            "hide": secret_paths() if self.prefix else [],
            "parent_namespaces": _namespaces(),
            "guard": self.guard,
            # also in namespace mode: root is exempt from RLIMIT_NPROC, so only this caps processes there
            "seccomp": True,
            "landlock": not self.prefix,
        }
        env = _base_env(work_s) | {"INPUT_PATH": spec["input_path"], "OUTPUT_PATH": spec["output_path"]}
        argv = [*self.prefix, self.python, "-I", "-B", str(RUNNER), str(ctl / "spec.json")]
        started = time.monotonic()
        with open(ctl / "stdout.txt", "wb") as out, open(ctl / "stderr.txt", "wb") as err, open(ctl / "report.json", "wb") as rep:
            spec["report_fd"] = rep.fileno()
            (ctl / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
            proc = subprocess.Popen(argv, cwd=work_s, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    start_new_session=True, close_fds=True, pass_fds=(rep.fileno(),))
            outcome = self._wait(proc, started, cancel)
        duration = time.monotonic() - started
        stdout = _clip_file(ctl / "stdout.txt", self.limits.output_chars)
        stderr = _without_launcher_noise(_clip_file(ctl / "stderr.txt", self.limits.output_chars))
        report = _read_report(ctl / "report.json")
        if report.get("namespaces", {}).get("net"):
            report["network"] = "isolated (network namespace)"
        elif "seccomp" in str(report.get("syscalls", "")):
            report["network"] = "denied (seccomp: no sockets)"
        else:
            report["network"] = "audit guard only"
        common = {"returncode": proc.returncode, "stdout": stdout, "stderr": stderr, "duration_s": duration, "sandbox": report}
        if outcome == "timeout":
            return ExecResult(status="timeout", message=f"killed after the wall-time limit of {self.limits.wall_s:g}s", **common)
        if outcome == "cancelled":
            return ExecResult(status="cancelled", message="cancelled", **common)
        if proc.returncode != 0:
            return ExecResult(status="error", message=self._exit_reason(proc.returncode, stderr), **common)
        produced = work / OUTPUT_NAME
        try:
            info = os.lstat(produced)
        except FileNotFoundError:
            return ExecResult(status="no_output", message="the script finished but saved no workbook at OUTPUT_PATH", **common)
        if not stat.S_ISREG(info.st_mode):
            return ExecResult(status="error", message="OUTPUT_PATH is not a regular file", **common)
        kept = None
        if output_to is not None:
            output_to.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(produced, output_to, follow_symlinks=False)
            kept = output_to
        return ExecResult(status="ok", output=kept, **common)

    def _wait(self, proc: subprocess.Popen, started: float, cancel) -> str:
        deadline = started + self.limits.wall_s
        while True:
            try:
                proc.wait(timeout=0.05)
                return "done"
            except subprocess.TimeoutExpired:
                pass
            if time.monotonic() >= deadline:
                _kill_group(proc)
                return "timeout"
            if cancel is not None and cancel.is_set():
                _kill_group(proc)
                return "cancelled"

    def _exit_reason(self, code: int, stderr: str) -> str:
        sig = -code if code < 0 else (code - 128 if code > 128 else 0)
        if sig and sig in _SIGNAL_REASONS and (code < 0 or not stderr.strip()):
            reason = _SIGNAL_REASONS[sig]
            if sig == signal.SIGXCPU:
                reason += f" ({self.limits.cpu_s}s)"
            return reason
        last = [line for line in stderr.strip().splitlines() if line.strip()]
        if "MemoryError" in stderr:
            return f"memory limit exceeded ({self.limits.memory_mb} MB address space)"
        if not last and self.prefix:
            return f"terminated by a signal (a resource limit?), status {code}"
        return last[-1].strip() if last else f"exited with status {code}"


def _without_launcher_noise(stderr: str) -> str:
    """Drop ``unshare``'s own complaints (printed when the child dies by a signal)."""
    return "\n".join(line for line in stderr.splitlines() if not line.startswith("unshare: "))


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def _clip_file(path: Path, limit: int) -> str:
    """Head and tail of a (possibly huge) output file, read without loading it whole."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            if size <= limit:
                return fh.read().decode("utf-8", "replace")
            head = fh.read(limit // 2).decode("utf-8", "replace")
            fh.seek(size - limit // 2)
            tail = fh.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return f"{head}\n[... {size - limit} bytes omitted ...]\n{tail}"


def _read_report(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"error": "the runner did not report (it failed before confinement finished)"}


def _remove_tree(path: Path) -> None:
    def retry(func, target, _exc):
        try:
            os.chmod(os.path.dirname(target), 0o700)
            os.chmod(target, 0o700)
            func(target)
        except OSError:
            pass

    shutil.rmtree(path, onerror=retry)
