"""A handoff night keeps its task list in its engine run directory in round one
(``runs/night-NNNN/sleep/tasks.json``); later rounds resume on exactly it.

The handoff backend is real (prompt and answer files in the project's handoff dir);
``_answer`` stands in for the subscription agent that answers each prompt file.
"""

import json
import shutil

import pytest

from skillopt.errors import ConfigError
from skillopt_sleep.cycle import HandoffWaiting, run_night
from skillopt_sleep.mine.gather import TASKS_FILE
from skillopt_sleep.options import SleepOptions
from skillopt_sleep.state import project_state_dir


def _answer(prompt_file) -> str:
    text = prompt_file.read_text()
    if '"variants"' in text:  # a dream prompt: rephrase the request
        request = text.split("## Request\n", 1)[1].split("\n\n## How answers", 1)[0]
        return json.dumps({"variants": [f"When you have a minute: {request}"]})
    if "reply format" in text:
        return json.dumps({"edits": []}) if '"edits"' in text else json.dumps({"tasks": []})
    return "```bash\nuv run pytest -q\n```"


def _opts(project, **kw):
    base = {"project": project, "lookback_hours": 0, "min_val_items": 1, "backend": "handoff", "reflector": "heuristic"}
    base.update(kw)
    return SleepOptions(**base)


def _kept(project, run="night-0001"):
    """Where the night keeps its task list: its engine run directory."""
    return project_state_dir(project) / "runs" / run / TASKS_FILE


def _answer_all(handoff) -> None:
    for entry in json.loads((handoff / "pending.json").read_text()).values():
        (handoff / entry["answer"]).write_text(_answer(handoff / entry["prompt"]))


def test_rounds_resume_on_the_pinned_tasks_without_reharvesting(fixture_home):
    home, project = fixture_home
    opts = _opts(project, dream_factor=1, miner="heuristic")
    with pytest.raises(HandoffWaiting) as first:
        run_night(opts)
    handoff = first.value.index.parent
    pinned = json.loads(_kept(project).read_text())
    ids = [t["id"] for t in pinned["tasks"]]
    dreams = [t for t in pinned["tasks"] if t["origin"] == "dream"]
    assert pinned["dreamed"] is True and dreams and {t["split"] for t in dreams} == {"train"}
    # the developer keeps working, the lookback window moves: none of that may change tonight's tasks
    for agent_dir in (".claude", ".codex", ".cursor", ".pi", ".copilot", ".config", ".local"):
        shutil.rmtree(home / agent_dir, ignore_errors=True)
    rounds = 1
    while True:
        _answer_all(handoff)
        try:
            result = run_night(opts)
            break
        except HandoffWaiting:
            rounds += 1
            assert rounds < 10
    assert result.status in ("accepted", "nothing_learned"), result.reason
    assert [t.id for t in result.report.tasks] == ids
    assert result.report.harvest.sessions == pinned["gathered"]["harvest"]["sessions"] > 0
    assert any("resuming the handoff round pinned" in n for n in result.report.notes)
    assert not _kept(project).exists(), "the next night starts clean"
    done = project / ".skillopt-sleep" / "handoff-done" / "night-0001" / TASKS_FILE.name
    assert [t["id"] for t in json.loads(done.read_text())["tasks"]] == ids, "the pin stays reviewable"


def test_dream_prompts_wait_before_the_dreams_are_pinned(fixture_home):
    """With the LLM dreamer, round one pins the mined tasks and stops on the dream
    prompts; round two dreams from the pinned tasks and pins the variants."""
    _home, project = fixture_home
    opts = _opts(project, dream_factor=1, miner="auto")
    with pytest.raises(HandoffWaiting) as first:
        run_night(opts)
    handoff = first.value.index.parent
    stages = {v["stage"] for v in json.loads((handoff / "pending.json").read_text()).values()}
    assert stages == {"sleep-dream"}
    round_one = json.loads(_kept(project).read_text())
    assert round_one["dreamed"] is False and not any(t["origin"] == "dream" for t in round_one["tasks"])
    _answer_all(handoff)
    with pytest.raises(HandoffWaiting):
        run_night(opts)
    round_two = json.loads(_kept(project).read_text())
    dreams = [t for t in round_two["tasks"] if t["origin"] == "dream"]
    assert round_two["dreamed"] is True and dreams
    assert all(t["intent"].startswith("When you have a minute: ") for t in dreams), "the answered dreams are pinned"
    assert [t["id"] for t in round_two["tasks"] if t["origin"] != "dream"] == [t["id"] for t in round_one["tasks"]]


def test_changed_options_do_not_silently_remine(fixture_home):
    _home, project = fixture_home
    with pytest.raises(HandoffWaiting):
        run_night(_opts(project))
    with pytest.raises(ConfigError, match=r"different seed; re-run with the options of the first round, or delete .*tasks\.json"):
        run_night(_opts(project, seed=7))
    _kept(project).write_text("{broken")
    with pytest.raises(ConfigError, match="is damaged"):
        run_night(_opts(project))


def test_a_finished_dry_run_leaves_no_pin(fixture_home):
    _home, project = fixture_home
    opts = _opts(project)
    while True:
        try:
            run_night(opts, dry_run=True)
            break
        except HandoffWaiting as waiting:
            handoff = waiting.index.parent
            assert _kept(project, "dryrun-0001").is_file()
            _answer_all(handoff)
    assert not _kept(project, "dryrun-0001").exists()
