"""Reading run directories for the dashboard: what a person wants to see of a run.

Every reader is lenient: a run being written has no ``summary.json`` yet, a crashed one
may hold half a file, an old one may lack newer keys. A run is named by its directory
name, and a name is only ever looked up among the runs found, never joined onto a
path, so a request cannot read outside the run roots.
"""

from __future__ import annotations

import difflib
import re
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from skillopt.engine.lock import Holder, holder
from skillopt.redact import redact_data, redact_text
from skillopt.runstore import (  # re-exported (`x as x`: explicit for mypy)
    damage as damage,
    is_run_dir as is_run_dir,
    planted_link as planted_link,
    read_json as read_json,
    read_text_inside as read_text_inside,
    runs_under as runs_under,
)

_VERSION = re.compile(r"skill_v(\d+)\.md$")
_STEP = re.compile(r"step_(\d+)$")
#: a run updated this recently, without a summary, is shown as running
LIVE_WINDOW_S = 120.0


def run_history(path: Path) -> tuple[list[Any], str]:
    """``history.json`` as a resume reads it, and a warning when it had to be healed: a
    damaged or wrongly shaped file is rebuilt from the step records, the engine's way
    (:func:`skillopt.engine.reporting.rebuilt_history`), in memory (the dashboard writes
    nothing into a run)."""
    problem = damage(path / "history.json", list)
    data = [] if problem else read_json(path / "history.json")
    if not problem and isinstance(data, list) and not all(isinstance(h, dict) for h in data):
        problem = "history.json holds entries that are not step records"
    if not problem:
        return data if isinstance(data, list) else [], ""
    from skillopt.engine.reporting import rebuilt_history

    rows = rebuilt_history(path, read_json)
    return rows, (f"{problem}: its {len(rows)} step(s) are read from steps/step_NNNN/step_record.json "
                  "(resuming the run rebuilds it)")


def run_warnings(path: Path, history_problem: str) -> list[str]:
    """What is wrong with a run's files, said on its page and by ``skillopt runs show``."""
    found = [history_problem] if history_problem else []
    for name in ("runtime_state.json", "summary.json", "config.json"):
        problem = damage(path / name, dict)
        if problem:
            found.append(problem + ("; the steps and scores shown come from the other files" if name != "config.json" else ""))
    return found


class RunIndex:
    """The runs under some root folders (each root holds run directories)."""

    def __init__(self, roots: Iterable[Path]) -> None:
        self.roots = [Path(r).expanduser() for r in roots]

    def find(self) -> dict[str, Path]:
        return runs_under(self.roots)

    def get(self, run_id: str) -> Path | None:
        return self.find().get(run_id)

    def listing(self) -> list[dict[str, Any]]:
        rows = [overview(run_id, path) for run_id, path in self.find().items()]
        return sorted(rows, key=lambda r: r["updated"], reverse=True)


def _updated(path: Path) -> float:
    times = [p.stat().st_mtime for p in (path / "runtime_state.json", path / "history.json", path / "summary.json") if p.exists()]
    return max(times, default=path.stat().st_mtime)


def live_usage(path: Path) -> dict[str, Any]:
    """A running run's spend so far, from its per-call journal (``usage.jsonl``)."""
    if not (path / "usage.jsonl").is_file():
        return {}
    from skillopt.calls import Ledger

    ledger = Ledger()
    ledger.attach(path / "usage.jsonl")
    ledger.close()
    totals = ledger.totals()
    return {"requests": totals.requests, "calls": totals.calls, "cost_usd": totals.cost_usd, "cached_calls": totals.cached_calls,
            "cached_tokens": totals.cached_tokens, "cached_cost_usd": totals.cached_cost_usd}


def as_mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def overview(run_id: str, path: Path) -> dict[str, Any]:
    """One row of the runs table; a run whose files are damaged is shown as such, never
    allowed to hide the other runs."""
    try:
        return _overview(run_id, path)
    except Exception as exc:  # noqa: BLE001 - one bad run must not break the list
        when = path.stat().st_mtime if path.exists() else 0.0
        return {"id": run_id, "path": str(path), "env": "", "preset": "", "status": f"unreadable: {type(exc).__name__}",
                "pid": None, "steps_done": None, "steps_planned": None, "accepts": 0, "baseline_val": None, "best_val": None,
                "best_step": None, "test_initial": None, "test_best": None, "test_final": None, "cost_usd": None,
                "calls": None, "started": when, "updated": when, "warnings": [f"unreadable: {type(exc).__name__}"]}


def run_status(path: Path, summary: dict[str, Any], state: dict[str, Any], updated: float) -> tuple[str, Holder]:
    """A run's status and its lock holder. The lock decides whether a process is
    running it, so a run killed with SIGKILL, or stopped from the dashboard, shows as
    interrupted at once; file times decide only for runs without a lock (older runs)
    or locked from another host."""
    held = holder(path)
    if held.state == "held":
        return "running", held
    status = str(summary.get("status") or state.get("status") or "unknown")
    if summary or status == "finished":
        return status, held
    if held.state == "free" or time.time() - updated > LIVE_WINDOW_S:
        return "interrupted", held  # resumable with the same command
    return status, held


def _overview(run_id: str, path: Path) -> dict[str, Any]:
    summary = as_mapping(read_json(path / "summary.json"))
    state = as_mapping(read_json(path / "runtime_state.json"))
    config = as_mapping(read_json(path / "config.json"))
    healed, problem = run_history(path)
    history = steps_of(healed)
    updated = _updated(path)
    status, held = run_status(path, summary, state, updated)
    test = as_mapping(summary.get("test"))
    val = as_mapping(summary.get("val"))
    usage = as_mapping(summary.get("usage")) or live_usage(path)
    return {
        "id": run_id,
        "path": str(path),
        "env": summary.get("env") or as_mapping(config.get("env")).get("name", ""),
        "preset": config.get("preset", ""),
        "status": status,
        "pid": held.owner.pid if held.state == "held" and held.owner else None,
        "steps_done": _int_or(state.get("last_completed_step"), len(history)),
        "steps_planned": _int_or(summary.get("total_steps"), None) or _int_or(state.get("total_steps"), None),
        "accepts": sum(1 for h in history if str(h.get("action", "")).startswith(("accept", "force_accept"))),
        # a finished run's figures are the final evaluation's (one measurement for both), as its final line says
        "baseline_val": _num_or(val.get("baseline_gate_score"), state.get("baseline_score")),
        "best_val": _num_or(val.get("best_gate_score"), state.get("best_score")),
        "best_step": state.get("best_step"),
        "test_initial": as_mapping(test.get("initial")).get("hard"),
        "test_best": as_mapping(test.get("best")).get("hard"),
        "test_final": as_mapping(test.get("final")).get("hard"),
        "cost_usd": usage.get("cost_usd"),
        "calls": usage.get("requests", usage.get("calls")),
        "cached_calls": usage.get("cached_calls"), "cached_tokens": usage.get("cached_tokens"),
        "cached_cost_usd": usage.get("cached_cost_usd"),
        "started": _started(path),
        "updated": updated,
        "warnings": run_warnings(path, problem),
    }


def _num_or(value: Any, default: Any) -> Any:
    """``value`` when it is a number, else ``default``."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else default


def _int_or(value: Any, default: Any) -> Any:
    """``value`` when it is an integer (a damaged file may hold anything), else ``default``."""
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _started(path: Path) -> float:
    """When the run began: its config is written first and never again."""
    for name in ("config.json", "run.lock"):
        try:
            return (path / name).stat().st_mtime
        except OSError:
            continue
    return path.stat().st_mtime if path.exists() else 0.0


def steps_of(history: Any) -> list[dict[str, Any]]:
    """The step records of ``history.json`` (config-change events are listed apart)."""
    rows = history if isinstance(history, list) else []
    return [h for h in rows if isinstance(h, dict) and h.get("kind", "step") == "step"]


def detail(run_id: str, path: Path) -> dict[str, Any]:
    """Everything the run page shows; the config is redacted again on the way out."""
    history, _ = run_history(path)
    return {
        "overview": overview(run_id, path),
        "summary": redact_data(as_mapping(read_json(path / "summary.json"))),
        "config": redact_data(as_mapping(read_json(path / "config.json"))),
        "history": redact_data(steps_of(history)),
        "events": redact_data([h for h in history if isinstance(h, dict) and h.get("kind", "step") != "step"]
                              if isinstance(history, list) else []),
        "skills": skill_versions(path),
        "has_best": (path / "best_skill.md").is_file() and not planted_link(path / "best_skill.md"),
        "steps": sorted(int(m.group(1)) for p in (path / "steps").glob("step_*") if (m := _STEP.search(p.name))),
        "epoch_updates": redact_data(epoch_updates(path)),
        "frontier": frontier(path),
    }


def frontier(path: Path) -> dict[str, Any] | None:
    """The kept skills with their objectives: the final pick's finalists (scored on the
    selection split when there is one) or, before the pick, the pool as it stands. None
    when the run keeps one skill and made no pick."""
    picked = as_mapping(stage_result(path / "selection" / "result.json"))
    finalists = picked.get("finalists")
    if isinstance(finalists, list) and finalists:
        members = [{**_objectives(f), "origin": f.get("origin"), "step": f.get("step"), "val_score": f.get("val_score"),
                    "on_front": bool(f.get("on_front")), "chosen": i == picked.get("chosen")}
                   for i, f in enumerate(finalists) if isinstance(f, dict)]
        return {"source": "pick", "rule": picked.get("rule"), "split": picked.get("split"), "n_items": picked.get("n_items"),
                "reason": picked.get("reason", ""), "members": members}
    pool = as_mapping(read_json(path / "runtime_state.json")).get("pool")
    rows = [m for m in pool if isinstance(m, dict)] if isinstance(pool, list) else []
    if len(rows) < 2:
        return None
    from skillopt.strategies import PoolMember
    from skillopt.strategies.frontier import dominates

    objectives = ("accuracy", "skill_tokens", "rollout_tokens")
    kept = [PoolMember(skill_hash=str(i), path="", origin="", score=float(m.get("score") or 0.0),
                       objectives=_objectives(m)) for i, m in enumerate(rows)]
    front = [not any(dominates(o, k, objectives) for o in kept if o is not k) for k in kept]
    members = [{**_objectives(m), "origin": m.get("origin"), "step": m.get("step"), "val_score": m.get("score"),
                "on_front": f, "chosen": False} for m, f in zip(rows, front, strict=True)]
    return {"source": "pool", "split": "val", "members": members}


def _objectives(row: dict[str, Any]) -> dict[str, float]:
    found = as_mapping(row.get("objectives"))
    out = {k: float(v) for k, v in found.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    if "accuracy" not in out and isinstance(row.get("score"), (int, float)):
        out["accuracy"] = float(row["score"])
    return out


_EPOCH = re.compile(r"epoch_(\d+)$")


def epoch_updates(path: Path) -> list[dict[str, Any]]:
    """The epoch-boundary decisions (``slow_update``, gated or force-accepted, and
    ``meta_skill``), which are not steps and so are not in ``history.json``."""
    out: list[dict[str, Any]] = []
    for kind in ("slow_update", "meta_skill"):
        for folder in sorted((path / kind).glob("epoch_*")):
            m = _EPOCH.search(folder.name)
            if not m or planted_link(folder):
                continue
            proposal = as_mapping(stage_result(folder / "result.json"))
            verdict = as_mapping(as_mapping(stage_result(folder / "gate" / "result.json")).get("verdict"))
            status = str(proposal.get("status") or "")
            if kind == "meta_skill":
                action = "updated" if status == "ok" else (status or "no_change")
            else:
                action = verdict.get("action") or ("no_change" if status in ("ok", "no_content", "") else status)
            out.append({
                "epoch": int(m.group(1)), "kind": kind, "status": status, "action": action,
                "current_score": verdict.get("current_score"), "candidate_score": verdict.get("candidate_score"),
                "reason": verdict.get("reason") or proposal.get("error") or "",
            })
    return sorted(out, key=lambda e: (e["epoch"], e["kind"] != "slow_update"))


def skill_versions(path: Path) -> list[int]:
    return sorted(int(m.group(1)) for p in (path / "skills").glob("skill_v*.md") if (m := _VERSION.search(p.name)))


def skill_text(path: Path, version: int | str) -> str | None:
    """A skill version's text, or ``best`` for best_skill.md."""
    if version == "best":
        file = path / "best_skill.md"
    else:
        file = path / "skills" / f"skill_v{int(version):04d}.md"
    text = read_text_inside(file)
    return redact_text(text) if text is not None else None


def skill_diff(path: Path, a: int | str, b: int | str) -> dict[str, Any] | None:
    old, new = skill_text(path, a), skill_text(path, b)
    if old is None or new is None:
        return None
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), f"skill {a}", f"skill {b}", lineterm=""))
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    return {"a": a, "b": b, "diff": "\n".join(lines), "added": added, "removed": removed}


#: a step's stage folders, in pipeline order (each holds its completed ``result.json``)
STAGES = ("reflect", "merge", "select", "apply", "gate")


def step_detail(path: Path, step: int) -> dict[str, Any] | None:
    """A step's record and each stage's saved result (analyst minibatches, merged patch,
    ranked edits, apply report, gate verdict), keyed by stage name."""
    folder = path / "steps" / f"step_{int(step):04d}"
    if not folder.is_dir():
        return None
    files: dict[str, Any] = {}
    record = read_json(folder / "step_record.json")
    if record is not None:
        files["step_record"] = redact_data(record)
    race = as_mapping(stage_result(folder / "race" / "result.json"))
    entrants: list[Any] = race["entrants"] if isinstance(race.get("entrants"), list) else []
    won = as_mapping(entrants[race["winner"]]) if isinstance(race.get("winner"), int) and 0 <= race["winner"] < len(entrants) else {}
    if race:
        files["race"] = redact_data(race)
    where = {"merge": folder, "select": folder, "apply": folder}
    if won:  # several proposals: the winner's own folders
        where = {"merge": folder / "proposals" / f"g{int(won.get('group') or 0)}",
                 "select": folder / "proposals" / f"g{int(won.get('group') or 0)}",
                 "apply": folder / "proposals" / f"p{int(won.get('proposal') or 0)}"}
    for stage in STAGES:
        stage_dir = where.get(stage, folder) / stage
        if stage == "reflect":
            batches = {p.stem: stage_result(p) for p in sorted(stage_dir.rglob("minibatch_*.json"))}
            if batches:
                files["reflect"] = redact_data(batches)
        elif (stage_dir / "result.json").is_file():
            files[stage] = redact_data(stage_result(stage_dir / "result.json"))
    if (folder / "attribution.json").is_file():
        files["attribution"] = redact_data(stage_result(folder / "attribution.json"))
    candidate = where["apply"] / "apply" / "candidate_skill.md"
    return {
        "step": int(step),
        "files": files,
        "candidate_skill": redact_text(read_text_inside(candidate) or "") if candidate.is_file() and not planted_link(candidate) else None,
        "rollouts": sorted(p.name for p in (folder / "rollout").glob("*")) if (folder / "rollout").is_dir() else [],
    }


def stage_result(file: Path) -> Any:
    """A stage result file's payload (older runs wrote the bare payload)."""
    data = read_json(file)
    return data.get("result", data) if isinstance(data, dict) else data


def signature(path: Path) -> tuple[Any, ...]:
    """Changes whenever the run writes progress or its lock changes hands (for the live
    event stream: a SIGKILLed run writes nothing, yet must stop showing as running)."""
    times = tuple(
        (p.stat().st_mtime_ns if p.exists() else 0) for p in (path / "runtime_state.json", path / "history.json", path / "summary.json")
    )
    return (*times, holder(path).state)
