"""A handoff night end to end: the reflection prompt is a round like the others, and a
night number already used under ``handoff-done/`` never ends the night in an error.

The handoff backend is real (prompt and answer files in the project's handoff dir);
``_answer`` stands in for the subscription agent: replays follow whatever the prompt's
skill and memory say (``uv run`` when they say it), the reflection proposes one rule.
"""

import json

import pytest

from skillopt_sleep.cycle import HandoffWaiting, run_night
from skillopt_sleep.options import SleepOptions

RULE = "- Run every Python tool through `uv run` (tests: `uv run pytest`)."


def _answer(prompt_file, stage: str) -> str:
    text = prompt_file.read_text()
    if stage == "sleep-reflect":
        return json.dumps({"edits": [{"doc": "skill", "op": "append", "content": RULE, "why": "corrected in several sessions"}]})
    if "reply format" in text:
        return json.dumps({"tasks": []}) if '"tasks"' in text else json.dumps({"edits": []})
    documents = text.split("## Request", 1)[0]
    return "```bash\nuv run pytest -q\n```" if "uv run" in documents else "```bash\npython -m pytest -q\n```"


def _run_to_the_end(opts, *, limit: int = 12):
    """Re-run the night, answering every waiting prompt, until it finishes; the stages it waited on."""
    stages = []
    for _ in range(limit):
        try:
            return run_night(opts), stages
        except HandoffWaiting as waiting:
            handoff = waiting.index.parent
            for entry in json.loads((handoff / "pending.json").read_text()).values():
                if not (handoff / entry["answer"]).exists():
                    stages.append(entry["stage"])
                    (handoff / entry["answer"]).write_text(_answer(handoff / entry["prompt"], entry["stage"]))
    raise AssertionError(f"the night did not finish in {limit} rounds")


def _opts(project, **kw):
    base = {"project": project, "lookback_hours": 0, "min_val_items": 1, "backend": "handoff", "miner": "heuristic"}
    return SleepOptions(**{**base, **kw})


def test_a_handoff_night_waits_for_the_reflection_and_uses_its_edit(fixture_home):
    """Regression: the reflection prompt was written, its HandoffPending swallowed as a
    failed reflection, and the night ended "no edit was proposed" with the prompt filed
    unanswered under handoff-done/."""
    _home, project = fixture_home
    result, stages = _run_to_the_end(_opts(project, reflector="llm"))
    assert "sleep-reflect" in stages, "the night paused for the reflection answer"
    proposed = [e.edit.content for e in result.report.accepted_edits + result.report.rejected_edits]
    assert RULE in proposed, (result.status, result.reason, proposed)
    assert result.status == "accepted" and RULE in [e.edit.content for e in result.report.accepted_edits], result.reason
    done = project / ".skillopt-sleep" / "handoff-done" / "night-0001"
    unanswered = [p.name for p in (done / "prompts").iterdir() if not (done / "answers" / p.name).exists()]
    assert unanswered == [], "no prompt is filed as done without its answer"


def test_a_night_number_already_taken_under_handoff_done_gets_a_free_name(fixture_home):
    """Regression: with the state reset (night numbers start over) the second night's
    move to handoff-done/night-0001 hit the first one's folder: OSError [Errno 39]."""
    import shutil

    from skillopt_sleep.state import project_state_dir

    _home, project = fixture_home
    opts = _opts(project, reflector="heuristic")
    first, _ = _run_to_the_end(opts)
    shutil.rmtree(project_state_dir(project))  # the developer removed sleep's state
    second, _ = _run_to_the_end(opts)
    done = project / ".skillopt-sleep" / "handoff-done"
    assert sorted(p.name for p in done.iterdir()) == ["night-0001", "night-0001-2"]
    assert first.report.night == second.report.night == 1
    assert (done / "night-0001-2" / "tasks.json").is_file(), "the second night's pin and answers are kept too"


def test_archive_names_never_overwrite(tmp_path):
    from skillopt_sleep.replay.handoff import archive

    for n in range(3):
        live = tmp_path / "handoff"
        (live / "answers").mkdir(parents=True)
        (live / "answers" / "a.md").write_text(str(n))
        archive(live, 7)
        assert not live.exists()
    names = sorted(p.name for p in (tmp_path / "handoff-done").iterdir())
    assert names == ["night-0007", "night-0007-2", "night-0007-3"]
    assert [(tmp_path / "handoff-done" / n / "answers" / "a.md").read_text() for n in names] == ["0", "1", "2"]


@pytest.mark.parametrize("taken", ["night-0001"])
def test_the_cli_reports_no_traceback_when_the_name_is_taken(fixture_home, run_cli, taken):
    _home, project = fixture_home
    (project / ".skillopt-sleep" / "handoff-done" / taken / "answers").mkdir(parents=True)
    (project / ".skillopt-sleep" / "handoff-done" / taken / "answers" / "x.md").write_text("kept")
    args = ("sleep", "run", "--project", str(project), "--lookback-hours", "0", "--backend", "handoff", "--miner", "heuristic",
            "--reflector", "heuristic", "--min-val", "1", "--json")  # fmt: skip
    for _ in range(12):
        res = run_cli(*args)
        if res.exit_code != 3:
            break
        handoff = project / ".skillopt-sleep" / "handoff"
        for entry in json.loads((handoff / "pending.json").read_text()).values():
            (handoff / entry["answer"]).write_text(_answer(handoff / entry["prompt"], entry["stage"]))
    assert res.exit_code == 0 and "Traceback" not in res.output, res.output
    assert (project / ".skillopt-sleep" / "handoff-done" / taken / "answers" / "x.md").read_text() == "kept"
    assert (project / ".skillopt-sleep" / "handoff-done" / f"{taken}-2").is_dir()
