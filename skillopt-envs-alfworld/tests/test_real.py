"""The optional real-ALFWorld adapter: clear errors when absent, correct loading when present.

The machine running these tests has neither the alfworld package nor its game files (they
come from GitHub release assets). So the error paths run for real; the loading path runs
on a fake $ALFWORLD_DATA tree laid out like the downloaded one, with the package check
replaced by a stub that stands for "alfworld is installed".
"""

import json
from importlib import util

import pytest

from skillopt.api import ConfigError, Task
from skillopt_envs_alfworld import AlfworldConfig, AlfworldEnv, real

needs_no_alfworld = pytest.mark.skipif(util.find_spec("alfworld") is not None, reason="alfworld is installed here")


@needs_no_alfworld
def test_absent_package_and_games_give_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("ALFWORLD_DATA", str(tmp_path / "nowhere"))
    env = AlfworldEnv(AlfworldConfig(source="alfworld"))
    with pytest.raises(ConfigError) as caught:
        env.tasks("val")
    message = str(caught.value)
    assert "pip install alfworld" in message and "alfworld-download" in message
    assert "18 of the 18 'val' game files are missing" in message and "does not exist" in message


@needs_no_alfworld
def test_data_path_selects_the_real_games(tmp_path):
    with pytest.raises(ConfigError, match="pip install alfworld"):
        AlfworldEnv(AlfworldConfig(data_path=str(tmp_path))).tasks("test")


@needs_no_alfworld
def test_playing_a_real_game_without_the_package_says_what_to_install():
    task = Task(id="val-0000", gold={"gamefile": "/x/game.tw-pddl"})
    with pytest.raises(ConfigError, match="pip install alfworld"):
        AlfworldEnv().session(task)


def fake_alfworld_data(root, split="val", skip=0):
    rows = real.manifest_rows(split)
    for row in rows[skip:]:
        game = root / row["gamefile"]
        game.parent.mkdir(parents=True, exist_ok=True)
        game.write_text("{}")
        (game.parent / "traj_data.json").write_text(json.dumps({
            "task_type": row["task_type"],
            "pddl_params": {"object_target": "AlarmClock", "parent_target": "", "toggle_target": "DeskLamp"},
            "turk_annotations": {"anns": [{"task_desc": "Look at the clock under the lamp.", "high_descs": ["Go to the desk."]}]},
            "plan": {"high_pddl": [{"discrete_action": {"action": "GotoLocation", "args": ["desk"]}},
                                   {"discrete_action": {"action": "NoOp", "args": []}}]},
        }))  # fmt: skip
    return rows


def test_present_games_load_with_resolved_references(tmp_path, monkeypatch):
    monkeypatch.setattr(real, "missing_packages", lambda: [])  # stands for: alfworld and textworld installed
    rows = fake_alfworld_data(tmp_path)
    env = AlfworldEnv(AlfworldConfig(data_path=str(tmp_path)))
    tasks = env.tasks("val")
    assert len(tasks) == len(rows) == 18
    assert tasks[0].id == "val-0000" and tasks[0].gold["gamefile"] == str(tmp_path / rows[0]["gamefile"])
    assert {t.task_type for t in tasks} <= set(real.TASK_TYPE_NAMES.values())
    assert "pick_two" in {t.task_type for t in tasks}
    assert "Human task descriptions: Look at the clock under the lamp." in tasks[0].reference
    assert "PDDL parameters: object_target=AlarmClock, toggle_target=DeskLamp" in tasks[0].reference
    assert "Expert high-level plan (1 steps): GotoLocation(desk)" in tasks[0].reference
    monkeypatch.setenv("ALFWORLD_DATA", str(tmp_path))
    assert [t.id for t in AlfworldEnv(AlfworldConfig(source="alfworld")).tasks("val")] == [t.id for t in tasks]


def test_some_games_missing_is_an_error_naming_how_many(tmp_path, monkeypatch):
    monkeypatch.setattr(real, "missing_packages", lambda: [])
    fake_alfworld_data(tmp_path, skip=3)
    with pytest.raises(ConfigError, match="3 of the 18 'val' game files are missing") as caught:
        AlfworldEnv(AlfworldConfig(data_path=str(tmp_path))).tasks("val")
    assert "pip install" not in str(caught.value)


def test_split_dir_cannot_mix_with_real_games(tmp_path):
    with pytest.raises(ConfigError, match="cannot be combined"):
        AlfworldEnv(AlfworldConfig(source="alfworld", split_dir=str(tmp_path))).tasks("val")


def test_unknown_source_is_rejected():
    with pytest.raises((ConfigError, ValueError)):
        AlfworldConfig(source="textworld")


def test_task_sentence_from_a_real_intro():
    intro = "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room.\n\nYour task is to: put a clean mug in coffeemachine."
    assert real.task_sentence(intro) == "Your task is to: put a clean mug in coffeemachine."
