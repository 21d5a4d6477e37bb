"""``skillopt sleep session-end``: stage a night in the background when a session ends.

Claude Code runs a plugin's ``SessionEnd`` hook with a JSON object on stdin
(``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``, ``reason``) and
waits for it before the process exits, so the hook must return at once: it starts
``python -m skillopt_sleep run --project <cwd> …`` as a detached process (its own
session, output to a 0600 log in the project's state directory) and exits 0 whatever
happens, with one line on stderr saying what it did. The night it starts only
*stages* a proposal — the command has no ``--auto-adopt`` and never passes one; the
developer still reviews and adopts.

It starts nothing when the ending session was itself automated (sleep's own replays
through ``claude -p`` end sessions too, and a night per replay would never stop), when
a night started by an earlier hook is still running, or when the last one started
less than ``--min-hours`` ago.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import attrs

from skillopt_sleep.fsutil import ensure_dir, read_json, write_json

STATE_FILE = "session-end.json"
LOG_FILE = "session-end.log"


@attrs.frozen(kw_only=True)
class HookInput:
    cwd: str = ""
    transcript_path: str = ""
    session_id: str = ""
    reason: str = ""


def read_input(text: str) -> HookInput:
    """The hook's stdin, or an empty input when it is not the JSON object Claude Code sends."""
    try:
        data = json.loads(text or "{}")
    except json.JSONDecodeError:
        return HookInput()
    if not isinstance(data, dict):
        return HookInput()
    return HookInput(**{f.name: str(data.get(f.name) or "") for f in attrs.fields(HookInput)})


def automated(transcript: str) -> bool:
    """True when the ended session's transcript reads as automation (a replay, a grader)."""
    path = Path(transcript).expanduser() if transcript else None
    if path is None or not path.is_file():
        return False
    from skillopt_sleep.harvest.claude_code import parse_file
    from skillopt_sleep.harvest.tally import counting

    with counting() as tally:
        try:
            parse_file(path)
        except (OSError, ValueError):
            return False
    return bool(tally.dropped or tally.automated)


def reason_to_skip(inp: HookInput, *, min_hours: float, now: datetime) -> str:
    """Why no night should start now ('' = start one)."""
    from skillopt.api import pid_alive
    from skillopt_sleep.state import project_state_dir

    if not inp.cwd or not Path(inp.cwd).is_dir():
        return f"no project directory in the hook input (cwd={inp.cwd!r})"
    if automated(inp.transcript_path):
        return "the session that ended was automated (a replay or a grader)"
    last = read_json(project_state_dir(Path(inp.cwd)) / STATE_FILE, default={}) or {}
    if isinstance(last.get("pid"), int) and pid_alive(last["pid"]):
        return f"a night started by an earlier session end is still running (pid {last['pid']})"
    try:
        started = datetime.fromisoformat(str(last.get("started")))
    except ValueError:
        return ""
    if now - started < timedelta(hours=min_hours):
        hours = (now - started).total_seconds() / 3600
        return f"the last night started {hours:.1f} h ago (at least {min_hours:g} h between nights)"
    return ""


def start_night(project: Path, args: list[str], *, now: datetime) -> int:
    """Start ``skillopt sleep run`` for ``project`` detached from this process; its pid."""
    from skillopt_sleep.state import project_state_dir

    state = project_state_dir(project)
    log_path = ensure_dir(state) / LOG_FILE
    log_path.touch(mode=0o600, exist_ok=True)
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "skillopt_sleep", "run", "--project", str(project), *args],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=str(project),
            start_new_session=True,
            close_fds=True,
        )
    write_json(state / STATE_FILE, {"pid": proc.pid, "started": now.isoformat(timespec="seconds"), "log": str(log_path)})
    return proc.pid


def session_end(stdin_text: str, args: list[str], *, min_hours: float, now: datetime | None = None) -> str:
    """Handle one SessionEnd hook call; the line to print (never raises for bad input)."""
    now = now or datetime.now(UTC)
    inp = read_input(stdin_text)
    skip = reason_to_skip(inp, min_hours=min_hours, now=now)
    if skip:
        return f"skillopt sleep: no night started: {skip}"
    project = Path(inp.cwd).resolve()
    pid = start_night(project, args, now=now)
    return f"skillopt sleep: staging a night for {project} in the background (pid {pid}); nothing is adopted without you"
