"""The fixture-home experiment: one real night on :mod:`.home`, with scripted models.

The night runs the whole cycle through the real harvesters (every agent's format),
miner, replay, gate and staging; :func:`~.agents.doc_follower` stands in for the
coding model (it does a job the way its documents say, generically otherwise) and
:func:`~.agents.optimizer` for an LLM reflector that proposes a harmful rule the gate
must keep out. Reported: sessions found and left out (and why), intents mined per job
with their checks and whether every generic answer fails them, the staged proposal and
whether it follows each correction, held-out test scores, and any planted secret found
in a file the night wrote.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from skillopt.api import ScriptedBackend
from skillopt_sleep.experiments.agents import HARMFUL_RULE, HOME_JOBS, doc_follower, optimizer
from skillopt_sleep.experiments.home import JOBS, PLANTED, build_home, roots
from skillopt_sleep.experiments.isolation import skillopt_home

#: what a proposal that follows each correction says, per job (the doc follower's cues)
FOLLOWS = {
    "tests": "uv run pytest",
    "lint": "uv run ruff check",
    "migration": "uv run alembic",
    "changelog": "version heading",
    "release-tag": "git tag v",
}


#: jobs the project's CLAUDE.md already states (migrations via `uv run alembic revision`):
#: a memory-following agent passes them before anything is learned, so no task is kept for them
MEMORY_STATED = ("migration",)


def job_of(intent: str) -> str:
    return next((name for name, pattern in HOME_JOBS if pattern.search(intent)), "")


def _leaks(dirs: list[Path]) -> list[str]:
    found = []
    for root in dirs:
        for path in root.rglob("*") if root.is_dir() else []:
            if path.is_file():
                data = path.read_bytes()
                found += [f"{path.name}: {s[:6]}…" for s in PLANTED if s.encode() in data]
    return found


def run_home(seed: int, root: Path) -> dict:
    from skillopt_sleep.clients import from_backends
    from skillopt_sleep.cycle import run_night
    from skillopt_sleep.mine.generic import generic_answers
    from skillopt_sleep.options import SleepOptions
    from skillopt_sleep.replay.judging import score_checks

    home, project = build_home(root)
    opts = SleepOptions(
        project=project,
        sources=tuple(roots(home)),
        roots=roots(home),
        lookback_hours=0,
        seed=seed,
        test_fraction=0.2,
        edit_budget=6,
        agent="claude-code",
    )
    clients = from_backends(ScriptedBackend(script=doc_follower), ScriptedBackend(script=optimizer(harmful=True)), opts=opts)
    result = run_night(opts, clients=clients)
    report = result.report
    jobs: dict[str, dict] = {job.name: {"tasks": 0, "checks": [], "generic_fails": True} for job in JOBS}
    for task in report.tasks:
        row = jobs.get(job_of(task.intent))
        if row is None or task.origin == "dream":
            continue
        row["tasks"] += 1
        row["checks"] += [f"{c.op} {c.value}" for c in task.checks if f"{c.op} {c.value}" not in row["checks"]]
        row["generic_fails"] &= all(score_checks(task.checks, a).hard == 0.0 for a in generic_answers(()))
    staged = ""
    if result.staging:
        staged = "\n".join(p.read_text(encoding="utf-8") for p in sorted((result.staging / "proposed").rglob("*.md")))
    rules = [e.edit.content for e in report.accepted_edits]
    return {
        "seed": seed,
        "status": result.status,
        "reason": result.reason,
        "sessions": report.harvest.sessions,
        "per_source": report.harvest.per_source,
        "left_out": report.harvest.dropped,
        "skipped_lines": report.harvest.skipped_lines,
        "intents": report.mining.intents,
        "recurring_clusters": report.mining.recurring_clusters,
        "checks_kept": report.mining.discriminative_checks,
        "checks_dropped_generic": report.mining.dropped_generic_checks,
        "checks_dropped_contradicting": report.mining.dropped_contradicting,
        "checks_dropped_memory": report.mining.dropped_memory_checks,
        "jobs": jobs,
        "staged": bool(result.staging),
        "rules": rules,
        "follows": {name: cue.lower() in staged.lower() for name, cue in FOLLOWS.items()},
        "harmful_blocked": HARMFUL_RULE not in staged,
        "test_baseline": report.scores.baseline_test,
        "test_final": report.scores.final_test,
        "leaks": _leaks([project / ".skillopt-sleep", Path(os.environ["SKILLOPT_HOME"])]),
    }


def run_home_experiment(seeds: int = 1) -> list[dict]:
    results = []
    with tempfile.TemporaryDirectory(prefix="skillopt-sleep-home-") as tmp:
        for seed in range(seeds):
            with skillopt_home(Path(tmp) / f"skillopt-home-{seed}"):
                results.append(run_home(42 + seed, Path(tmp) / f"run-{seed}"))
    return results


def home_verdict(results: list[dict]) -> tuple[bool, dict]:
    """Pass when every run mined every job the memory file does not already settle with
    checks every generic answer fails (and kept no task for the one it settles), left
    out exactly the automated sessions, staged a proposal following the corrections the
    memory file does not already make, kept the harmful rule out, and leaked nothing."""
    problems = []
    for r in results:
        for name, row in r["jobs"].items():
            if name in MEMORY_STATED:
                if row["tasks"]:
                    problems.append(f"seed {r['seed']}: job {name} kept although CLAUDE.md already says how: {row}")
            elif not row["tasks"] or not row["checks"] or not row["generic_fails"]:
                problems.append(f"seed {r['seed']}: job {name} not mined with discriminative checks: {row}")
        if sum(r["left_out"].values()) != 4:
            problems.append(f"seed {r['seed']}: left out {r['left_out']}, expected the 4 automated sessions")
        missing = [name for name, ok in r["follows"].items() if not ok and name != "migration"]
        if not r["staged"] or missing:
            problems.append(f"seed {r['seed']}: staged={r['staged']}, corrections not followed: {missing}")
        if not r["harmful_blocked"] or r["leaks"]:
            problems.append(f"seed {r['seed']}: harmful blocked={r['harmful_blocked']}, leaks={r['leaks']}")
    return not problems, {"runs": len(results), "ok": not problems, "problems": problems}
