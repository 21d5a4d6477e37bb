"""Automated sessions of any tool are left out by content, with the reason counted.

An evaluation harness (sleep's own, upstream's, a benchmark's) drives agents headlessly
and their transcripts land beside the developer's. The grader session below is the one
the issue found mined as a developer task: its first prompt casts the agent as a grader
and pastes the current skill.
"""

from datetime import datetime

import pytest

from skillopt_sleep.experiments.transcripts import Event, write_claude, write_codex
from skillopt_sleep.harvest import HarvestRequest, harvest
from skillopt_sleep.harvest.automation import automation_reason

GRADER = (
    "You are a strict grader. Score the agent's answer against the rubric.\n\n"
    "## CURRENT SKILL\n---\nname: shop-api-conventions\n---\n- Run tests with `uv run pytest`.\n\n"
    "## Task\nRun the order tests.\n\n## Answer\nuv run pytest -q\n\n"
    'Reply with JSON {"score": 0..1, "reason": "..."}.'
)
SKILL_REPLAY = (
    "## Skill\n- Always run Python tools through uv.\n\n## Task\nAdd a migration for the coupons table.\n\n"
    "Complete the task following the skill. Return only the final answer."
)
OPTIMIZER = (
    "## Current skill\n- Run tests with pytest.\n\n## Failures\n- used python -m pytest\n\n"
    'Propose at most 3 edits as JSON {"edits": [...]}.'
)


@pytest.mark.parametrize(
    "text, reason",
    [
        (GRADER, "grader"),
        ("You are an impartial judge.\n## Response\nfoo\n## Reference answer\nbar", "grader"),
        ('Evaluate the following answer.\n## Rubric\nmentions uv\n## Answer\nuv run\nReply with JSON {"score": 1}', "grader"),
        (SKILL_REPLAY, "skill-replay"),
        (OPTIMIZER, "skill-optimizer"),
        ("[skillopt-sleep:engine-prompt v1]\nYou are replaying a task", "sleep-replay"),
        ("<skillopt_sleep_internal_replay_v1> run the tests", "sleep-replay"),
        # a developer's own work, however close it comes
        ("you are a strict reviewer, look at my PR and tell me what you think", None),
        ("write a grader for the quiz app that returns a score between 0 and 1", None),
        ("the judge module fails its tests, fix it", None),
        ("## Task\nrefactor the cart\n## Notes\nkeep the API", None),
        ("update our SKILL.md: add that we run tests with uv", None),
    ],
)
def test_automation_is_recognised_by_content(text, reason):
    assert automation_reason(text) == reason


def test_a_grader_session_of_any_tool_is_dropped_and_counted(tmp_path):
    """Regression: a Claude Code grader session (no sleep sentinel) was kept, split into
    train and sent to the miner."""
    project = tmp_path / "shop-api"
    project.mkdir()
    home = tmp_path / "home"
    start = datetime(2025, 10, 6, 9, 0)
    write_claude(home, project, "11111111-0000-4000-8000-000000000001", [Event(kind="user", text=GRADER), Event(kind="assistant", text='{"score": 1, "reason": "uses uv"}')], start)
    write_codex(home, project, "22222222-0000-4000-8000-000000000002", [Event(kind="user", text=SKILL_REPLAY), Event(kind="assistant", text="uv run alembic revision -m coupons")], start)
    developer = [
        Event(kind="user", text="run the order tests and fix what fails"),
        Event(kind="shell", text="uv run pytest -q", exit_code=0, output="4 passed in 0.2s"),
        Event(kind="assistant", text="All green."),
    ]
    write_claude(home, project, "33333333-0000-4000-8000-000000000003", developer, start)
    result = harvest(
        HarvestRequest(
            sources=("claude-code", "codex"),
            roots={"claude-code": (home / ".claude" / "projects",), "codex": (home / ".codex" / "sessions",)},
            project=project,
        )
    )
    assert [s.id for s in result.sessions] == ["claude-code:33333333-0000-4000-8000-000000000003"]
    assert result.dropped == {"grader": 1, "skill-replay": 1}
    assert result.left_out()[0] == "left out as automation: 1 grader, 1 skill-replay"


def test_automation_is_counted_only_for_the_project_harvested(tmp_path):
    """Regression: the "left out as automation" count was taken before the project
    filter, so a grader run in another directory was reported as this project's."""
    home, project, other = tmp_path / "home", tmp_path / "work" / "shop", tmp_path / "work" / "elsewhere"
    project.mkdir(parents=True)
    other.mkdir(parents=True)
    start = datetime(2025, 10, 1, 9, 0)
    grader = [Event(kind="user", text=GRADER), Event(kind="assistant", text='{"score": 1, "reason": "ok"}')]
    write_claude(home, project, "a1a1a1a1-0000-4000-8000-000000000001", grader, start)
    write_claude(home, other, "b2b2b2b2-0000-4000-8000-000000000002", grader, start)
    write_codex(home, other, "c3c3c3c3-0000-4000-8000-000000000003", [Event(kind="user", text=OPTIMIZER)], start)
    mine = [Event(kind="user", text="run the order tests please"), Event(kind="assistant", text="Done.")]
    write_claude(home, project, "d4d4d4d4-0000-4000-8000-000000000004", mine, start)
    roots = {"claude-code": (home / ".claude" / "projects",), "codex": (home / ".codex" / "sessions",)}
    here = harvest(HarvestRequest(sources=("claude-code", "codex"), roots=roots, project=project))
    assert len(here.sessions) == 1 and here.dropped == {"grader": 1}
    everywhere = harvest(HarvestRequest(sources=("claude-code", "codex"), roots=roots, project=project, scope="all"))
    assert everywhere.dropped == {"grader": 2, "skill-optimizer": 1}
