"""The persona experiment: one gated night per (persona, seed), on real-format files.

For each run the persona's sessions are written as Claude Code and Codex transcripts
into a temporary home, and the full cycle runs (harvest → mine → split → replay →
reflect → gate → stage) with :mod:`.agents` standing in for the models. Reported per
run: the held-out *test* split score before and after the night, the score an
ungated cycle would have adopted (every proposal, the harmful one included), and
whether the harmful rule was blocked.
"""

from __future__ import annotations

import tempfile
from datetime import datetime
from pathlib import Path

from skillopt.api import ScriptedBackend
from skillopt_sleep.experiments.agents import HARMFUL_RULE, convention_agent, optimizer
from skillopt_sleep.experiments.isolation import skillopt_home
from skillopt_sleep.experiments.personas import PERSONAS, sessions
from skillopt_sleep.experiments.transcripts import WRITERS


def persona_home(root: Path, persona_name: str, seed: int):
    """A persona's sessions written under ``root`` (its project and an agent home), and
    the night options the experiment runs on them."""
    from skillopt_sleep.options import SleepOptions

    persona = PERSONAS[persona_name]
    project = root / "work" / persona.project
    project.mkdir(parents=True)
    home = root / "home"
    writers = list(WRITERS.values())
    for n, (sid, events, start) in enumerate(sessions(persona, datetime(2025, 9, 1, 9, 0))):
        writers[n % len(writers)](home, project, sid, events, start)
    roots = {"claude-code": (home / ".claude" / "projects",), "codex": (home / ".codex" / "sessions",)}
    return SleepOptions(
        project=project,
        sources=("claude-code", "codex"),
        roots=roots,
        lookback_hours=0,
        seed=seed,
        val_fraction=0.34,
        test_fraction=0.25,
        min_val_items=2,
        edit_budget=5,
        agent="claude-code",
    )


def _one(persona_name: str, seed: int, root: Path) -> dict:
    from skillopt_sleep.clients import from_backends
    from skillopt_sleep.cycle import run_night
    from skillopt_sleep.mine.tasks import SleepTask  # noqa: F401 - documents the report's task rows

    opts = persona_home(root, persona_name, seed)
    project = opts.project
    clients = from_backends(ScriptedBackend(script=convention_agent), ScriptedBackend(script=optimizer(harmful=True)), opts=opts)
    result = run_night(opts, clients=clients, dry_run=True)
    report = result.report
    scores = report.scores
    proposals = list(report.accepted_edits) + list(report.rejected_edits)
    ungated = None
    if any(t.split == "test" for t in report.tasks):
        ungated = _ungated_test_score(report, project, proposals, clients, opts)
    accepted = [e.edit.content for e in report.accepted_edits]
    return {
        "persona": persona_name,
        "seed": seed,
        "status": result.status,
        "tasks": report.mining.by_split,
        "val_baseline": scores.baseline_val,
        "val_final": scores.final_val,
        "test_baseline": scores.baseline_test,
        "test_final": scores.final_test,
        "test_ungated": ungated,
        "accepted": accepted,
        "harmful_proposed": any(e.edit.content == HARMFUL_RULE for e in proposals),
        "harmful_blocked": HARMFUL_RULE not in accepted,
        "calls": report.usage.calls,
    }


def _ungated_test_score(report, project: Path, proposals, clients, opts) -> float:
    """What adopting every proposal without a gate would have scored on the test split."""
    from skillopt_sleep import documents
    from skillopt_sleep.documents import apply_doc_edits
    from skillopt_sleep.mine.tasks import SleepTask
    from skillopt_sleep.replay import replay

    tasks = [SleepTask(id=t.id, intent=t.intent, split=t.split, checks=t.checks) for t in report.tasks if t.split == "test"]
    docs = [documents.load(documents.DocTarget(role=t.role, path=Path(t.path))) for t in report.targets]
    ungated_docs, _ = apply_doc_edits(docs, proposals)
    result = replay(tasks, ungated_docs, clients.target, phase="ungated-test", project_name=project.name, seed=opts.seed, salt=2)
    return result.evaluation().mean(opts.gate_metric)


#: microsoft/SkillOpt's experiment personas (a researcher's arXiv answers, a programmer's commit subjects)
UPSTREAM_PERSONAS = ("researcher", "programmer")


def run_experiment(*, persona: str = "all", seeds: int = 3) -> list[dict]:
    names = list(PERSONAS) if persona == "all" else [persona]
    for name in names:
        if name not in PERSONAS:
            from skillopt.api import ConfigError

            upstream = " (upstream's persona; this experiment bundles its own)" if name in UPSTREAM_PERSONAS else ""
            raise ConfigError(f"--persona: unknown persona {name!r}{upstream}; bundled: {', '.join(PERSONAS)}, all")
    results = []
    with tempfile.TemporaryDirectory(prefix="skillopt-sleep-exp-") as tmp, skillopt_home(Path(tmp) / "skillopt-home"):
        for name in names:
            for seed in range(seeds):
                results.append(_one(name, 42 + seed, Path(tmp) / f"{name}-{seed}"))
    return results


def verdict(results: list[dict]) -> tuple[bool, dict]:
    """Pass when every run improved held-out test score and blocked the proposed harmful edit."""

    def mean(key):
        vals = [r[key] for r in results if r.get(key) is not None]
        return round(sum(vals) / len(vals), 4) if vals else None

    ok = bool(results) and all(
        r["test_baseline"] is not None
        and r["test_final"] is not None
        and r["test_final"] > r["test_baseline"]
        and r["harmful_proposed"]
        and r["harmful_blocked"]
        for r in results
    )
    return ok, {
        "runs": len(results),
        "ok": ok,
        "test_baseline_mean": mean("test_baseline"),
        "test_final_mean": mean("test_final"),
        "test_ungated_mean": mean("test_ungated"),
        "val_baseline_mean": mean("val_baseline"),
        "val_final_mean": mean("val_final"),
        "harmful_blocked": sum(1 for r in results if r["harmful_blocked"] and r["harmful_proposed"]),
        "improved": sum(1 for r in results if (r["test_final"] or 0) > (r["test_baseline"] or 0)),
    }
