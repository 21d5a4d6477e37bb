"""Mining that generalises beyond one fixture: what was done (the difference between the
rejected and the kept attempt), corrections in four languages and in prose, feedback
traps, grouping by actions, the memory file's guarantee, and rules only from repeated
lessons. Sessions are built turn by turn (the harvesters' own records)."""

import pytest

from skillopt.records import Session, Turn
from skillopt_sleep.learn.reflect import heuristic_edits, one_offs
from skillopt_sleep.mine.corrections import find_correction
from skillopt_sleep.mine.digest import digest
from skillopt_sleep.mine.feedback import reply_kind
from skillopt_sleep.mine.heuristic import mine
from skillopt_sleep.mine.memory import ProjectMemory
from skillopt_sleep.replay import Attempt, ReplayResult
from skillopt_sleep.replay.judging import score_checks


def user(text):
    return Turn(role="user", content=text)


def said(text):
    return Turn(role="assistant", content=text)


def shell(command, code):
    return [
        Turn(role="assistant", kind="tool_call", name="Bash", content=command),
        Turn(role="tool", kind="tool_result", name="Bash", content=f"[{'ok' if code == 0 else 'error'} exit={code}] ..."),
    ]


def edit(path, text):
    return [Turn(role="assistant", kind="tool_call", name="Edit", content=f"{path}\n{text}")]


def session(sid, *turns):
    flat = [t for item in turns for t in (item if isinstance(item, list) else [item])]
    return Session(id=f"claude-code:{sid}", source="claude-code", project="/p", turns=tuple(flat))


@pytest.mark.parametrize(
    "text, prefer, avoid",
    [
        ("nimm bitte `uv run pytest -n auto` statt `uv run pytest`", "uv run pytest -n auto", "uv run pytest"),
        ("non, ici c'est `pnpm test`, pas `npm test`", "pnpm test", "npm test"),
        ("no uses `pip install`, usa `poetry add`", "poetry add", "pip install"),
        ("`moment` ist hier falsch, wir nehmen `dayjs`", "dayjs", "moment"),
        ("prefer `httpx` over `requests` in this codebase", "httpx", "requests"),
        ("no, `git tag -a v3.6.0` please, not `git tag 3.6.0`", "git tag -a v3.6.0", "git tag 3.6.0"),
        ("eso va en `tests/unit/`, no en `tests/`", "tests/unit/", "tests/"),
    ],
)
def test_corrections_are_read_in_four_languages_with_versions_and_paths(text, prefer, avoid):
    """Regression: a dot inside a version ended the clause, and only English phrases were read."""
    c = find_correction(text)
    assert c is not None and c.prefer == (prefer,) and c.avoid == (avoid,), c


def test_names_said_in_prose_are_read_from_what_the_session_did():
    c = find_correction("hmm, we never use requests, always httpx", vocabulary=("httpx", "requests", "httpx.get"))
    assert (c.prefer, c.avoid) == (("httpx",), ("requests",))
    bare = find_correction("hmm, we never use requests, always httpx")  # without the session's steps: no names known
    assert bare is None or (bare.prefer, bare.avoid) == ((), ())


@pytest.mark.parametrize(
    "text",
    [
        "thanks! hmm, one thing: the entry belongs under `## [Unreleased]`, not at the end of the file",
        "Looks good, but I meant under `## [Unreleased]`, not at the end of the file",
        "Danke! Aber eigentlich gehört der Eintrag unter `## [Unreleased]`, nicht ans Dateiende",
    ],
)
def test_a_real_late_correction_is_read_as_a_correction(text):
    assert reply_kind(text, is_correction=find_correction(text) is not None) in ("correction", "adjustment")


@pytest.mark.parametrize(
    "text",
    [
        "Great, thank you. Would you mind also adding a revert note for rates to the docs? Not urgent.",
        "perfect — can you also add a type hint to rates while you're at it? that's not blocking, just nice to have",
        "nice. one more thing, could you write the undo step for rates too? thanks",
        "ok, and handle the sink read error instead of panicking",
        "¡Genial! ¿Podrías actualizar también el README de rates? Sin prisa.",
    ],
)
def test_a_polite_follow_up_request_is_new_work_not_a_complaint(text):
    """Regression: "revert", "undo", "that's not" made a follow-up a complaint; "instead of" a late correction."""
    assert reply_kind(text, is_correction=find_correction(text) is not None) == "new_request"


def test_checks_come_from_the_difference_between_the_rejected_and_the_kept_attempt():
    s = session(
        "s1",
        user("add a helper that writes the rates report"),
        edit("app/io/rates.py", 'import os\n\ndef rates_path(base):\n    return os.path.join(base, "rates.csv")'),
        user("nein, hier immer `pathlib`, nicht `os.path`"),
        edit("app/io/rates.py", 'from pathlib import Path\n\ndef rates_path(base):\n    return Path(base) / "rates.csv"'),
        user("now write unit tests for rates"),
        edit("tests/test_rates.py", "def test_rates():\n    assert True"),
        said("Created tests/test_rates.py."),
        user("ça va dans `tests/unit/`, pas directement dans `tests/`"),
        edit("tests/unit/test_rates.py", "def test_rates():\n    assert True"),
        user("then run the full test suite"),
        shell("uv run pytest", 0),
        user("use `uv run pytest -n auto`, not `uv run pytest`"),
        shell("uv run pytest -n auto", 0),
    )
    api, place, flag = digest(s)
    assert [lesson.kind for lesson in api.lessons] == ["api"] and api.lessons[0].prefer == ("pathlib",)
    assert [lesson.kind for lesson in place.lessons] == ["place"] and place.lessons[0].prefer == ("tests/unit/",)
    assert [lesson.kind for lesson in flag.lessons] == ["flag"] and flag.lessons[0].prefer == ("uv run pytest -n auto",)
    for ev, kept, rejected in (
        (api, "from pathlib import Path", "os.path.join(base)"),
        (place, "tests/unit/test_rates.py", "tests/test_rates.py"),
        (flag, "uv run pytest -n auto -q", "uv run pytest -q"),
    ):
        assert score_checks(ev.checks, kept).hard == 1.0 and score_checks(ev.checks, rejected).hard == 0.0, ev.checks


def _job(sid, request, lang_fix):
    return session(sid, user(request), shell("go test ./...", 0), user(lang_fix), shell("go test -race ./...", 0))


def test_the_same_job_in_two_languages_is_one_task_and_other_jobs_stay_apart():
    sessions = [
        _job("a", "run the go tests for shipments", "use `go test -race`, not `go test`"),
        _job("b", "lass die Go-Tests für Carrier laufen", "bitte `go test -race` verwenden, nicht `go test`"),
        _job("c", "est-ce que les tests du paquet quotes passent ?", "utilise `go test -race` au lieu de `go test`"),
        session("d", user("tag the 1.2.0 release"), shell("git tag 1.2.0", 0), user("no, `git tag -a v1.2.0` please"),
                shell('git tag -a v1.2.0 -m "Release"', 0)),  # fmt: skip
    ]
    report = mine(sessions, {s.id: "train" for s in sessions})
    by_size = sorted(report.tasks, key=lambda t: -t.support)
    assert [t.support for t in by_size] == [3, 1] and report.recurring_clusters == 1
    assert "go test" in by_size[0].lessons[0].prefer[0] and "git tag" in by_size[1].lessons[0].prefer[0]


def test_no_check_the_memory_file_already_guarantees():
    """Regression: a kept check was the command the memory file states, so a
    memory-following agent scored 1.00 at baseline and the gate could only tie."""
    s = session("s", user("run the full test suite"), shell("python -m pytest", 1), user("use `uv run pytest -n auto`"),
                shell("uv run pytest -n auto", 0))  # fmt: skip
    memory = ProjectMemory(prefer=("uv run pytest",), files=("CLAUDE.md",))
    report = mine([s], {s.id: "train"}, memory=memory)
    (task,) = report.tasks
    memory_only = "```bash\nuv run pytest\n```"
    assert score_checks(task.checks, memory_only).hard == 0.0 and score_checks(task.checks, "uv run pytest -n auto").hard == 1.0
    stated = session("t", user("lint the code"), shell("ruff check .", 127), user("use `uv run ruff check`"), shell("uv run ruff check .", 0))
    lint = mine([stated], {stated.id: "train"}, memory=ProjectMemory(prefer=("uv run ruff check",)))
    assert lint.tasks == () and lint.dropped_memory_checks >= 1
    assert mine([stated], {stated.id: "train"}).tasks != (), "without the memory line the same session is a task"


def _train(tasks):
    return ReplayResult(phase="train", docs_hash="x", docs_text="",
                        attempts=tuple(Attempt(task_id=t.id, repeat=0, status="ok", hard=0.0) for t in tasks))  # fmt: skip


def _api(sid, prefer, avoid, path):
    return session(sid, user(f"write the {sid} client"), edit(path, f"import {avoid}\n{avoid}.get(url)"),
                   user(f"use `{prefer}`, not `{avoid}`"), edit(path, f"import {prefer}\n{prefer}.get(url)"))  # fmt: skip


def test_a_repeated_correction_becomes_a_general_rule_with_its_evidence_and_a_one_off_does_not():
    repeated = [_api("rates", "httpx", "requests", "app/clients/rates.py"), _api("fees", "httpx", "requests", "app/clients/fees.py")]
    one_off = [_api("parse", "orjson", "json", "app/parse.py")]
    sessions = repeated + one_off
    report = mine(sessions, {s.id: "train" for s in sessions})
    edits = heuristic_edits(list(report.tasks), _train(report.tasks), [], 5)
    assert [e.edit.content for e in edits] == ["- In `*.py` code, use `httpx` instead of `requests`."]
    assert edits[0].edit.support_count == 2 and any("use `httpx`, not `requests`" in line for line in edits[0].evidence)
    assert [lesson.prefer for lesson in one_offs(list(report.tasks), _train(report.tasks))] == [("orjson",)]
