"""The env against the contract: rollouts, trajectories, scoring, presets, registration."""

import json
import re
import threading

import attrs
import pytest

from skillopt.api import ConfigError, RolloutContext
from skillopt.config.loading import ConfigSources, resolve_config
from skillopt.testing import check_env_contract
from skillopt_envs_alfworld import AlfworldConfig, AlfworldEnv
from skillopt_envs_alfworld.agent import NO_ACTION

RULE = "Open every closed receptacle you visit."


def current_step(request) -> int:
    return int(re.search(r"Step (\d+) of \d+", request.messages[-1].content).group(1))


def expert(env: AlfworldEnv, split: str = "val", *, needs_rule: bool = False, style: str = "<action>{}</action>"):
    """A scripted target standing in for a model that plays the optimal plan.

    It finds its game by the first observation's room listing plus the task sentence (the
    target sees both), then plays the expert plan step by step. With ``needs_rule`` it only
    knows how to play when the skill in its system prompt holds RULE; otherwise it keeps
    looking around, as a model with a useless skill would.
    """
    plans = {}
    for task in env.tasks(split):
        key = task.inputs["task"]
        plans.setdefault(key, []).append(env.game(task).expert_plan)
    unique = {k: v[0] for k, v in plans.items() if len(v) == 1}

    def script(request):
        system, user = request.messages[0].content, request.messages[-1].content
        if needs_rule and RULE not in system:
            return "I will look around first.\n<action>look</action>"
        task = re.search(r"## Task\n(.*)\n", user).group(1)
        plan = unique[task]
        return "Following the plan.\n" + style.format(plan[current_step(request) - 1])

    return script, set(unique)


def test_contract():
    env = check_env_contract(AlfworldEnv)
    assert env.name == "alfworld"
    assert {len(env.tasks(s)) for s in ("train", "val", "test")} == {60, 30}


def test_task_shows_only_what_the_target_may_see():
    env = AlfworldEnv()
    task = env.tasks("val")[0]
    assert set(task.inputs) == {"task", "observation"}
    assert task.inputs["task"].startswith("Your task is to: ")
    plan = env.game(task).expert_plan
    assert f"Expert plan ({len(plan)} steps): " + "; ".join(plan) in task.reference
    assert "Goal conditions: " in task.reference


@pytest.mark.parametrize("style", ["<action>{}</action>", "Action: {}", "{}", "Action: {}."])
def test_the_expert_plan_wins_every_task_type(scripted_client, style):
    env = AlfworldEnv()
    script, playable = expert(env, style=style)
    model = scripted_client(script)
    won_types = set()
    for task in [t for t in env.tasks("val") if t.inputs["task"] in playable][:12]:
        rollout = env.rollout(task, env.initial_skill(), model, RolloutContext(seed=1))
        assert rollout.score.hard == rollout.score.soft == 1.0, rollout.score.feedback
        plan = env.game(task).expert_plan
        assert rollout.prediction.splitlines() == list(plan)
        assert rollout.score.feedback == f"Won in {len(plan)} steps (the expert plan takes {len(plan)})."
        won_types.add(rollout.task_type)
    assert len(won_types) == 6


def test_the_trajectory_holds_every_turn(scripted_client):
    env = AlfworldEnv()
    script, playable = expert(env)
    task = next(t for t in env.tasks("val") if t.inputs["task"] in playable)
    rollout = env.rollout(task, "SKILL TEXT", scripted_client(script), RolloutContext())
    turns = rollout.turns
    assert turns[0].role == "system" and "SKILL TEXT" in turns[0].content
    assert turns[1].role == "user" and task.inputs["observation"] in turns[1].content
    steps = len(env.game(task).expert_plan)
    actions = [t for t in turns if t.kind == "action"]
    observations = [t for t in turns if t.kind == "observation"]
    replies = [t for t in turns if t.role == "assistant"]
    assert len(actions) == len(observations) == len(replies) == steps
    assert [a.content for a in actions] == [f"step {i + 1}: {c}" for i, c in enumerate(env.game(task).expert_plan)]
    assert observations[0].content.startswith("You arrive at ")
    assert turns[-1].kind == "evaluation" and rollout.score.feedback in turns[-1].content


def test_scores_move_with_the_skill(scripted_client):
    env = AlfworldEnv(AlfworldConfig(max_steps=12))
    script, playable = expert(env, needs_rule=True)
    model = scripted_client(script)
    tasks = [t for t in env.tasks("val") if t.inputs["task"] in playable][:6]
    without = [env.rollout(t, env.initial_skill(), model, RolloutContext()).score for t in tasks]
    with_rule = [env.rollout(t, env.initial_skill() + "\n- " + RULE, model, RolloutContext()).score for t in tasks]
    assert sum(s.hard for s in without) == 0 and sum(s.hard for s in with_rule) == len(tasks)
    assert all("The step budget of 12 ran out." in s.feedback for s in without)


def test_unreadable_replies_are_invalid_actions_not_look(scripted_client):
    env = AlfworldEnv(AlfworldConfig(max_steps=3))
    task = env.tasks("val")[0]
    rollout = env.rollout(task, "", scripted_client(lambda r: "I do not know."), RolloutContext())
    assert rollout.prediction.splitlines() == [NO_ACTION] * 3
    observations = [t.content for t in rollout.turns if t.kind == "observation"]
    assert observations == ["Nothing happens."] * 3
    actions = [t.content for t in rollout.turns if t.kind == "action"]
    assert all("counted as an invalid action" in a and "i do not know" in a for a in actions)
    assert rollout.score.hard == 0.0 and rollout.score.metrics["invalid_actions"] == 3.0
    assert "3 of the 3 commands were invalid" in rollout.score.feedback
    assert "The step budget of 3 ran out." in rollout.score.feedback


def test_a_mapped_near_miss_is_recorded_as_such(scripted_client):
    env = AlfworldEnv(AlfworldConfig(max_steps=1))
    task = env.tasks("val")[0]
    first = env.game(task).expert_plan[0]  # "go to <kind> <n>"
    reply = "<action>" + first.replace("go to ", "go to the ").upper() + "</action>"
    rollout = env.rollout(task, "", scripted_client(lambda r: reply), RolloutContext())
    assert rollout.prediction == first


def test_soft_score_is_partial_credit_and_rescoring_is_pure():
    env = AlfworldEnv()
    for task in env.tasks("test")[:12]:
        plan = list(env.game(task).expert_plan)
        full = env.score(task, "\n".join(plan))
        assert full.hard == full.soft == 1.0
        partial = env.score(task, "\n".join(plan[:-1]))
        assert partial.hard == 0.0 and 0.0 <= partial.soft < 1.0 and "Unmet goal conditions:" in partial.feedback
        assert env.score(task, "\n".join(plan[:-1])) == partial
        assert env.score(task, "").soft == 0.0
    state_task = next(t for t in env.tasks("test") if t.task_type == "pick_heat_then_place")
    plan = list(env.game(state_task).expert_plan)
    heated = plan[: next(i for i, c in enumerate(plan) if c.startswith("heat ")) + 1]
    score = env.score(state_task, "\n".join(heated))
    assert score.soft == 0.5 and "Met: a " in score.feedback and " is hot" in score.feedback


def test_history_window_holds_the_last_k_steps(scripted_client):
    seen = []

    def record(request):
        seen.append(request.messages[-1].content)
        return "<action>look</action>"

    task = AlfworldEnv().tasks("val")[0]
    AlfworldEnv(AlfworldConfig(max_steps=4, history=2)).rollout(task, "", scripted_client(record), RolloutContext())
    assert "## Your last" not in seen[0]
    assert "## Your last 1 step\n" in seen[1] and "## Your last 2 steps\n" in seen[3]
    assert seen[3].count("[Action] look") == 2 and "Step 4 of 4." in seen[3]
    assert "## Admissible actions\n" in seen[0] and "go to " in seen[0]
    seen.clear()
    AlfworldEnv(AlfworldConfig(max_steps=3, history=0)).rollout(task, "", scripted_client(record), RolloutContext())
    assert not any("## Your last" in s for s in seen)


def test_cancel_and_deadline_stop_between_steps(scripted_client):
    env = AlfworldEnv(AlfworldConfig(max_steps=20))
    task = env.tasks("val")[0]
    cancel = threading.Event()
    calls = []

    def cancel_after_two(request):
        calls.append(1)
        if len(calls) == 2:
            cancel.set()
        return "<action>look</action>"

    rollout = env.rollout(task, "", scripted_client(cancel_after_two), RolloutContext(cancel=cancel))
    assert len(calls) == 2 and "cancelled after 2 steps" in rollout.score.feedback
    import time

    def slow(request):
        time.sleep(0.4)
        return "<action>look</action>"

    rollout = env.rollout(task, "", scripted_client(slow), RolloutContext(timeout_s=2.0))
    assert 1 <= len(rollout.prediction.splitlines()) < 5 and "the rollout deadline" in rollout.score.feedback


def test_split_dir_of_game_rows(tmp_path):
    env = AlfworldEnv()
    rows = [env.tasks("val")[i].gold["game"] for i in range(5)]
    for split, chunk in (("train", rows[:2]), ("val", rows[2:4]), ("test", rows[4:])):
        (tmp_path / split).mkdir()
        (tmp_path / split / "items.json").write_text(json.dumps(chunk))
    custom = check_env_contract(AlfworldEnv, config=AlfworldConfig(split_dir=str(tmp_path)))
    assert [t.id for t in custom.tasks("val")] == [r["id"] for r in rows[2:4]]
    bad = {**rows[2], "things": [{"name": "apple 1", "location": "garage 1"}]}
    (tmp_path / "val" / "items.json").write_text(json.dumps([bad]))
    fresh = AlfworldConfig(split_dir=str(tmp_path))  # an env loads a split once; a new one reads the file again
    with pytest.raises(ConfigError, match="unknown receptacle 'garage 1'"):
        AlfworldEnv(fresh).tasks("val")
    (tmp_path / "val" / "items.json").write_text(json.dumps([{"id": "x"}]))
    with pytest.raises(ConfigError, match="game 'x'.*missing or malformed"):
        AlfworldEnv(fresh).tasks("val")


def test_limit_and_unknown_split():
    env = AlfworldEnv(AlfworldConfig(limit=4))
    assert len(env.tasks("test")) == 4
    with pytest.raises(ConfigError):
        env.tasks("dev")


def test_presets_resolve_against_the_schema():
    assert set(AlfworldEnv.presets) == {"small", "full"}
    paper = resolve_config(ConfigSources(preset=AlfworldEnv.presets["full"]), AlfworldConfig)
    assert (paper.env.max_steps, paper.env.history, paper.env.workers) == (50, 2, 8)
    small = resolve_config(ConfigSources(preset=AlfworldEnv.presets["small"]), AlfworldConfig)
    assert isinstance(small.env, AlfworldConfig)
    assert small.env.max_steps <= 10 and small.env.max_completion_tokens <= 64 and small.env.workers == 1
    assert small.train.num_epochs == 1 and small.train.max_steps and small.gradient.failure_only
    assert small.gradient.min_failure_edits == 1 and small.env.source == paper.env.source == "sample"
    assert not small.optimizer.use_slow_update and not small.optimizer.use_meta_skill


def test_config_round_trips_and_rejects_bad_values():
    from skillopt.serde import structure_strict, to_data

    cfg = AlfworldConfig(max_steps=7, history=0)
    assert structure_strict(to_data(cfg), AlfworldConfig, where="env") == cfg
    with pytest.raises(ConfigError, match="max_stepz"):
        resolve_config(ConfigSources(assignments=("env.name=alfworld", "env.max_stepz=3")), AlfworldConfig)
    with pytest.raises((ConfigError, ValueError)):
        AlfworldConfig(max_steps=0)
    assert attrs.fields_dict(AlfworldConfig)["max_steps"].default == 50


def test_registered_as_alfworld(run_cli):
    from skillopt.api import get_component

    assert get_component("envs", "alfworld").obj is AlfworldEnv
    result = run_cli("envs", "--json")
    assert result.exit_code == 0
    row = next(r for r in json.loads(result.stdout) if r["name"] == "alfworld")
    assert row["distribution"] == "skillopt-envs-alfworld" and row["status"] == "ok"


def test_initial_skill_and_prompts_ship_with_the_package():
    env = AlfworldEnv()
    assert "<action>" in env.initial_skill()
    analyst = env.prompt("analyst_failure")
    assert analyst and "Nothing happens" in analyst and "JSON object" in analyst


def test_a_scripted_run_through_the_cli_writes_the_run_files(run_cli, tmp_path):
    out = tmp_path / "run"
    sets = ["env.limit=6", "env.max_steps=3", "train.batch_size=3", "train.num_epochs=1", "evaluation.sel_env_num=2",
            "evaluation.test_env_num=6"]
    args = ["run", "--env", "alfworld", "--backend", "scripted", "--out", str(out)]
    for item in sets:
        args += ["--set", item]
    result = run_cli(*args)
    assert result.exit_code == 0, result.output
    for name in ("best_skill.md", "history.json", "summary.json"):
        assert (out / name).is_file()
    summary = json.loads((out / "summary.json").read_text())
    initial = summary["test"]["initial"]
    assert initial["n"] == 6 and initial["hard"] == 0.0  # "scripted reply" is no command: 3 invalid steps
    assert len(initial["by_task_type"]) == 6
    conversations = list(out.rglob("conversation.json"))
    assert conversations
    rollout = json.loads(conversations[0].read_text())
    kinds = [t.get("kind", "message") for t in rollout["turns"]]
    assert kinds.count("action") == kinds.count("observation") == 3 and kinds[-1] == "evaluation"


@pytest.mark.parametrize(
    ("reply", "says"),
    [
        ("<action>clean pan 3 with sinkbasin 1</action>", "'clean pan 3 with sinkbasin 1' is not an admissible command here"),
        ("<action></action>", "no command found in the reply"),
        ("go to cabinet 1\ngo to cabinet 2", "the reply listed 2 different commands"),
        ("Hmm, tough one.", "no command found in the reply (read 'hmm, tough one')"),
    ],
)
def test_an_invalid_step_says_why_in_the_trajectory(scripted_client, reply, says):
    env = AlfworldEnv(AlfworldConfig(max_steps=1))
    task = next(t for t in env.tasks("val") if "go to cabinet 2" in env.session(t).admissible())
    rollout = env.rollout(task, "", scripted_client(lambda r: reply), RolloutContext())
    action = next(t.content for t in rollout.turns if t.kind == "action")
    assert action == f"step 1: {NO_ACTION} {says}: counted as an invalid action"
