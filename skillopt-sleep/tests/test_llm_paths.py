"""The model-backed paths: LLM miner, LLM reflector, recall, tasks files, root overrides.

Scripted backends stand in for the optimizer model and return fixed JSON."""

import json
from pathlib import Path

import pytest

from skillopt.errors import ConfigError
from skillopt.records import Session, Turn
from skillopt_sleep.documents import LEARNED_START, Doc
from skillopt_sleep.learn.reflect import llm_edits, merge
from skillopt_sleep.mine.llm import mine_session
from skillopt_sleep.mine.recall import recall
from skillopt_sleep.mine.tasks import Check, SleepTask
from skillopt_sleep.replay import Attempt, ReplayResult
from skillopt_sleep.sentinel import SENTINEL

SESSION = Session(
    id="codex:1",
    source="codex",
    project="/p",
    turns=(
        Turn(role="user", content="run the linter please"),
        Turn(role="assistant", kind="tool_call", name="shell", content="ruff check ."),
        Turn(role="tool", kind="tool_result", name="shell", content="[error exit=127] ruff: command not found"),
        Turn(role="user", content="use uv run ruff check"),
    ),
)


def test_llm_miner_validates_checks_and_keeps_them_with_a_rubric(scripted_client):
    """Regression: whenever the model also wrote a rubric (its prompt asks for one) every
    check was discarded; a task keeps both."""
    reply = {
        "tasks": [
            {
                "intent": "Lint the project",
                "checks": [{"op": "contains", "value": "uv run ruff check"}, {"op": "regex", "value": "("}],
            },
            {
                "intent": "Explain the lint setup",
                "checks": [{"op": "contains", "value": "uv run ruff"}],
                "rubric": "mentions uv",
            },
            {"intent": "Something vague"},
        ]
    }
    seen = []
    client = scripted_client(lambda r: seen.append(r) or reply, role="optimizer")
    tasks, notes = mine_session(client, SESSION, "val")
    assert SENTINEL in seen[0].messages[0].content
    assert [(t.intent, t.split) for t in tasks] == [("Lint the project", "val"), ("Explain the lint setup", "val")]
    assert tasks[0].checks == (Check(op="contains", value="uv run ruff check", why="mined"),)
    assert tasks[1].rubric == "mentions uv" and tasks[1].checks == (Check(op="contains", value="uv run ruff", why="mined"),)
    assert any("malformed regex" in n for n in notes) and any("uncheckable" in n for n in notes)


def test_a_generic_check_is_dropped_but_its_rubric_kept(scripted_client):
    reply = {"tasks": [{"intent": "Run the tests", "checks": [{"op": "contains", "value": "pytest"}], "rubric": "uses uv run"}]}
    tasks, notes = mine_session(scripted_client(lambda r: reply, role="optimizer"), SESSION, "train")
    assert [(t.checks, t.rubric) for t in tasks] == [((), "uses uv run")]
    assert any("a generic answer passes; its rubric stays" in n for n in notes)


def test_a_task_with_checks_and_a_rubric_passes_only_when_both_do(scripted_client):
    """The checks pass on a bare mention; the judge (a scripted optimizer standing in for
    the LLM judge) rejects an answer that only mentions the command."""
    from skillopt_sleep.replay import replay

    task = SleepTask(id="t", intent="lint it", split="val", rubric="runs the linter through uv and fixes what it finds",
                     checks=(Check(op="contains", value="uv run ruff check"),))  # fmt: skip
    judge = scripted_client(lambda r: {"score": 1.0 if "fix" in r.messages[-1].content.split("## Answer")[1] else 0.0, "reason": "r"},
                            role="optimizer")  # fmt: skip
    for answer, hard in (("uv run ruff check .", 0.0), ("uv run ruff check . then I fix what it reports", 1.0), ("ruff check . and fix", 0.0)):
        target = scripted_client(lambda r, a=answer: a)
        (attempt,) = replay([task], [], target, judge, phase="val").attempts
        assert (attempt.status, attempt.hard) == ("ok", hard), (answer, attempt)


def _train_result():
    attempt = Attempt(
        task_id="t1",
        repeat=0,
        status="ok",
        hard=0.0,
        soft=0.0,
        answer="ruff check .",
        feedback="failed: must mention `uv run ruff check`",
    )
    return ReplayResult(phase="train", docs_hash="x", docs_text="", attempts=(attempt,))


def test_llm_reflector_edits_are_bounded_and_sanitised(scripted_client):
    reply = {
        "edits": [
            {"doc": "memory", "op": "append", "content": "Run Python tools through `uv run`."},
            {"doc": "skill", "op": "append", "content": f"{LEARNED_START} smuggled marker"},
            {"doc": "skill", "op": "replace", "target": "- old rule", "content": "- new rule"},
            {"doc": "skill", "op": "append", "content": "- one too many"},
        ]
    }
    task = SleepTask(id="t1", intent="lint it", split="train", checks=(Check(op="contains", value="uv run ruff check"),))
    docs = [
        Doc(role="skill", path=Path("/p/SKILL.md"), original=None, text=""),
        Doc(role="memory", path=Path("/p/AGENTS.md"), original=None, text=""),
    ]
    edits, note = llm_edits(scripted_client(lambda r: reply, role="optimizer"), [task], _train_result(), docs, 3, "p")
    assert note == ""
    assert [(e.doc, e.edit.op, e.edit.content) for e in edits] == [
        ("memory", "append", "- Run Python tools through `uv run`."),
        ("skill", "replace", "- new rule"),
    ]
    assert len(merge(edits, edits, 1)) == 1


def test_recall_uses_only_archived_train_tasks():
    archive = [
        {
            "id": "a",
            "split": "train",
            "intent": "run the lint step before pushing",
            "checks": [{"op": "contains", "value": "uv run ruff check", "why": ""}],
        },
        {
            "id": "b",
            "split": "val",
            "intent": "run the lint step in CI",
            "checks": [{"op": "contains", "value": "uv run ruff check", "why": ""}],
        },
        {
            "id": "c",
            "split": "train",
            "intent": "write release notes",
            "checks": [{"op": "contains", "value": "CHANGELOG", "why": ""}],
        },
    ]
    tonight = [SleepTask(id="t", intent="lint the payments package", split="train", checks=(Check(op="contains", value="x"),))]
    got = recall(archive, tonight, 1)
    assert [t.id for t in got] == ["recall:a"] and got[0].split == "train"
    assert recall(archive, tonight, 0) == []


def test_malformed_tasks_file_is_an_error(tmp_path):
    """Bug §6.4 (upstream ignored malformed input): a broken file names itself."""
    from skillopt_sleep.mine.taskfile import load_tasks

    bad = tmp_path / "tasks.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match="cannot read it as JSON"):
        load_tasks(bad)
    bad.write_text(json.dumps({"schema": "something-else"}))
    with pytest.raises(ConfigError, match="not a skillopt sleep tasks file"):
        load_tasks(bad)


def test_roots_override_by_env_and_flag(fixtures_dir, monkeypatch, tmp_path):
    from skillopt_sleep.harvest import HarvestRequest, harvest
    from skillopt_sleep.harvest.claude_code import ClaudeCodeHarvester

    monkeypatch.setenv("SKILLOPT_SLEEP_CLAUDE_CODE_ROOTS", str(fixtures_dir / "claude-code"))
    assert ClaudeCodeHarvester().roots() == [fixtures_dir / "claude-code"]
    result = harvest(HarvestRequest(sources=("claude-code",), scope="all"))
    assert len(result.sessions) == 1
    result = harvest(HarvestRequest(sources=("claude-code",), scope="all", roots={"claude-code": (tmp_path,)}))
    assert result.sessions == ()


def test_session_and_task_caps(fixture_home):
    from skillopt.scripted import ScriptedBackend
    from skillopt_sleep.clients import from_backends
    from skillopt_sleep.cycle import run_night
    from skillopt_sleep.options import SleepOptions

    _home, project = fixture_home
    opts = SleepOptions(project=project, lookback_hours=0, max_sessions=3, max_tasks=2, min_val_items=1)
    result = run_night(opts, clients=from_backends(ScriptedBackend(script=lambda r: "uv run pytest")), dry_run=True)
    assert result.report.harvest.sessions == 3 and result.report.mining.tasks <= 2
