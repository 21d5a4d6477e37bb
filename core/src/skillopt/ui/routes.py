"""The dashboard's JSON API: each route turns a request into ``(status, data)``; the
HTTP plumbing (token, Host check, headers) is :mod:`skillopt.ui.server`'s.

A run is named by its id and only ever looked up among the runs found (or launched
here), never joined onto a path, so no request reads outside the run roots.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillopt.errors import SkillOptError
from skillopt.ui import compare, runs, trajectories
from skillopt.ui.launch import LaunchRefused, RunBusy

if TYPE_CHECKING:
    from skillopt.ui.server import Dashboard

Answer = tuple[int, Any]
#: how much of a failed launch's log a run row carries
ERROR_TAIL = 4000


def _int(value: str | None) -> int:
    try:
        return int(value or "")
    except ValueError:
        return -1


def _version(value: str) -> int | str:
    return "best" if value == "best" else _int(value)


def error(status: int, message: str, **extra: Any) -> Answer:
    return status, {"error": message, **extra}


def listing(dashboard: Dashboard) -> list[dict[str, Any]]:
    """Every run found, plus runs launched here that have no run directory yet (still
    starting, or dead before they made one: their row carries the log's end)."""
    found = dashboard.index.find()
    rows = [decorate(dashboard, runs.overview(run_id, path), path) for run_id, path in found.items()]
    rows.sort(key=lambda r: r["updated"], reverse=True)
    pending = [launch_row(dashboard, run_id) for run_id in dashboard.launcher.launches() if run_id not in found]
    return pending + rows


def decorate(dashboard: Dashboard, row: dict[str, Any], path: Path) -> dict[str, Any]:
    """What only the dashboard knows of a run: whether it can resume it, and how a
    process it started ended."""
    launcher = dashboard.launcher
    row["resumable"] = row["status"] not in ("running", "finished") and launcher.resumable(row["id"], path)
    code = launcher.exit_code(row["id"])
    row["exit_code"] = code
    if code is not None and code > 0 and row["status"] != "running":  # < 0: a signal, as Stop sends
        row["error"] = launcher.log_tail(row["id"], path)[-ERROR_TAIL:]
    return row


def launch_row(dashboard: Dashboard, run_id: str) -> dict[str, Any]:
    launch = dashboard.launcher.launches()[run_id]
    code = launch.proc.poll()
    status = "starting" if code is None else "finished" if code == 0 else "failed" if code > 0 else "stopped"
    row = {"id": run_id, "path": str(launch.run_dir), "env": "", "preset": "", "status": status, "pid": launch.proc.pid,
           "steps_done": None, "steps_planned": None, "accepts": 0, "baseline_val": None, "best_val": None, "best_step": None,
           "test_initial": None, "test_best": None, "test_final": None, "cost_usd": None, "calls": None,
           "started": 0.0, "updated": 0.0, "resumable": False, "exit_code": code}
    if code is not None and code > 0:
        row["error"] = dashboard.launcher.log_tail(run_id)[-ERROR_TAIL:]
    return row


def get(dashboard: Dashboard, path: str, query: dict[str, list[str]]) -> Answer:
    """Every GET under ``/api/`` except the event stream."""
    one = {k: v[0] for k, v in query.items() if v}
    if path == "/api/runs":
        return 200, listing(dashboard)
    if path == "/api/choices":
        return 200, choices()
    if path == "/api/compare":
        ids = [i for i in one.get("runs", "").split(",") if i]
        found = dashboard.index.find()
        missing = [i for i in ids if i not in found]
        if missing:
            return error(404, f"no run named {missing[0]}")
        if len(ids) < 2:
            return error(400, "compare needs two runs or more: ?runs=A,B")
        return 200, compare.comparison({i: found[i] for i in ids})
    parts = path.split("/")[3:]  # /api/runs/ID/...
    if not path.startswith("/api/runs/") or not parts or not parts[0]:
        return error(404, "not found")
    from urllib.parse import unquote

    run_id, rest = unquote(parts[0]), parts[1:]
    run_dir = dashboard.index.get(run_id)
    if rest == ["log"]:
        return 200, {"log": dashboard.launcher.log_tail(run_id, run_dir)}
    if run_dir is None:
        if run_id in dashboard.launcher.launches() and not rest:
            return 200, {"overview": launch_row(dashboard, run_id), "history": [], "events": [], "skills": [], "steps": [],
                         "epoch_updates": [], "config": {}, "summary": {}, "log": dashboard.launcher.log_tail(run_id)}
        return error(404, f"no run named {run_id}")
    return _run_part(dashboard, run_id, run_dir, rest, one)


def _run_part(dashboard: Dashboard, run_id: str, run_dir: Path, rest: list[str], one: dict[str, str]) -> Answer:
    if not rest:
        data = runs.detail(run_id, run_dir)
        decorate(dashboard, data["overview"], run_dir)
        data["log"] = dashboard.launcher.log_tail(run_id, run_dir)
        return 200, data
    if rest[0] == "skills" and len(rest) == 2:
        text = runs.skill_text(run_dir, _version(rest[1]))
        return (200, {"text": text}) if text is not None else error(404, "no such skill version")
    if rest == ["diff"]:
        diff = runs.skill_diff(run_dir, _version(one.get("a", "0")), _version(one.get("b", "best")))
        return (200, diff) if diff is not None else error(404, "no such skill version")
    if rest[0] == "steps" and len(rest) == 2:
        step = runs.step_detail(run_dir, _int(rest[1]))
        return (200, step) if step is not None else error(404, f"no step {rest[1]} in {run_id}")
    if rest[0] == "steps" and len(rest) in (3, 4) and rest[2] == "rollouts":
        from urllib.parse import unquote

        split = one.get("split", "val")
        if len(rest) == 3:
            found = trajectories.items(run_dir, _int(rest[1]), split)
        else:
            found = trajectories.conversation(run_dir, _int(rest[1]), split, unquote(rest[3]), one.get("side", "candidate"))
        return (200, found) if found is not None else error(404, f"no {split} rollouts for step {rest[1]} of {run_id}")
    return error(404, "not found")


def post(dashboard: Dashboard, path: str, body: Any) -> Answer:
    """Check, launch, stop, resume."""
    spec = body if isinstance(body, dict) else {}
    launcher = dashboard.launcher
    try:
        if path == "/api/check":
            return 200, launcher.check(spec)
        if path == "/api/launch":
            return 202, launcher.launch(spec)
    except LaunchRefused as exc:
        return error(400, str(exc), checks=exc.checks, log=exc.log)
    except SkillOptError as exc:
        return error(400, str(exc))
    parts = path.split("/")
    if len(parts) == 5 and parts[1:3] == ["api", "runs"] and parts[4] in ("stop", "resume"):
        from urllib.parse import unquote

        run_id = unquote(parts[3])
        run_dir = dashboard.index.get(run_id)
        if parts[4] == "stop":
            stopped = launcher.stop(run_id, run_dir)
            return (200, {"stopped": True}) if stopped else error(409, f"no process is running {run_id}")
        if run_dir is None:
            return error(404, f"no run named {run_id}")
        try:
            return 202, launcher.resume(run_id, run_dir)
        except LaunchRefused as exc:
            return error(409, str(exc), log=exc.log)
        except (RunBusy, SkillOptError) as exc:
            return error(409, str(exc))
    return error(404, "not found")


def choices() -> dict[str, Any]:
    """Installed env and backend names (entry-point metadata only), for the launch form."""
    from skillopt.plugins import declared

    return {
        "envs": sorted({ep.name for ep in declared("envs")}),
        "backends": sorted({ep.name for ep in declared("backends")}),
    }
