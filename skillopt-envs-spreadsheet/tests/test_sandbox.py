"""The code executor: the user's code runs as written, confined, and cannot hurt the host.

Every test runs real subprocesses. Where the host allows Linux namespaces, the kernel
layers are tested on their own too (audit guard off), so a pass is not just the guard.
"""

from __future__ import annotations

import os
import socket
import threading
import time

import pytest
from sheet_helpers import SIMPLE_INPUT, SOLUTION

from skillopt_envs_spreadsheet.sandbox import Limits, Sandbox

SECRET = "sk-test-0123456789abcdef-not-a-real-key"


@pytest.fixture
def book(xlsx):
    return xlsx("input.xlsx", SIMPLE_INPUT)


def test_runs_code_and_returns_the_workbook(sandbox, book, tmp_path):
    import openpyxl

    result = sandbox.run(SOLUTION, book, output_to=tmp_path / "out.xlsx")
    assert result.ok, result
    ws = openpyxl.load_workbook(tmp_path / "out.xlsx")["Sheet1"]
    assert [ws["D2"].value, ws["D3"].value] == [3.0, 6.0]


def test_future_imports_and_multiline_strings_run_as_written(sandbox, book, tmp_path):
    # upstream indented the code into a try: block, which broke both
    code = '''from __future__ import annotations
import openpyxl
TEXT = """first line
    second line keeps its four spaces
third"""
def label(x: SomeUndefinedType) -> str:  # annotations stay lazy thanks to the future import
    return str(x)
wb = openpyxl.load_workbook(INPUT_PATH)
wb["Sheet1"]["E1"] = TEXT
wb.save(OUTPUT_PATH)
'''
    import openpyxl

    result = sandbox.run(code, book, output_to=tmp_path / "out.xlsx")
    assert result.ok, result.stderr
    assert openpyxl.load_workbook(tmp_path / "out.xlsx")["Sheet1"]["E1"].value == (
        "first line\n    second line keeps its four spaces\nthird")


def test_paths_come_from_globals_argv_and_env(sandbox, book, tmp_path):
    code = """import os, sys, shutil
assert sys.argv[1] == INPUT_PATH == os.environ["INPUT_PATH"]
assert sys.argv[2] == OUTPUT_PATH == os.environ["OUTPUT_PATH"]
shutil.copyfile(INPUT_PATH, OUTPUT_PATH)
"""
    assert sandbox.run(code, book, output_to=tmp_path / "o.xlsx").ok


def test_parent_secrets_are_invisible(monkeypatch, book, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("SKILLOPT_TEST_TOKEN", SECRET)
    code = f"""import glob, os
seen = [k for k, v in os.environ.items() if {SECRET!r} in v]
for path in glob.glob("/proc/[0-9]*/environ"):
    try:
        if {SECRET!r}.encode() in open(path, "rb").read():
            seen.append(path)
    except OSError:
        pass
print("LEAKED" if seen else "clean", sorted(os.environ))
"""
    for isolation in ("auto", "basic"):
        result = Sandbox(Limits(wall_s=20), isolation=isolation).run(code, book)
        assert "clean" in result.stdout, (isolation, result)
        assert "OPENAI_API_KEY" not in result.stdout and SECRET not in result.stdout + result.stderr


def test_environment_is_scrubbed_and_cwd_is_a_fresh_temp_dir(sandbox, book, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = """import os
print(sorted(os.environ))
print("CWD", os.getcwd())
open("relative.txt", "w").write("x")
"""
    result = sandbox.run(code, book)
    names = eval(result.stdout.splitlines()[0])
    assert set(names) <= {"PATH", "HOME", "TMPDIR", "TMP", "TEMP", "LANG", "LC_ALL", "INPUT_PATH", "OUTPUT_PATH"}
    cwd = result.stdout.splitlines()[1].split(" ", 1)[1]
    assert cwd != str(tmp_path) and "skillopt-xlsx-" in cwd
    assert not (tmp_path / "relative.txt").exists()
    assert not os.path.exists(cwd), "the work directory is removed after the run"


@pytest.mark.parametrize("guard", [True, False])
def test_writes_outside_the_work_dir_are_refused(book, tmp_path, guard, namespaces_available):
    if not guard and not namespaces_available:
        pytest.skip("without namespaces only the audit guard protects the filesystem")
    target = tmp_path / "escaped.txt"
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    code = f"""import os, shutil
for attempt in (lambda: open({str(target)!r}, "w").write("x"),
                lambda: os.remove({str(victim)!r}),
                lambda: os.rename({str(victim)!r}, "stolen.txt"),
                lambda: shutil.copyfile(INPUT_PATH, {str(target)!r})):
    try:
        attempt()
        print("ESCAPED")
    except (OSError, PermissionError) as exc:
        print("refused:", type(exc).__name__)
"""
    result = Sandbox(Limits(wall_s=20), guard=guard).run(code, book)
    assert "ESCAPED" not in result.stdout, result
    assert result.stdout.count("refused") == 4
    assert not target.exists() and victim.read_text() == "keep me"


@pytest.mark.parametrize("guard", [True, False])
def test_no_network(book, guard, namespaces_available):
    if not guard and not namespaces_available:
        pytest.skip("without a network namespace only the audit guard blocks sockets")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    accepted, done = [], threading.Event()

    def accept():
        while not done.is_set() and not accepted:
            try:
                conn, _ = server.accept()
                accepted.append(conn)
            except OSError:
                pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    code = f"""import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=3).sendall(b"hi")
    print("CONNECTED")
except Exception as exc:
    print("blocked:", type(exc).__name__, exc)
"""
    result = Sandbox(Limits(wall_s=20), guard=guard).run(code, book)
    done.set()
    thread.join()
    server.close()
    assert "blocked" in result.stdout and not accepted, result


def test_subprocesses_and_native_calls_are_refused(sandbox, book):
    code = """import subprocess
subprocess.run(["sh", "-c", "echo pwned"])
"""
    result = sandbox.run(code, book)
    assert result.status == "error" and "not allowed" in result.message
    result = sandbox.run("import ctypes\nctypes.CDLL('libc.so.6')", book)
    assert result.status == "error" and "not allowed" in result.message


def test_infinite_loop_hits_the_cpu_limit(book):
    started = time.monotonic()
    result = Sandbox(Limits(wall_s=20, cpu_s=1)).run("while True:\n    pass\n", book)
    assert result.status == "error" and "CPU time limit" in result.message, result
    assert time.monotonic() - started < 10


def test_sleeping_code_hits_the_wall_limit_and_the_group_is_killed(book):
    started = time.monotonic()
    result = Sandbox(Limits(wall_s=1.5, cpu_s=5)).run("import time\ntime.sleep(60)\n", book)
    assert result.status == "timeout" and result.returncode is not None
    assert time.monotonic() - started < 8


def test_cancellation_stops_the_run(book):
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    result = Sandbox(Limits(wall_s=30)).run("import time\ntime.sleep(60)\n", book, cancel=cancel)
    assert result.status == "cancelled"


def test_memory_limit(book):
    result = Sandbox(Limits(wall_s=20, memory_mb=512)).run("block = bytearray(2 * 1024 ** 3)\n", book)
    assert result.status == "error" and "memory limit" in result.message


def test_output_is_capped(book):
    result = Sandbox(Limits(wall_s=20, output_chars=1000)).run("print('x' * 2_000_000)\n", book)
    assert len(result.stdout) < 1200 and "omitted" in result.stdout


def test_file_size_limit(book):
    code = "open('big.bin', 'wb').write(b'0' * (3 * 1024 * 1024))\n"
    result = Sandbox(Limits(wall_s=20, file_mb=1)).run(code, book)
    assert result.status == "error" and "File too large" in result.stderr


def test_no_output_and_errors_are_reported(sandbox, book):
    assert sandbox.run("x = 1\n", book).status == "no_output"
    result = sandbox.run("import openpyxl\nwb = openpyxl.load_workbook(INPUT_PATH)\nwb['Nope']\n", book)
    assert result.status == "error" and "KeyError" in result.message
    assert 'solution.py", line 3' in result.stderr  # the traceback points into the user's file


def test_report_says_what_was_enforced(sandbox, book, namespaces_available):
    report = sandbox.run("pass\n", book).sandbox
    assert report["guard"] == "audit hook" and report["rlimits"]["cpu_s"] == 10
    if namespaces_available:
        assert report["network"].startswith("isolated")
        assert report["filesystem"] == "read-only except the work directory", report
        assert report["capabilities"].startswith("dropped")


def test_agent_credentials_and_shell_history_are_hidden(monkeypatch, tmp_path, book, namespaces_available):
    if not namespaces_available:
        pytest.skip("hiding files needs a private mount namespace")
    home = tmp_path / "home"
    planted = {home / ".codex" / "auth.json": "codex-token-5d1e", home / ".claude" / ".credentials.json": "claude-token-9a7b",
               home / ".bash_history": "export OPENAI_API_KEY=history-key-3c2f", home / ".claude.json": "claude-json-8e4d"}
    for path, text in planted.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    monkeypatch.setenv("HOME", str(home))
    code = f"""import os
found = []
for path in {[str(p) for p in planted]!r}:
    try:
        found.append(open(path).read())
    except OSError:
        pass
print("FOUND", found)
"""
    result = Sandbox(Limits(wall_s=20)).run(code, book)
    assert result.ok or "FOUND" in result.stdout, result
    for text in planted.values():
        assert text not in result.stdout + result.stderr, result.stdout


# ---------------------------------------------------------------------------- without namespaces

HOSTILE = """import os, socket
results = {}
def attempt(name, fn):
    try:
        fn()
        results[name] = "DONE"
    except BaseException as exc:
        results[name] = "refused " + type(exc).__name__
def write_outside():
    fd = os.open(os.path.basename(TARGET), os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=os.open(os.path.dirname(TARGET), os.O_RDONLY))
    os.write(fd, b"escaped")
def connect():
    import _socket
    s = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    s.connect(("127.0.0.1", PORT))
def spawn():
    import _posixsubprocess
    _posixsubprocess.fork_exec(["/bin/true"], [b"/bin/true"], True, (), None, None, -1, -1, -1, -1, -1, -1, -1, -1, False,
                               False, -1, None, None, None, -1, None, False)
def parent_env():
    data = open(f"/proc/{os.getppid()}/environ", "rb").read() + open("/proc/1/environ", "rb").read()
    if SECRET.encode() in data:
        raise SystemError("LEAK")
    raise PermissionError("no key there")
attempt("write", write_outside)
attempt("socket", connect)
attempt("fork", os.fork) if hasattr(os, "fork") else None
attempt("spawn", spawn)
attempt("auth", lambda: open(AUTH).read())
attempt("environ", parent_env)
print("RESULTS", results)
"""


def _process_mode_run(tmp_path, book, monkeypatch, guard):
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", SECRET)
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "auth.json").write_text("codex-login-token-4e1f")
    monkeypatch.setenv("HOME", str(home))
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    target = tmp_path / "escaped.txt"
    prelude = (f"TARGET = {str(target)!r}\nPORT = {listener.getsockname()[1]}\nSECRET = {SECRET!r}\n"
               f"AUTH = {str(home / '.codex' / 'auth.json')!r}\n")
    try:
        result = Sandbox(Limits(wall_s=30), isolation="process", guard=guard).run(prelude + HOSTILE, book)
    finally:
        listener.close()
    line = next((x for x in result.stdout.splitlines() if x.startswith("RESULTS")), "")
    assert line, result
    return eval(line.split(" ", 1)[1]), target, result


@pytest.mark.parametrize("guard", [True, False])
def test_process_isolation_contains_pure_python_bypasses(tmp_path, book, monkeypatch, guard):
    """The non-namespace path, forced by configuration; ``guard=False`` shows the kernel
    layers (Landlock and seccomp) hold on their own against calls that bypass the
    Python audit hook (``os.open(dir_fd=)``, ``_posixsubprocess``, ``_socket``)."""
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("Landlock and seccomp are Linux-only")
    results, target, result = _process_mode_run(tmp_path, book, monkeypatch, guard)
    if not str(result.sandbox.get("filesystem", "")).startswith("Landlock"):
        pytest.skip(f"this kernel has no Landlock: {result.sandbox.get('filesystem')}")
    assert results["write"].startswith("refused") and not target.exists(), results
    assert results["auth"].startswith("refused"), results
    assert results["socket"].startswith("refused"), results
    assert results["spawn"].startswith("refused") and results.get("fork", "refused").startswith("refused"), results
    assert results["environ"].startswith("refused") and "LEAK" not in results["environ"], results
    assert "seccomp" in result.sandbox["syscalls"] and result.sandbox["network"].startswith("denied"), result.sandbox


def test_auto_uses_process_isolation_where_only_landlock_exists(monkeypatch):
    from skillopt_envs_spreadsheet import sandbox

    monkeypatch.setitem(sandbox._PROBED, "auto", [])
    monkeypatch.setattr(sandbox, "landlock_available", lambda: True)
    assert "Landlock" in Sandbox(Limits(), isolation="auto").describe()


def test_auto_refuses_without_namespaces_and_says_how_to_opt_in(monkeypatch):
    from skillopt_envs_spreadsheet import sandbox

    monkeypatch.setitem(sandbox._PROBED, "auto", [])  # a host where unshare cannot create namespaces
    monkeypatch.setattr(sandbox, "landlock_available", lambda: False)  # ... nor Landlock (macOS, old kernels)
    with pytest.raises(sandbox.SandboxUnavailable) as err:
        Sandbox(Limits(), isolation="auto")
    assert "env.isolation=process" in str(err.value)
    with pytest.raises(sandbox.SandboxUnavailable):
        Sandbox(Limits(), isolation="strict")
    assert Sandbox(Limits(), isolation="process").prefix == []  # the explicit opt-in runs
    from skillopt.api import EnvUnavailable

    assert isinstance(err.value, EnvUnavailable)  # the engine stops the run instead of failing every item


# ---------------------------------------------------------------------------- processes in namespace mode

FORK_150 = """import os, time
made, refused = 0, ""
for _ in range(150):
    try:
        pid = os.fork()
    except OSError as exc:
        refused = f"{type(exc).__name__} errno {exc.errno}"
        break
    if pid == 0:
        time.sleep(5)
        os._exit(0)
    made += 1
print("FORKED", made, refused)
"""


@pytest.mark.parametrize("guard", [True, False])
def test_namespace_mode_caps_the_processes_a_program_can_make(book, guard, namespaces_available):
    """Root is exempt from RLIMIT_NPROC, so in namespace mode (run as root here) a program
    forked 150 children. The kernel now refuses new processes there as in process mode
    (seccomp: fork, vfork, clone without CLONE_THREAD, clone3), so the cap is the program
    itself; ``guard=False`` shows the kernel layer holds without the Python audit guard."""
    if not namespaces_available:
        pytest.skip("this host cannot create Linux namespaces (no unshare, or neither root nor user namespaces)")
    result = Sandbox(Limits(wall_s=30), isolation="strict", guard=guard).run(FORK_150, book)
    assert result.sandbox["namespaces"].get("pid"), result.sandbox
    line = next((x for x in result.stdout.splitlines() if x.startswith("FORKED")), "")
    assert line, result
    assert int(line.split()[1]) == 0, line
    assert ("SandboxViolation" if guard else "PermissionError errno 1") in line  # the guard's refusal, else seccomp's EPERM
    assert "no new processes" in result.sandbox["syscalls"], result.sandbox
