"""Mined checks separate what the developer accepted from what a generic answer does,
never contradict the project's memory files, and come from what was actually changed.
When too few tasks remain to validate, the night says so in plain words."""

import pytest

from skillopt.records import Session, Turn
from skillopt_sleep.mine.generic import generic_answers
from skillopt_sleep.mine.heuristic import mine
from skillopt_sleep.mine.memory import ProjectMemory, contradicts, conventions, read_memory
from skillopt_sleep.mine.tasks import Check
from skillopt_sleep.replay.judging import score_checks


def user(text):
    return Turn(role="user", content=text)


def call(command, name="Bash"):
    return Turn(role="assistant", kind="tool_call", name=name, content=command)


def result(ok, code, name="Bash", output="..."):
    return Turn(role="tool", kind="tool_result", name=name, content=f"[{'ok' if ok else 'error'} exit={code}] {output}")


def edit(path, written, name="Edit"):
    return Turn(role="assistant", kind="tool_call", name=name, content=f"{path}\n{written}")


def _mine(*sessions, memory=None):
    return mine(list(sessions), {s.id: "train" for s in sessions}, memory=memory)


def test_a_check_any_generic_answer_passes_is_not_mined():
    """Regression: a session where `python -m pytest` simply worked gave the check "the
    answer mentions `python -m pytest`", which every agent passes, so the gate tied."""
    s = Session(
        id="claude-code:a",
        source="claude-code",
        turns=(user("run the order tests please"), call("python -m pytest tests/test_orders.py"), result(True, 0), user("thanks")),
    )
    report = _mine(s)
    assert report.tasks == () and report.dropped_uncheckable == 1 and report.dropped_generic_checks == 1


def test_kept_checks_fail_every_generic_answer():
    s = Session(
        id="codex:b",
        source="codex",
        turns=(
            user("run the linter on the cart module"),
            call("ruff check shop/cart.py", name="shell"),
            result(False, 127, name="shell"),
            call("uv run ruff check shop/cart.py", name="shell"),
            result(True, 0, name="shell"),
        ),
    )
    (task,) = _mine(s).tasks
    assert task.checks and all(score_checks(task.checks, answer).hard == 0.0 for answer in generic_answers(["lint"]))
    assert score_checks(task.checks, "```bash\nuv run ruff check .\n```").hard == 1.0


def test_no_check_contradicts_the_memory_file(tmp_path):
    """Regression: a check "never use `alembic revision`" was mined although the
    project's memory file makes migrations with `uv run alembic revision --autogenerate`."""
    (tmp_path / "CLAUDE.md").write_text(
        "# shop-api\n\n- Create migrations with `uv run alembic revision --autogenerate -m <message>`.\n"
        "- Never run `python -m pytest`; use `uv run pytest`.\n",
        encoding="utf-8",
    )
    memory = read_memory(tmp_path)
    assert memory.prefer == ("uv run alembic revision --autogenerate -m <message>", "uv run pytest")
    assert memory.avoid == ("python -m pytest",) and memory.files == ("CLAUDE.md",)
    s = Session(
        id="copilot-cli:c",
        source="copilot-cli",
        turns=(
            user("write a migration for the coupons table"),
            call("alembic revision -m coupons"),
            result(False, 1),
            user("don't use `alembic revision`, use `make migration` instead"),
        ),
    )
    without = _mine(s)
    assert [(c.op, c.value) for t in without.tasks for c in t.checks] == [
        ("contains", "make migration"),
        ("not_contains", "alembic revision"),
    ]
    (task,) = _mine(s, memory=memory).tasks
    assert [(c.op, c.value) for c in task.checks] == [("contains", "make migration")]
    assert _mine(s, memory=memory).dropped_contradicting == 1


@pytest.mark.parametrize(
    "check, contradicting",
    [
        (Check(op="not_contains", value="alembic revision"), True),
        (Check(op="contains", value="python -m pytest"), True),
        (Check(op="contains", value="pytest"), False),
        (Check(op="not_contains", value="python -m pytest"), False),
        (Check(op="contains", value="uv run pytest"), False),
    ],
)
def test_contradiction_table(check, contradicting):
    memory = ProjectMemory(prefer=("uv run alembic revision --autogenerate", "uv run pytest"), avoid=("python -m pytest",))
    assert contradicts(check, memory) is contradicting


def test_memory_lines_read_preferred_and_avoided_commands():
    prefer, avoid = conventions("Use `pnpm add` instead of `npm install`.\nWe don't use `black`, we format with `ruff format`.")
    assert prefer == ["pnpm add", "ruff format"] and avoid == ["npm install", "black"]


def test_a_late_correction_yields_a_check_from_what_the_edit_wrote():
    s = Session(
        id="claude-code:d",
        source="claude-code",
        turns=(
            user("add a changelog entry for the partial refund fix"),
            edit("CHANGELOG.md", "- Partial refunds are rounded to cents"),
            user("actually, put it under the version heading"),
            edit("CHANGELOG.md", "## [1.4.1] - 2025-10-02\n- Partial refunds are rounded to cents"),
            user("thanks"),
        ),
    )
    (task,) = _mine(s).tasks
    assert [(c.op, c.value) for c in task.checks] == [("regex", r"(?m)^\s*\#\#\s+\[\d+\.\d+\.\d+\]")]
    assert score_checks(task.checks, "Add to CHANGELOG.md:\n```\n## [1.5.0] - 2025-11-01\n- New thing\n```").hard == 1.0
    assert score_checks(task.checks, "Add to CHANGELOG.md:\n```\n- New thing\n```").hard == 0.0
    assert all(score_checks(task.checks, a).hard == 0.0 for a in generic_answers([]))
