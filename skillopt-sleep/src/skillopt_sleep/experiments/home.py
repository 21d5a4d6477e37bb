"""The fixture home: a developer's home directory after two weeks on one project
(data written for this project, CC0-1.0).

Twenty-five sessions with seven agents, each in that agent's real on-disk format,
repeat five jobs in different words. In each, the agent first does what any agent
would, the command fails (or the edit lands in the wrong place) and the developer
corrects it, in words or by letting the fixed command speak; outcome evidence is the
real kind (exit statuses in each agent's place, pytest summaries, the edit that was
kept). Around them are the traps a night must not fall into: feedback that only looks
negative ("that's not incorrect", "no worries, thanks", "no, leave it"), a late
correction ("actually, put it under the version heading"), a correction that
contradicts the project's CLAUDE.md, four automated sessions of other tools (a grader
pasting the skill, a skill replay, a skill optimizer, a sleep replay), a transcript
line cut in half, and planted (fake) secrets in prompts and command output.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from skillopt_sleep.experiments.personas import Job
from skillopt_sleep.experiments.transcripts import Event, write_claude, write_codex
from skillopt_sleep.experiments.writers_db import write_opencode
from skillopt_sleep.experiments.writers_logs import write_copilot_cli, write_cursor, write_pi, write_vscode_copilot

PROJECT = "ledger-api"
MEMORY = (
    "# ledger-api\n\nNotes for coding agents (hand-written).\n\n"
    '- Create database migrations with `uv run alembic revision --autogenerate -m "<message>"`.\n'
    "- Keep API handlers in `ledger/api/`.\n"
)
#: fake credentials planted in the sessions; none may reach a file sleep writes
#: (assembled, so no scanner takes this file for one holding a real key)
FAKE_OPENAI_KEY = "sk-" + "proj-L3dg3rT0k3nQ9x7LmN2pR4tV6wY8zA1b"
PLANTED = (
    FAKE_OPENAI_KEY,
    "ghp_L3dg3rR4nd0mT0k3nV4lu3F0rT3st1ng00",
    "Hunt3r2-ledger-db",
    "AKIAL3DG3R0EXAMPLE77",
    "zq8Lx2Vt9Nw4Pk7Hs3Jd6Fg1Mb5Cy0Rt",
)


JOBS = (
    Job(
        name="tests",
        requests=(
            "the invoice tests fail since the rounding change, run them and fix it",
            "can you run the test suite for the payments module",
            "check that the refund tests still pass",
            "run the tests for the ledger export, the token for the fixtures is zq8Lx2Vt9Nw4Pk7Hs3Jd6Fg1Mb5Cy0Rt",
            "are the account tests green after my refactor?",
        ),
        wrong="python -m pytest -q",
        wrong_output="ImportError while loading conftest 'tests/conftest.py'.\nModuleNotFoundError: No module named 'ledger'",
        wrong_exit=1,
        right="uv run pytest -q",
        right_output="........................\n24 passed in 0.84s",
        corrections=("No, this project uses uv: run the tests with `uv run pytest`.", "", "use `uv run pytest` instead of `python -m pytest`", "", "no, `uv run pytest` please"),
    ),
    Job(
        name="lint",
        requests=(
            "lint the payments package before I push",
            "run the linter on ledger/export.py and fix what it reports",
            "are there lint warnings in the accounts code?",
            "run the lint step like CI does",
            "check the new module for lint errors",
        ),
        wrong="ruff check .",
        wrong_output="bash: ruff: command not found",
        wrong_exit=127,
        right="uv run ruff check .",
        right_output="All checks passed!",
        corrections=("don't call ruff directly, use `uv run ruff check` like everything else here", "", "please use `uv run ruff check` instead of bare ruff", "", ""),
    ),
    Job(
        name="migration",
        requests=(
            "create a migration that adds the fx_rates table",
            "write a migration for the new audit_log table",
            "add a migration dropping the legacy currency column",
            "generate a migration for the renamed account_no column",
            "we need a migration adding an index on entries.posted_at",
        ),
        wrong='alembic revision --autogenerate -m "change"',
        wrong_output="bash: alembic: command not found",
        wrong_exit=127,
        right='uv run alembic revision --autogenerate -m "change"',
        right_output="Generating migrations/versions/1f2e_change.py ...  done",
        # the last one contradicts CLAUDE.md (which makes migrations with `alembic revision`): it must not become a check
        corrections=("", "run it through uv, as always", "", "", "don't use `alembic revision`, it is broken on my laptop"),
    ),
    Job(
        name="changelog",
        requests=(
            "add a changelog entry for the FX rounding fix",
            "add the refund export to the changelog",
            "add a changelog line for the new accounts endpoint",
            "add the CSV export to the changelog",
            "add a changelog entry for the audit log",
        ),
        wrong="- Fix FX rounding in invoices",
        wrong_output="",
        wrong_exit=0,
        right="## [1.8.1] - 2025-10-02\n- Fix FX rounding in invoices",
        right_output="",
        corrections=(
            "actually, put it under the version heading",
            "wait, it goes under the version heading, not at the top",
            "actually, put it under the version heading",
            "hmm, put it under the version heading please",
            "actually, put it under the version heading",
        ),
        edit_path="CHANGELOG.md",
    ),
    Job(
        name="release-tag",
        requests=(
            "tag the 1.8.0 release",
            "cut the release tag for 1.8.1",
            "tag this commit as release 1.9.0",
            "please tag the hotfix release 1.9.1",
            "create the release tag for 2.0.0",
        ),
        wrong="git tag 1.8.0",
        wrong_output="",
        wrong_exit=0,
        right="git tag -d 1.8.0 && git tag v1.8.0",
        right_output="Deleted tag '1.8.0' (was 3f2a9c1)",
        corrections=(
            "wrong tag format: tags here are always prefixed with v, like v1.8.0",
            "no, our tags always start with v",
            "tags are always prefixed with v in this repo",
            "wrong: release tags are always v-prefixed",
            "tags here are always prefixed with v",
        ),
    ),
)

#: what the developer says after the job is done, by session: praise, politeness and a declined offer
AFTERMATH = (
    [Event(kind="user", text="that's not incorrect, thanks")],
    [Event(kind="assistant", text="Want me to also update the docs?"), Event(kind="user", text="no, leave it")],
    [Event(kind="user", text="no worries, thanks")],
    [],
    [Event(kind="user", text="perfect")],
)

AUTOMATED = (
    (
        "claude-code",
        "You are a strict grader. Score the agent's answer against the rubric.\n\n## CURRENT SKILL\n---\nname: ledger\n---\n"
        '- Run tests with `uv run pytest`.\n\n## Task\nRun the invoice tests.\n\n## Answer\nuv run pytest -q\n\nReply with JSON {"score": 0..1, "reason": "..."}.',
    ),
    ("codex", "## Skill\n- Always run Python tools through uv.\n\n## Task\nLint the payments package.\n\nComplete the task following the skill. Return only the final answer."),
    ("pi", '## Current skill\n- Run tests with pytest.\n\n## Failures\n- used python -m pytest\n\nPropose at most 3 edits as JSON {"edits": [...]}.'),
    ("copilot-cli", "[skillopt-sleep:engine-prompt v1]\nYou are the developer's coding agent. ## Request\nrun the tests"),
)

WRITERS = {
    "claude-code": write_claude,
    "codex": lambda *a: write_codex(*a, exec_command=True),
    "copilot-cli": write_copilot_cli,
    "cursor": write_cursor,
    "opencode": write_opencode,
    "pi": write_pi,
    "vscode-copilot": write_vscode_copilot,
}
SECRET_LINES = (
    f"the staging key is {FAKE_OPENAI_KEY} if you need it",
    "GITHUB_TOKEN=ghp_L3dg3rR4nd0mT0k3nV4lu3F0rT3st1ng00 is exported",
    "DB url is postgres://ledger:Hunt3r2-ledger-db@db:5432/ledger",
    "aws key AKIAL3DG3R0EXAMPLE77 for the export bucket",
)


def job_events(job: Job, k: int) -> list[Event]:
    """The k-th session of a job: request, the generic attempt, the correction (if any),
    the kept attempt, and the developer's aftermath."""
    request = job.requests[k]
    if k < len(SECRET_LINES) and job.name in ("tests", "migration"):
        request = f"{request}. {SECRET_LINES[k]}"
    events = [Event(kind="user", text=request), Event(kind="assistant", text="On it.")]
    if job.edit_path:
        events.append(Event(kind="edit", path=job.edit_path, text=job.wrong))
        events.append(Event(kind="assistant", text=f"Added it at the top of {job.edit_path}."))
    else:
        events.append(Event(kind="shell", text=job.wrong, exit_code=job.wrong_exit, output=job.wrong_output))
    correction = job.corrections[k % len(job.corrections)]
    if correction:
        events.append(Event(kind="user", text=correction))
    if job.name == "migration" and correction.startswith("don't"):
        return [*events, Event(kind="assistant", text="Understood, I'll leave it to you.")]
    if job.edit_path:
        events.append(Event(kind="edit", path=job.edit_path, text=job.right))
    else:
        events.append(Event(kind="shell", text=job.right, exit_code=0, output=job.right_output))
    return [*events, Event(kind="assistant", text="Done."), *AFTERMATH[k % len(AFTERMATH)]]


def build_home(root: Path, start: datetime = datetime(2025, 9, 22, 9, 0)) -> tuple[Path, Path]:
    """Write the fixture home under ``root``: ``(home, project)``."""
    project = root / "work" / PROJECT
    project.mkdir(parents=True, exist_ok=True)
    (project / "CLAUDE.md").write_text(MEMORY, encoding="utf-8")
    home = root / "home"
    agents = list(WRITERS)
    n = 0
    for k in range(5):
        for job in JOBS:
            when = start + timedelta(hours=7 * n)
            sid = f"{job.name[:4]}{k}{n:03d}-0000-4000-8000-{n:012d}"
            WRITERS[agents[n % len(agents)]](home, project, sid, job_events(job, k), when)
            n += 1
    for m, (agent, prompt) in enumerate(AUTOMATED):
        sid = f"auto{m:04d}-0000-4000-8000-{900 + m:012d}"
        events = [Event(kind="user", text=prompt), Event(kind="assistant", text='{"score": 1, "reason": "ok"}')]
        WRITERS[agent](home, project, sid, events, start + timedelta(hours=3 + 11 * m))
    rollout = sorted((home / ".codex" / "sessions").rglob("rollout-*.jsonl"))[0]
    with rollout.open("a", encoding="utf-8") as fh:  # a line cut in half by a crash
        fh.write('{"timestamp": "2025-09-30T10:00:00Z", "type": "event_msg", "payload": {"type": "agent_mes\n')
    return home, project


def roots(home: Path) -> dict[str, tuple[Path, ...]]:
    """Where each agent's harvester should look in this home."""
    return {
        "claude-code": (home / ".claude" / "projects",),
        "codex": (home / ".codex" / "sessions",),
        "copilot-cli": (home / ".copilot",),
        "cursor": (home / ".cursor" / "projects",),
        "opencode": (home / ".local" / "share" / "opencode" / "opencode.db",),
        "pi": (home / ".pi" / "agent" / "sessions",),
        "vscode-copilot": (home / ".config" / "Code" / "User" / "workspaceStorage",),
    }
