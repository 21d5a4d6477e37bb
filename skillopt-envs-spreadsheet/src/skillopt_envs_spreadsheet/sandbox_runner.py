"""Child side of the code sandbox: confine this process, then run the user's file.

Started as ``python -I -B sandbox_runner.py SPEC.json`` (usually under ``unshare``), so
it must import nothing but the standard library. It never edits the user's code: the
file is compiled whole by :func:`runpy.run_path`, which keeps ``from __future__``
imports and multi-line strings intact (upstream indented the code into a ``try:``).

Confinement, strongest first, each recorded in the report file:

1. in a private mount namespace (Linux, root or user namespace): every mount is
   remounted read-only except the work directory, and secret folders are hidden;
2. all capabilities dropped (bounding set too) and ``no_new_privs`` set, so the
   process cannot undo (1) or gain privileges through exec;
3. a seccomp filter: no new processes (fork, vfork, clone without CLONE_THREAD, clone3)
   and no sockets, in every mode: root is exempt from RLIMIT_NPROC, so in namespace mode
   (run as root) this, not the rlimit, is what caps processes;
4. rlimits: CPU seconds, address space, file size, open files, processes, no core;
5. an audit hook that refuses writes outside the work directory, sockets,
   subprocesses/exec/fork, signals to other processes and ``ctypes``. It is a
   Python-level guard (native code can bypass it), hence the kernel layers above.
"""

from __future__ import annotations

import json
import os
import re
import sys


def _write_report(handle, report: dict) -> None:
    handle.write(json.dumps(report))
    handle.flush()
    handle.close()


# ---------------------------------------------------------------------------- mounts and caps

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME, MS_STRICTATIME = 1024, 2048, 1 << 21, 1 << 24
_OPTION_FLAGS = {
    "nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC, "noatime": MS_NOATIME,
    "nodiratime": MS_NODIRATIME, "relatime": MS_RELATIME, "strictatime": MS_STRICTATIME,
}


def _libc():
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    return ctypes, libc


def _mount(ctypes, libc, source, target, fstype, flags) -> str | None:
    enc = lambda s: None if s is None else os.fsencode(s)
    if libc.mount(enc(source), enc(target), enc(fstype), flags, None) != 0:
        return os.strerror(ctypes.get_errno())
    return None


def _mount_points() -> list[tuple[str, list[str]]]:
    points = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as fh:
        for line in fh:
            fields = line.split()
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
            points.append((point, fields[5].split(",")))
    return points


def confine_mounts(workdir: str, hide: list[str]) -> dict:
    """Read-only filesystem except ``workdir``; ``hide`` paths covered by empty mounts."""
    ctypes, libc = _libc()
    err = _mount(ctypes, libc, None, "/", None, MS_REC | MS_PRIVATE)
    if err:
        return {"filesystem": f"not enforced (cannot make mounts private: {err})"}
    err = _mount(ctypes, libc, workdir, workdir, None, MS_BIND | MS_REC)
    if err:
        return {"filesystem": f"not enforced (cannot bind the work directory: {err})"}
    hidden = []
    for path in hide:
        if os.path.isdir(path) and not os.path.islink(path):
            if not _mount(ctypes, libc, "tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC):
                hidden.append(path)
        elif os.path.isfile(path):
            if not _mount(ctypes, libc, "/dev/null", path, None, MS_BIND):
                hidden.append(path)
    failed = []
    root_ok = False
    for point, options in _mount_points():
        if point == workdir:
            continue
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY
        for option in options:
            flags |= _OPTION_FLAGS.get(option, 0)
        err = _mount(ctypes, libc, None, point, None, flags)
        if err:
            failed.append(f"{point}: {err}")
        elif point == "/":
            root_ok = True
    state = "read-only except the work directory" if root_ok else "not enforced (cannot remount / read-only)"
    return {"filesystem": state, "hidden": hidden, "remount_failures": failed[:10]}


def drop_capabilities() -> str:
    """Empty the bounding set and every capability set; forbid privilege gain on exec."""
    ctypes, libc = _libc()
    PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 24, 38
    for cap in range(64):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    nnp = libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]  # noqa: RUF012 - ctypes reads the class attribute

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]  # noqa: RUF012 - ctypes reads the class attribute

    header, data = Header(0x20080522, 0), (Data * 2)()
    ok = libc.capset(ctypes.byref(header), data) == 0
    return ("dropped" if ok else "not dropped") + (", no_new_privs" if nnp else "")


# ---------------------------------------------------------------------------- rlimits


def set_limits(limits: dict) -> dict:
    try:
        import resource
    except ImportError:  # not a POSIX system: only the parent's wall-time limit applies
        return {"all": "not available on this platform"}

    applied = {}
    table = {
        "cpu_s": (resource.RLIMIT_CPU, lambda v: (int(v), int(v) + 1)),
        "memory_bytes": (resource.RLIMIT_AS, lambda v: (int(v), int(v))),
        "file_bytes": (resource.RLIMIT_FSIZE, lambda v: (int(v), int(v))),
        "nofile": (resource.RLIMIT_NOFILE, lambda v: (int(v), int(v))),
        "nproc": (resource.RLIMIT_NPROC, lambda v: (int(v), int(v))),
        "core": (resource.RLIMIT_CORE, lambda v: (int(v), int(v))),
    }
    for key, (which, pair) in table.items():
        if limits.get(key) is None:
            continue
        soft, hard = pair(limits[key])
        _cur_soft, cur_hard = resource.getrlimit(which)
        if cur_hard != resource.RLIM_INFINITY:
            soft, hard = min(soft, cur_hard), min(hard, cur_hard)
        try:
            resource.setrlimit(which, (soft, hard))
            applied[key] = soft
        except (ValueError, OSError) as exc:
            applied[key] = f"not set: {exc}"
    return applied


class CpuTimeLimitExceeded(Exception):
    pass


def _raise_on_cpu_limit(seconds) -> None:
    """Turn the soft CPU limit's SIGXCPU into an exception with a clear message (the
    hard limit, one second later, still kills code that swallows it)."""
    import signal

    def handler(_signum, _frame):
        raise CpuTimeLimitExceeded(f"CPU time limit of {seconds}s exceeded (infinite loop?)")

    if hasattr(signal, "SIGXCPU"):
        signal.signal(signal.SIGXCPU, handler)


# ---------------------------------------------------------------------------- audit guard

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_PATH_EVENTS = {
    "os.remove": 0, "os.rename": (0, 1), "os.replace": (0, 1), "os.mkdir": 0, "os.rmdir": 0, "os.symlink": (1,),
    "os.link": (0, 1), "os.truncate": 0, "os.chmod": 0, "os.chown": 0, "os.utime": 0, "os.chflags": 0,
    "os.lchflags": 0, "os.lchmod": 0, "os.mkfifo": 0, "os.mknod": 0, "shutil.rmtree": 0, "os.setxattr": 0,
    "os.removexattr": 0,
}
_DENIED_PREFIXES = ("socket.", "ctypes.dlopen", "ctypes.dlsym", "ctypes.call_function", "ctypes.cdata", "ctypes.string_at",
                    "ctypes.wstring_at", "subprocess.", "os.exec", "os.spawn", "os.posix_spawn", "os.fork", "os.forkpty",
                    "os.system", "os.startfile", "pty.", "winreg.", "_winapi.", "os.kill", "os.killpg", "signal.pthread_kill",
                    "sys.remote_exec", "webbrowser.", "urllib.", "ftplib.", "smtplib.",
                    "imaplib.", "poplib.", "nntplib.", "telnetlib.", "http.client.")


class SandboxViolation(PermissionError):
    pass


def install_guard(workdir: str) -> None:
    """Refuse, at the Python level, what the user's code may not do."""
    root = os.path.realpath(workdir)
    inside_prefix = root + os.sep
    realpath, fspath, fsdecode = os.path.realpath, os.fspath, os.fsdecode
    allowed_devices = {"/dev/null"}

    def inside(path) -> bool:
        if isinstance(path, int):
            return True  # an already-open descriptor
        try:
            text = fsdecode(fspath(path))
        except TypeError:
            return False
        if text in allowed_devices:
            return True
        full = realpath(text)
        return full == root or full.startswith(inside_prefix)

    own_proc = f"/proc/{os.getpid()}"

    def other_process(path) -> bool:
        """/proc/<pid>/... of another process (its environment may hold secrets)."""
        if isinstance(path, int):
            return False
        try:
            full = realpath(fsdecode(fspath(path)))
        except TypeError:
            return False
        parts = full.split(os.sep)
        return len(parts) > 2 and parts[1] == "proc" and parts[2].isdigit() and not (full + os.sep).startswith(own_proc + os.sep)

    def hook(event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None, None))[:3]
            if path is not None and other_process(path):
                raise SandboxViolation(f"sandbox: reading other processes' /proc entries is not allowed: {path!r}")
            writing = (isinstance(mode, str) and any(ch in mode for ch in "wax+")) or (
                isinstance(flags, int) and flags > 0 and flags & _WRITE_FLAGS
            )
            if writing and path is not None and not inside(path):
                raise SandboxViolation(f"sandbox: writing outside the work directory is not allowed: {path!r}")
            return
        spec = _PATH_EVENTS.get(event)
        if spec is not None:
            for index in (spec if isinstance(spec, tuple) else (spec,)):
                if index < len(args) and args[index] is not None and not inside(args[index]):
                    raise SandboxViolation(f"sandbox: {event} outside the work directory is not allowed: {args[index]!r}")
            return
        if event.startswith(_DENIED_PREFIXES):
            if event in ("socket.gethostname",):
                return
            raise SandboxViolation(f"sandbox: {event} is not allowed (no network, subprocesses or native calls)")

    sys.addaudithook(hook)


# ---------------------------------------------------------------------------- main


def _user_traceback(exc: BaseException, code_path: str) -> str:
    """The traceback from the user's file on (our own frames are noise to the model)."""
    import traceback

    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != code_path:
        tb = tb.tb_next
    if tb is None:
        return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return "".join(traceback.format_exception(type(exc), exc, tb))


# ---------------------------------------------------------------------------- without namespaces

#: (audit arch, socket, fork, vfork, clone, clone3) syscall numbers per machine
_SYSCALLS = {"x86_64": (0xC000003E, 41, 57, 58, 56, 435), "aarch64": (0xC00000B7, 198, None, None, 220, 435)}


def deny_network_and_processes() -> str:
    """A seccomp filter: ``socket()`` fails with EACCES, new processes (fork, vfork, clone
    without CLONE_THREAD, clone3) with EPERM/ENOSYS; threads still work. Needs no
    privilege (``no_new_privs`` is set first), so it contains code where namespaces
    cannot be created. Native code cannot bypass it: the kernel checks every syscall."""
    import ctypes
    import platform
    import struct

    numbers = _SYSCALLS.get(platform.machine())
    if numbers is None:
        return f"not installed (no syscall table for {platform.machine()})"
    arch, sys_socket, sys_fork, sys_vfork, sys_clone, sys_clone3 = numbers
    ld, jeq, jset, ret = 0x20, 0x15, 0x45, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, BPF_JMP|JSET|K, BPF_RET|K
    allow, kill = 0x7FFF0000, 0x80000000
    eacces, eperm, enosys = 0x00050000 | 13, 0x00050000 | 1, 0x00050000 | 38
    prog = [(ld, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, kill), (ld, 0, 0, 0)]
    if arch == 0xC000003E:  # x32 syscalls (bit 30) would dodge the table
        prog += [(0x35, 0, 1, 0x40000000), (ret, 0, 0, kill)]  # BPF_JMP|JGE|K
    prog += [(jeq, 0, 1, sys_socket), (ret, 0, 0, eacces), (jeq, 0, 1, sys_clone3), (ret, 0, 0, enosys)]
    for nr in (sys_fork, sys_vfork):
        if nr is not None:
            prog += [(jeq, 0, 1, nr), (ret, 0, 0, eperm)]
    # clone: allowed only with CLONE_THREAD (0x10000) in its flags (args[0], low word at offset 16)
    prog += [(jeq, 0, 3, sys_clone), (ld, 0, 0, 16), (jset, 1, 0, 0x10000), (ret, 0, 0, eperm), (ret, 0, 0, allow)]
    raw = b"".join(struct.pack("HBBI", *ins) for ins in prog)
    buf = ctypes.create_string_buffer(raw)

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = Prog(len(prog), ctypes.addressof(buf))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        return f"not installed (no_new_privs: {os.strerror(ctypes.get_errno())})"
    if libc.prctl(22, 2, ctypes.addressof(fprog), 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        return f"not installed ({os.strerror(ctypes.get_errno())})"
    return "no sockets, no new processes (seccomp)"


def landlock(workdir: str) -> str:
    """Landlock (Linux >= 5.13, no privilege needed): the work directory is the only
    place this process may write; it may read only the interpreter, its packages and the
    system's libraries (not HOME, not /proc, not /tmp); TCP is denied (ABI >= 4) and
    signals to processes outside the sandbox too (ABI >= 6)."""
    import ctypes
    import platform
    import struct

    if platform.machine() not in ("x86_64", "aarch64"):
        return f"not enforced (no syscall numbers for {platform.machine()})"
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        return f"not enforced (Landlock unavailable: {os.strerror(ctypes.get_errno())})"
    read = 1 | 4 | 8  # execute, read file, read dir
    write = 2 | 16 | 32 | 64 | 128 | 256 | 512 | 1024 | 2048 | 4096
    handled = read | write | (8192 if abi >= 2 else 0) | (16384 if abi >= 3 else 0) | (32768 if abi >= 5 else 0)
    fields = [handled]
    if abi >= 4:
        fields.append(1 | 2)  # TCP bind and connect, no rule allows either
    if abi >= 6:
        fields.append(1 | 2)  # abstract unix sockets and signals scoped to the sandbox
    attr = ctypes.create_string_buffer(struct.pack(f"{len(fields)}Q", *fields))
    ruleset = libc.syscall(444, attr, ctypes.c_size_t(len(attr.raw)), ctypes.c_uint32(0))
    if ruleset < 0:
        return f"not enforced (create_ruleset: {os.strerror(ctypes.get_errno())})"
    readable = {sys.prefix, sys.base_prefix, sys.exec_prefix, "/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc/ssl",
                "/etc/ld.so.cache", "/etc/localtime", "/usr/share/zoneinfo"}
    readable |= {p for p in sys.path if p and os.path.isabs(p)}
    import mimetypes  # openpyxl reads the system's MIME table at import

    readable |= set(mimetypes.knownfiles)
    allowed = {os.path.realpath(p): read for p in readable if os.path.exists(p)}
    allowed[os.path.realpath(workdir)] = handled
    allowed["/dev/null"] = 2 | 4
    added = 0
    for path, access in sorted(allowed.items()):
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue
        if not os.path.isdir(path):
            access &= 1 | 2 | 4 | 16384  # rights that apply to a file
        rule = ctypes.create_string_buffer(struct.pack("=Qi", access & handled, fd))
        if libc.syscall(445, ctypes.c_int(ruleset), ctypes.c_int(1), rule, ctypes.c_uint32(0)) == 0:
            added += 1
        os.close(fd)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.syscall(446, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
        return f"not enforced (restrict_self: {os.strerror(ctypes.get_errno())})"
    os.close(ruleset)
    return f"Landlock ABI {abi}: writes only in the work directory, reads only interpreter and system files ({added} rules)"


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as fh:
        spec = json.load(fh)
    # The parent passes the report file as an inherited descriptor: a file opened here
    # would pin this namespace's root mount as "being written" and block the remount.
    report_handle = os.fdopen(int(spec["report_fd"]), "w", encoding="utf-8")
    workdir, code_path = spec["workdir"], spec["code_path"]
    report: dict = {"namespaces": {}}
    parent_ns = spec.get("parent_namespaces", {})
    for kind in ("mnt", "net", "pid"):
        try:
            mine = os.stat(f"/proc/self/ns/{kind}").st_ino
            report["namespaces"][kind] = mine != parent_ns.get(kind, mine)
        except OSError:
            report["namespaces"][kind] = False
    if spec.get("confine_mounts") and report["namespaces"].get("mnt"):
        try:
            report.update(confine_mounts(workdir, spec.get("hide", [])))
        except Exception as exc:  # noqa: BLE001 - recorded; the other layers still apply
            report["filesystem"] = f"not enforced ({type(exc).__name__}: {exc})"
    else:
        report["filesystem"] = "not enforced by the kernel (no private mount namespace)"
    if spec.get("drop_capabilities") and sys.platform.startswith("linux"):
        try:
            report["capabilities"] = drop_capabilities()
        except Exception as exc:  # noqa: BLE001
            report["capabilities"] = f"not dropped ({type(exc).__name__}: {exc})"
    try:  # imported now, so numpy (which openpyxl imports when present) finds it loaded
        import ctypes  # noqa: F401
    except ImportError:
        pass
    if spec.get("landlock") and sys.platform.startswith("linux"):
        try:
            report["filesystem"] = landlock(workdir)
        except Exception as exc:  # noqa: BLE001 - recorded; the other layers still apply
            report["filesystem"] = f"not enforced ({type(exc).__name__}: {exc})"
    if spec.get("seccomp") and sys.platform.startswith("linux"):
        try:
            report["syscalls"] = deny_network_and_processes()
        except Exception as exc:  # noqa: BLE001 - recorded; the refusal below keeps it honest
            report["syscalls"] = f"not installed ({type(exc).__name__}: {exc})"
    report["rlimits"] = set_limits(spec.get("limits", {}))
    _raise_on_cpu_limit(spec.get("limits", {}).get("cpu_s"))
    os.chdir(workdir)
    if spec.get("guard", True):
        install_guard(workdir)
        report["guard"] = "audit hook"
    _write_report(report_handle, report)

    import runpy

    sys.argv = [code_path, spec["input_path"], spec["output_path"]]
    init = {"INPUT_PATH": spec["input_path"], "OUTPUT_PATH": spec["output_path"]}
    try:
        runpy.run_path(code_path, init_globals=init, run_name="__main__")
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - reported to the parent as the traceback
        sys.stderr.write(_user_traceback(exc, code_path))
        sys.stderr.flush()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
