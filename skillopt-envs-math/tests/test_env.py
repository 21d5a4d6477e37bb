"""The env against the contract, its prompts, scoring, presets and registration."""

import json
import re

import attrs
import pytest

from skillopt.api import ConfigError, RolloutContext
from skillopt.config.loading import ConfigSources, resolve_config
from skillopt.testing import check_env_contract
from skillopt_envs_math import LiveMathConfig, LiveMathEnv
from skillopt_envs_math.env import user_prompt


def gold_by_question(env: LiveMathEnv) -> dict[str, str]:
    return {
        t.inputs["question"] + t.inputs["choices"][0]["text"]: t.gold["label"]
        for s in ("train", "val", "test")
        for t in env.tasks(s)
    }


def oracle(env: LiveMathEnv, style: str = "<answer>{}</answer>", wrong: bool = False):
    """A scripted target standing in for a model that knows every answer (or always misses)."""
    gold = gold_by_question(env)

    def script(request):
        user = request.messages[-1].content
        question = re.search(r"## Question\n(.*?)\n\n## Choices", user, re.DOTALL).group(1)
        first = re.search(r"## Choices\nA\. (.*)", user).group(1)
        label = gold[question + first]
        if wrong:
            label = "A" if label != "A" else "B"
        return "Checking small cases first.\n" + style.format(label)

    return script


def test_contract():
    env = check_env_contract(LiveMathEnv)
    assert env.name == "livemath"
    assert len(env.tasks("train")) >= 60 and len(env.tasks("test")) >= 60


def test_task_types_cover_several_theorem_kinds():
    env = LiveMathEnv()
    kinds = {t.task_type for t in env.tasks("test")}
    assert {"number theory", "inequality", "combinatorics", "sequences and series"} <= kinds


@pytest.mark.parametrize("style", ["<answer>{}</answer>", "The answer is **{}**.", "Option {}", "({})"])
def test_rollout_scores_one_for_the_gold_label_in_any_accepted_form(scripted_client, style):
    env = LiveMathEnv()
    model = scripted_client(oracle(env, style))
    for task in env.tasks("val")[:6]:
        rollout = env.rollout(task, env.initial_skill(), model, RolloutContext(seed=3))
        assert rollout.score.hard == rollout.score.soft == 1.0, rollout.score.feedback
        assert rollout.prediction == task.gold["label"]
        assert rollout.task_type == task.task_type
        assert rollout.score.feedback.startswith("Correct: chose " + task.gold["label"])


def test_wrong_answer_feedback_names_the_pick_and_the_gold(scripted_client):
    env = LiveMathEnv()
    task = env.tasks("val")[0]
    rollout = env.rollout(task, env.initial_skill(), scripted_client(oracle(env, wrong=True)), RolloutContext())
    assert rollout.score.hard == 0.0
    picked = "A" if task.gold["label"] != "A" else "B"
    assert f"Wrong: chose {picked}" in rollout.score.feedback
    assert f"the correct choice is {task.gold['label']}" in rollout.score.feedback
    assert task.gold["text"][:40] in rollout.score.feedback
    evaluation = [t for t in rollout.turns if t.kind == "evaluation"]
    assert evaluation and rollout.score.feedback in evaluation[0].content


def test_unreadable_reply_scores_zero_and_says_why(scripted_client):
    env = LiveMathEnv()
    task = env.tasks("val")[0]
    rollout = env.rollout(task, "", scripted_client(lambda r: "<answer>not sure</answer>"), RolloutContext())
    assert rollout.score.hard == 0.0 and rollout.score.metrics["parsed"] == 0.0
    assert "No choice label could be read" in rollout.score.feedback and "not sure" in rollout.score.feedback


@pytest.mark.parametrize("reply", ["<answer>C</answer>", "A. something", "(A) fails, (B) fails", "", "The answer is D"])
def test_prediction_rescores_to_the_same_score(scripted_client, reply):
    env = LiveMathEnv()
    for task in env.tasks("test")[:8]:
        rollout = env.rollout(task, "", scripted_client(lambda r: reply), RolloutContext())
        assert env.score(task, rollout.prediction) == rollout.score


def test_theorem_and_sketch_are_hidden_unless_asked(scripted_client):
    plain = LiveMathEnv()
    task = plain.tasks("val")[0]
    backend_requests = []

    def record(request):
        backend_requests.append(request)
        return "<answer>A</answer>"

    plain.rollout(task, "SKILL", scripted_client(record), RolloutContext())
    sent = "\n".join(m.content for m in backend_requests[0].messages)
    theorem = task.reference.split("Theorem: ")[1].split("\n")[0]
    assert theorem and theorem not in sent and "Proof sketch" not in sent
    assert "theorem" not in task.inputs and "sketch" not in task.inputs
    assert "Theorem: " in task.reference and "Proof sketch: " in task.reference

    shown = LiveMathEnv(LiveMathConfig(use_theorem=True, use_sketch=True)).tasks("val")[0]
    prompt = user_prompt(shown)
    assert "## Theorem\n" + theorem in prompt and "## Proof sketch\n" in prompt
    only_theorem = user_prompt(LiveMathEnv(LiveMathConfig(use_theorem=True)).tasks("val")[0])
    assert "## Theorem" in only_theorem and "## Proof sketch" not in only_theorem


def test_choice_shuffle_is_seeded_and_optional():
    raw = LiveMathEnv(LiveMathConfig(shuffle_choices=False)).tasks("test")
    a = LiveMathEnv(LiveMathConfig(shuffle_seed=1)).tasks("test")
    b = LiveMathEnv(LiveMathConfig(shuffle_seed=1)).tasks("test")
    c = LiveMathEnv(LiveMathConfig(shuffle_seed=2)).tasks("test")
    assert a == b
    assert [t.inputs["choices"] for t in a] != [t.inputs["choices"] for t in c]
    assert [t.inputs["choices"] for t in a] != [t.inputs["choices"] for t in raw]
    for x, y in zip(raw, a, strict=True):
        assert x.gold["text"] == y.gold["text"]
        assert sorted(ch["text"] for ch in x.inputs["choices"]) == sorted(ch["text"] for ch in y.inputs["choices"])
        assert {ch["label"]: ch["text"] for ch in y.inputs["choices"]}[y.gold["label"]] == y.gold["text"]


def test_split_dir_of_normalised_items(tmp_path):
    rows = [json.loads(json.dumps(r)) for r in _rows(LiveMathEnv(LiveMathConfig(shuffle_choices=False)))]
    for split, chunk in (("train", rows[:3]), ("val", rows[3:5]), ("test", rows[5:7])):
        (tmp_path / split).mkdir()
        (tmp_path / split / "items.json").write_text(json.dumps(chunk))
    env = check_env_contract(LiveMathEnv, config=LiveMathConfig(split_dir=str(tmp_path)))
    assert [t.id for t in env.tasks("val")] == [r["id"] for r in rows[3:5]]
    (tmp_path / "val" / "items.json").write_text(json.dumps([{**rows[3], "id": ""}]))
    with pytest.raises(ConfigError, match="has no 'id'"):
        LiveMathEnv(LiveMathConfig(split_dir=str(tmp_path))).tasks("val")  # a fresh env: tasks are memoised


def _rows(env):
    from skillopt_envs_math.items import item_from_row, item_to_row

    rows = json.loads(env.package_files().joinpath("data", "sample", "val", "items.json").read_text(encoding="utf-8"))
    return [item_to_row(item_from_row(row, item_id=row["id"])) for row in rows][:7]


def test_limit_and_unknown_split():
    env = LiveMathEnv(LiveMathConfig(limit=3))
    assert len(env.tasks("test")) == 3
    with pytest.raises(ConfigError):
        env.tasks("dev")


def test_presets_resolve_against_the_schema():
    assert set(LiveMathEnv.presets) == {"small", "full"} and LiveMathEnv.presets["full"] == {}
    cfg = resolve_config(ConfigSources(preset=LiveMathEnv.presets["small"]), LiveMathConfig)
    assert cfg.train.num_epochs == 1 and cfg.train.batch_size == 8
    assert cfg.gradient.minibatch_size == 4 and cfg.gradient.max_trajectory_chars == 1500
    assert not cfg.optimizer.use_slow_update and not cfg.optimizer.use_meta_skill
    assert 0 < cfg.evaluation.sel_env_num <= 16 and 0 < cfg.evaluation.test_env_num <= 32
    assert cfg.train.max_steps and cfg.gradient.failure_only and cfg.model.optimizer.max_tokens
    assert isinstance(cfg.env, LiveMathConfig)


def test_registered_as_livemath_with_alias_math(run_cli):
    from skillopt.registry import get

    assert get("envs", "livemath").obj is LiveMathEnv
    assert get("envs", "math").obj is LiveMathEnv
    result = run_cli("envs")
    assert result.exit_code == 0 and "livemath" in result.output and "math" in result.output


def test_alias_entry_point_alone_loads_the_env():
    from skillopt.registry import get

    assert get("envs", "math").obj is LiveMathEnv  # fresh registry (autouse fixture): only the 'math' entry point is imported


def test_config_round_trips_and_rejects_unknown_keys():
    from skillopt.serde import structure_strict, to_data

    cfg = LiveMathConfig(shuffle_seed=7, use_sketch=True)
    assert structure_strict(to_data(cfg), LiveMathConfig, where="env") == cfg
    with pytest.raises(ConfigError, match="shufle_choices"):
        resolve_config(ConfigSources(assignments=("env.name=livemath", "env.shufle_choices=false")), LiveMathConfig)
    assert attrs.fields_dict(LiveMathConfig)["shuffle_choices"].default is True


def test_a_scripted_run_through_the_cli_writes_the_run_files(run_cli, tmp_path):
    out = tmp_path / "run"
    result = run_cli(
        "run",
        "--env",
        "livemath",
        "--backend",
        "scripted",
        "--set",
        "env.limit=4",
        "--set",
        "train.batch_size=4",
        "--set",
        "train.num_epochs=1",
        "--set",
        "evaluation.sel_env_num=2",
        "--set",
        "evaluation.test_env_num=4",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    for name in ("best_skill.md", "history.json", "summary.json"):
        assert (out / name).is_file()
    summary = json.loads((out / "summary.json").read_text())
    initial = summary["test"]["initial"]
    assert initial["n"] == 4 and initial["hard"] == 0.0  # the scripted target's "scripted reply" picks nothing
    assert len(initial["by_task_type"]) == 4  # the first items of every split alternate theorem types


def test_initial_skill_and_failure_analyst_prompt_ship_with_the_package():
    env = LiveMathEnv()
    assert "<answer>" in env.initial_skill()
    analyst = env.prompt("analyst_failure")
    assert analyst and "quantifier" in analyst and "JSON object" in analyst
    assert env.prompt("no_such_prompt") is None
