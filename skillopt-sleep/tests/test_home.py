"""Acceptance on the fixture home (experiments/home.py): 25 developer sessions in seven
agents' real formats repeating five jobs, four automated sessions of other tools, a
cut transcript line, feedback traps, a correction that contradicts CLAUDE.md, and
planted secrets. A night with scripted models (the doc follower stands in for a coding
model that does what its documents say; the optimizer stand-in proposes a harmful
rule) must find every developer session, leave out exactly the automated ones, mine
every recurring job with checks a generic answer fails, and stage a proposal that
follows the developer's corrections, with no planted secret in any file it wrote."""

import json
import subprocess
import sys

import pytest

from skillopt_sleep.experiments.home import JOBS, PLANTED, build_home
from skillopt_sleep.experiments.home_run import home_verdict, run_home_experiment


@pytest.fixture(scope="module")
def runs():
    return run_home_experiment(seeds=2)


def test_the_home_really_holds_every_format_and_every_planted_secret(tmp_path):
    home, _project = build_home(tmp_path)
    blob = b"".join(p.read_bytes() for p in home.rglob("*") if p.is_file())
    assert all(secret.encode() in blob for secret in PLANTED), "the no-leak check below would be vacuous"
    assert {p.name for p in home.iterdir()} == {".claude", ".codex", ".copilot", ".cursor", ".local", ".pi", ".config"}


def test_every_developer_session_is_found_and_only_automation_left_out(runs):
    for r in runs:
        assert r["sessions"] == 25 and set(r["per_source"]) == {
            "claude-code", "codex", "copilot-cli", "cursor", "opencode", "pi", "vscode-copilot"
        } and all(n >= 3 for n in r["per_source"].values()), r["per_source"]  # fmt: skip
        assert r["left_out"] == {"grader": 1, "skill-optimizer": 1, "skill-replay": 1, "sleep-replay": 1}
        assert r["skipped_lines"] == {"codex": 1}


def test_every_recurring_job_is_mined_with_checks_a_generic_answer_fails(runs):
    """Every job but the migrations, which CLAUDE.md already states: a memory-following
    agent passes them at baseline, so no task is kept for them (the gate could only tie)."""
    for r in runs:
        assert r["intents"] == 25 and r["recurring_clusters"] == len(JOBS)
        for job in JOBS:
            row = r["jobs"][job.name]
            if job.name == "migration":
                assert row["tasks"] == 0, row
                continue
            assert row["tasks"] and row["checks"] and row["generic_fails"], (job.name, row)
        assert "regex (?m)^\\s*\\#\\#\\s+\\[\\d+\\.\\d+\\.\\d+\\]" in r["jobs"]["changelog"]["checks"], "from the late correction's edit"
        assert r["checks_dropped_memory"] >= 1, "`uv run alembic` is what CLAUDE.md says: not a check"
        assert r["checks_dropped_contradicting"] >= 1, "the correction contradicting CLAUDE.md is not a check"


def test_the_staged_proposal_follows_the_corrections(runs):
    ok, summary = home_verdict(runs)
    assert ok, summary
    for r in runs:
        assert r["status"] == "accepted" and r["staged"]
        assert all(r["follows"][name] for name in ("tests", "lint", "changelog", "release-tag")), r["follows"]
        assert "- Run tests with `uv run pytest`, not `python -m pytest`." in r["rules"]
        assert "- When you edit `CHANGELOG.md`, put what you add under the version heading (e.g. `## [X.Y.Z]`)." in r["rules"]
        assert not any(w in rule for rule in r["rules"] for w in ("actually", "please", "No,", "wrong")), r["rules"]
        assert r["harmful_blocked"] and r["test_final"] > r["test_baseline"]
        assert r["leaks"] == [], "a planted secret reached a file the night wrote"


def test_the_home_experiment_runs_from_the_cli(run_cli):
    res = run_cli("sleep", "experiment", "--home", "--seeds", "1", "--assert-improves", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["ok"] is True and out["runs"][0]["staged"] is True
    proc = subprocess.run(
        [sys.executable, "-m", "skillopt_sleep.experiments", "--home", "--seeds", "1", "--assert-improves"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
