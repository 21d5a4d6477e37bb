"""The zero-API miner: feedback reading (upstream bug §6.10), corrections, command
evidence, clustering across sessions and the tasks it produces (bug §6.1)."""

from skillopt.records import Session, Turn
from skillopt_sleep.mine import commands as cmd
from skillopt_sleep.mine.cluster import cluster
from skillopt_sleep.mine.corrections import find_correction
from skillopt_sleep.mine.digest import digest
from skillopt_sleep.mine.feedback import polarity
from skillopt_sleep.mine.heuristic import mine
from skillopt_sleep.mine.split import session_splits


def _session(sid, *turns, source="claude-code"):
    return Session(id=sid, source=source, project="/p", turns=tuple(turns))


def user(text):
    return Turn(role="user", content=text)


def call(command, name="Bash"):
    return Turn(role="assistant", kind="tool_call", name=name, content=command)


def result(ok, code, name="Bash"):
    return Turn(role="tool", kind="tool_result", name=name, content=f"[{'ok' if ok else 'error'} exit={code}] ...")


def test_feedback_incorrect_is_not_positive():
    """Bug §6.10: 'incorrect' matched both 'correct' and a negative phrase."""
    assert polarity("that is incorrect") == -1
    assert polarity("not correct at all") == -1
    assert polarity("thanks, that's correct") == 1


def test_feedback_opening_no_only():
    """Bug §6.10: 'no,' fired inside any sentence."""
    assert polarity("I have no, like, idea how this works") == 0
    assert polarity("no, use the other one") == -1


def test_feedback_later_thanks_wins():
    """Bug §6.10: a complaint followed by thanks was labelled a failure."""
    assert polarity("no, that's wrong ... ok now it works, thanks") == 1
    s = _session(
        "s1",
        user("run the order tests please and fix them"),
        call("python -m pytest"),
        result(False, 1),
        user("no, that's wrong, use `uv run pytest`"),
        call("uv run pytest -q"),
        result(True, 0),
        user("thanks!"),
    )
    (ev,) = digest(s)
    assert ev.outcome == "corrected"


def test_corrections_extract_preferred_and_avoided_tools():
    c = find_correction("No, this project uses uv. Always run tests with `uv run pytest`, never `python -m pytest`.")
    assert c.prefer == ("uv run pytest",) and c.avoid == ("python -m pytest",)
    c = find_correction("we don't use black, we use `uv run ruff format`")
    assert c.prefer == ("uv run ruff format",) and c.avoid == ("black",)
    c = find_correction("we use pnpm, not npm: run `pnpm test`")
    assert c.prefer == ("pnpm test",) and c.avoid == ("npm",), "never avoid the preferred tool"
    assert find_correction("never push directly to main").prefer == ()
    assert find_correction("run the linter and fix whatever it reports") is None


def test_failed_then_passed_commands_become_lessons():
    s = _session(
        "s1",
        user("create a migration adding the discount column"),
        call("alembic revision -m add"),
        result(False, 127),
        call("uv run alembic revision -m add"),
        result(True, 0),
    )
    (ev,) = digest(s)
    (lesson,) = ev.lessons
    assert lesson.kind == "command" and lesson.prefer == ("uv run alembic revision",) and lesson.failed
    assert [(c.op, c.value) for c in ev.checks] == [("contains", "uv run alembic revision")]


def test_same_command_failing_then_passing_is_a_code_fix_not_a_lesson():
    s = _session(
        "s1",
        user("fix the failing tax test in orders"),
        call("uv run pytest -q"),
        result(False, 1),
        call("uv run pytest -q"),
        result(True, 0),
    )
    (ev,) = digest(s)
    assert ev.lessons == () and ev.outcome == "success"


def test_core_and_version_generalisation():
    assert cmd.core("pnpm add zod") == "pnpm add"
    assert cmd.core("uv run ruff check") == "uv run ruff check"
    assert cmd.pattern_of("git tag v1.4.0") == ("regex", r"git\s+tag\s+v\d+\.\d+\.\d+")


def test_clustering_groups_recurring_intents_not_exact_text():
    texts = [
        "run the tests for the cart module",
        "please check that the discount tests still pass",
        "format the whole repo before I commit",
        "can you format the files I touched today",
    ]
    groups = cluster(texts, [("test",), ("test",), ("format",), ("format",)])
    assert sorted(map(sorted, groups)) == [[0, 1], [2, 3]]


def test_zero_api_path_produces_real_proposals(fixture_home):
    """Bug §6.1: upstream's no-model default mined tasks with nothing to check and never
    proposed an edit. Here the realistic fixtures yield checkable tasks and lessons."""
    from skillopt_sleep.harvest import HarvestRequest, harvest

    home, project = fixture_home
    sessions = harvest(HarvestRequest(project=project)).sessions
    report = mine(sessions, session_splits([s.id for s in sessions]), project_name=project.name)
    assert report.tasks and all(t.checks for t in report.tasks)
    lessons = {lesson.text for t in report.tasks for lesson in t.lessons}
    assert any("uv run pytest" in text for text in lessons)
    assert any("uv run ruff format" in text for text in lessons)
    assert any("prefixed with v" in text for text in lessons)


def test_uncheckable_intents_are_dropped_not_scored_by_outcome():
    """Bug §6.1: a task with no evidence must not be scored from its outcome label."""
    s = _session("s1", user("write a haiku about the order service"), Turn(role="assistant", content="..."), user("thanks"))
    report = mine([s], {"claude-code:s1": "train"})
    assert report.tasks == () and report.dropped_uncheckable == 1
