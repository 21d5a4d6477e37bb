"""The no-model reflector writes general imperative rules with their evidence, or
nothing; never the developer's pasted sentence."""

from pathlib import Path

import pytest

from skillopt_sleep.documents import Doc
from skillopt_sleep.learn.reflect import heuristic_edits
from skillopt_sleep.learn.rules import imperative_clause, job_of, rule_for
from skillopt_sleep.mine.tasks import Check, Lesson, SleepTask
from skillopt_sleep.replay import Attempt, ReplayResult

PASTED = "That's wrong — use pathlib for paths and drop the seed stuff, that's a separate migration"


@pytest.mark.parametrize(
    "lesson, request_text, rule",
    [
        (
            Lesson(text="No, this project uses uv.", prefer=("uv run pytest",), avoid=("python -m pytest",)),
            "run the order tests",
            "Run tests with `uv run pytest`, not `python -m pytest`.",
        ),
        (
            Lesson(text="wrong tag format", kind="command-fix", prefer=("git tag v1.4.0",), avoid=("git tag 1.4.0",)),
            "bump the version and tag it",
            "Tag releases with `git tag vX.Y.Z`, not `git tag X.Y.Z`.",
        ),
        (Lesson(text="use `pathlib`", prefer=("pathlib",)), "", "Use `pathlib`."),
        (Lesson(text="don't use `black`", avoid=("black",)), "", "Do not use `black`."),
        (
            Lesson(text="Actually, put it under the version heading.", kind="adjustment", example="## [1.4.1]"),
            "add a changelog entry for the partial refund fix",
            "When adding a changelog entry, put it under the version heading (e.g. `## [X.Y.Z]`).",
        ),
        # a late correction no edit shows and no other session repeats: nothing
        (Lesson(text="Actually, put it under the version heading.", kind="adjustment"), "add a changelog entry", None),
        # a correction that names no tool: nothing, however it is worded
        (Lesson(text=PASTED, kind="correction"), "move the loaders to the new layout", None),
        (Lesson(text="Never push directly to main.", kind="correction"), "push the fix", None),
    ],
)
def test_rules_are_general_or_nothing(lesson, request_text, rule):
    assert rule_for(lesson, request_text) == rule


def test_only_the_instruction_clause_is_kept():
    assert imperative_clause(PASTED) == "use pathlib for paths"
    assert imperative_clause("oh and please move them to tests/unit, thanks") == "move them to tests/unit"
    assert imperative_clause("that's wrong") is None
    assert job_of("Add a changelog entry for the refund fix") == "adding a changelog entry"
    assert job_of("run the cart tests") == "running the cart tests"
    assert job_of("the tests fail since this morning") == ""


def test_the_reflector_proposes_the_rule_with_its_evidence_not_the_sentence():
    """Regression: the no-model reflector copied the developer's sentence verbatim into
    the skill, noise and one-off instructions included."""
    said = "No, this project uses uv: always run tests with `uv run pytest`, never `python -m pytest`, and skip the flaky one."
    lesson = Lesson(
        text=said,
        prefer=("uv run pytest",),
        avoid=("python -m pytest",),
        support=2,
        sessions=("claude-code:a", "codex:b"),
        evidence=(f"claude-code:a: developer: {said}", "codex:b: `python -m pytest` failed (exit 1), then `uv run pytest -q` passed"),
    )
    noisy = Lesson(text=PASTED, kind="correction", sessions=("pi:c",), evidence=(f"pi:c: developer: {PASTED}",))
    task = SleepTask(
        id="t", intent="run the order tests", split="train", checks=(Check(op="contains", value="uv run pytest"),), lessons=(lesson, noisy)
    )
    failed = ReplayResult(
        phase="train", docs_hash="h", docs_text="", attempts=(Attempt(task_id="t", repeat=0, status="ok", answer="python -m pytest"),)
    )
    docs = [Doc(role="skill", path=Path("/p/SKILL.md"), original=None, text="")]
    (proposal,) = heuristic_edits([task], failed, docs, budget=4)
    assert proposal.edit.content == "- Run tests with `uv run pytest`, not `python -m pytest`."
    assert "flaky" not in proposal.edit.content and "No," not in proposal.edit.content
    assert proposal.evidence[0].startswith("claude-code:a: developer:") and proposal.evidence[1].startswith("codex:b:")
    assert "2 session(s)" in proposal.edit.rationale
