"""What ``skillopt sleep schedule``, ``unschedule`` and ``session-end`` do: the commands
that start nights later (cron, an agent's SessionEnd hook) rather than now."""

from __future__ import annotations

from pathlib import Path

import typer

from skillopt.api import SkillOptError, fail, print_json
from skillopt_sleep.cli.actions import info


def _night_args(kw: dict) -> list[str]:
    """The `run` options a scheduled or hook-started night is given (never --auto-adopt
    unless the caller has and set that option)."""
    args: list[str] = []
    for src in kw.get("source") or []:
        args += ["--source", src]
    if kw.get("backend") and kw["backend"] != "auto":
        args += ["--backend", kw["backend"]]
    if kw.get("model"):
        args += ["--model", kw["model"]]
    for pair in kw.get("backend_option") or []:
        args += ["--backend-option", pair]
    args += ["--lookback-hours", str(kw.get("lookback_hours", 168.0))]
    for flag, key in (("--max-calls", "max_calls"), ("--max-tokens", "max_tokens"), ("--max-cost", "max_cost")):
        if kw.get(key) is not None:
            args += [flag, str(kw[key])]
    if kw.get("auto_adopt"):
        args.append("--auto-adopt")
    return args


def schedule(**kw) -> None:
    from skillopt_sleep import schedule as sched
    from skillopt_sleep.state import project_state_dir

    project = Path(kw["project"]).resolve()
    try:
        line = sched.cron_line(
            project, hour=kw["hour"], minute=kw["minute"], args=_night_args(kw), log=project_state_dir(project) / "cron.log"
        )
        if kw["print_only"]:
            installed = False
        else:
            sched.install(sched.Crontab(file=kw.get("crontab_file")), project, line)
            installed = True
    except SkillOptError as exc:
        raise fail(str(exc)) from None
    if kw["as_json"]:
        print_json({"line": line, "installed": installed})
    elif installed:
        info(f"installed: {line}")
    else:
        typer.echo(line)


def session_end(**kw) -> None:
    import sys

    from skillopt_sleep.hook import session_end as handle

    stdin = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    try:
        line = handle(stdin, _night_args(kw), min_hours=kw["min_hours"])
    except (SkillOptError, OSError) as exc:  # a hook must never disturb the agent it runs in
        line = f"skillopt sleep: no night started: {exc}"
    info(line)


def unschedule(*, project: Path, everything: bool, crontab_file: Path | None, as_json: bool) -> None:
    from skillopt_sleep import schedule as sched

    try:
        removed = sched.remove(sched.Crontab(file=crontab_file), Path(project).resolve(), everything=everything)
    except SkillOptError as exc:
        raise fail(str(exc)) from None
    if as_json:
        print_json({"removed": removed})
    else:
        info(f"removed {removed} entr{'y' if removed == 1 else 'ies'}")
