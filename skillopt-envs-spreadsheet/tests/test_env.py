"""The env end to end with a scripted model standing in for the target.

The scripted replies are fixed code strings (correct, wrong, crashing, hostile), so each
test checks what the env does with a given model behaviour: prompts, feedback, final
re-run on every case, containment and scores.
"""

from __future__ import annotations

import json

import attrs
import pytest

from skillopt.api import RolloutContext
from skillopt.testing import check_env_contract
from skillopt_envs_spreadsheet import SpreadsheetConfig, SpreadsheetEnv
from skillopt_envs_spreadsheet.samplegen import all_templates

TEMPLATES = {t.key: t for t in all_templates()}
SECRET = "sk-proj-test-SECRET-value-0000000000"


def fenced(code: str) -> str:
    return f"Here is the script.\n```python\n{code}```\nDone."


@pytest.fixture(scope="module")
def tasks():
    env = SpreadsheetEnv()
    return {t.id: t for s in ("train", "val", "test") for t in env.tasks(s)}


def make_env(**kw) -> SpreadsheetEnv:
    return SpreadsheetEnv(SpreadsheetConfig(**kw))


def test_env_contract_default_and_single_mode():
    check_env_contract(SpreadsheetEnv)
    check_env_contract(SpreadsheetEnv, config=SpreadsheetConfig(mode="single", limit=3))


def test_registered_under_both_names(run_cli):
    from skillopt.api import get_component

    assert get_component("envs", "spreadsheet").obj is SpreadsheetEnv  # an alias alone: found by loading the envs
    assert get_component("envs", "spreadsheetbench").obj is SpreadsheetEnv
    listing = run_cli("envs", "--load", "--json")  # aliases given to register() show once the plugin is imported
    assert listing.exit_code == 0
    rows = json.loads(listing.stdout)
    row = next(r for r in rows if "spreadsheetbench" in [r["name"], *r["aliases"]])
    assert {row["name"], *row["aliases"]} == {"spreadsheetbench", "spreadsheet"}
    assert row["distribution"] == "skillopt-envs-spreadsheet"


def test_small_preset_resolves_and_is_chosen_for_the_local_model():
    from skillopt.config.loading import ConfigSources, resolve_config
    from skillopt.engine.session import auto_preset

    cfg = resolve_config(ConfigSources(preset=SpreadsheetEnv.presets["small"], flags={"env.name": "spreadsheetbench"}), SpreadsheetConfig)
    assert cfg.env.mode == "single" and cfg.train.num_epochs == 1 and cfg.gradient.minibatch_size == 4
    assert cfg.gradient.max_trajectory_chars == 1500
    assert not cfg.optimizer.use_slow_update and not cfg.optimizer.use_meta_skill
    assert SpreadsheetEnv.presets["full"] == {}
    from skillopt.testing import register_backend

    # stand-ins for skillopt-backends' local (a small CPU model) and a provider's backend: the env's
    # tests need only the core and the env
    register_backend("cpu-model", small_model=True)
    register_backend("provider")
    local = resolve_config(ConfigSources(flags={"env.name": "x", "model.backend": "cpu-model"}), SpreadsheetConfig)
    scripted = resolve_config(ConfigSources(flags={"env.name": "x", "model.backend": "scripted"}), SpreadsheetConfig)
    other = resolve_config(ConfigSources(flags={"env.name": "x", "model.backend": "provider"}), SpreadsheetConfig)
    # small on a backend declaring small_model (the local model, the scripted one), full elsewhere
    assert auto_preset(SpreadsheetEnv, local) == auto_preset(SpreadsheetEnv, scripted) == "small"
    assert auto_preset(SpreadsheetEnv, other) == "full"
    paper = SpreadsheetConfig()
    assert (paper.mode, paper.max_turns, paper.exec_timeout) == ("multi", 30, 600.0)


def test_single_mode_prompt_and_score(tasks, scripted_client):
    template = TEMPLATES["row-total-a"]
    client = scripted_client(lambda request: fenced(template.solution))
    env = make_env(mode="single")
    rollout = env.rollout(tasks["row-total-a"], "SKILL-TEXT", client, RolloutContext(seed=3))
    assert rollout.score.hard == 1.0 and rollout.score.soft == 1.0
    assert rollout.prediction.strip() == template.solution.strip()
    assert rollout.score.metrics["cases"] == 3
    request = client.backend.requests[0]
    system, user = request.messages[0].content, request.messages[1].content
    assert "SKILL-TEXT" in system
    assert template.instruction in user and "Orders!D2:D11" in user
    assert "Sheet 'Orders': used range A1:D11" in user and "row 1: A1='Order'" in user
    assert "golden" not in user and "case 2" not in user
    assert rollout.turns[-1].kind == "evaluation"


def test_multi_mode_training_feedback_has_no_expected_values(tasks, scripted_client):
    template = TEMPLATES["row-total-a"]
    wrong = template.solution.replace("ws.cell(r, 2).value * ws.cell(r, 3).value", "ws.cell(r, 2).value + 1")
    replies = iter([fenced(wrong), fenced(template.solution)])
    client = scripted_client(lambda request: next(replies))
    env = make_env(mode="multi", max_turns=4)
    rollout = env.rollout(tasks["row-total-a"], "", client, RolloutContext(training=True))
    assert len(client.backend.requests) == 2
    feedback = client.backend.requests[1].messages[-1].content
    assert "'Orders'!D2 WRONG" in feedback and "10 of 10 checked answer cells are wrong" in feedback
    import openpyxl

    golden = openpyxl.load_workbook(tasks["row-total-a"].gold["cases"][0][1], data_only=True)["Orders"]
    for r in range(2, 12):
        assert str(golden.cell(r, 4).value) not in feedback
    assert rollout.score.hard == 1.0 and rollout.score.metrics["turns"] == 2


def test_multi_mode_eval_rollouts_get_no_answer_feedback(tasks, scripted_client):
    template = TEMPLATES["row-total-a"]
    wrong = template.solution.replace("ws.cell(r, 2).value * ws.cell(r, 3).value", "0")
    client = scripted_client(lambda request: fenced(wrong))
    rollout = make_env(mode="multi", max_turns=5).rollout(tasks["row-total-a"], "", client, RolloutContext(training=False))
    assert len(client.backend.requests) == 1  # the run succeeded; without gold feedback there is nothing to say
    assert rollout.score.hard == 0.0


def test_multi_mode_feeds_back_tracebacks(tasks, scripted_client):
    template = TEMPLATES["lookup-a"]
    broken = template.solution.replace('wb["Prices"]', 'wb["Price list"]')
    replies = iter([fenced(broken), "I am thinking.", fenced(template.solution)])
    client = scripted_client(lambda request: next(replies))
    rollout = make_env(mode="multi", max_turns=5).rollout(tasks["lookup-a"], "", client, RolloutContext())
    second, third = client.backend.requests[1].messages[-1].content, client.backend.requests[2].messages[-1].content
    assert "KeyError" in second and "Price list" in second
    assert "no ```python code block" in third
    assert rollout.score.hard == 1.0 and rollout.score.metrics["trial_errors"] == 1


def test_final_code_reruns_on_every_case(tasks, scripted_client):
    """Answers hard-coded from case 1 pass case 1 only: soft 1/3, hard 0."""
    import openpyxl

    task = tasks["count-a"]
    first_golden = openpyxl.load_workbook(task.gold["cases"][0][1], data_only=True)["Orders"]["G1"].value
    code = f"import openpyxl\nwb = openpyxl.load_workbook(INPUT_PATH)\nwb['Orders']['G1'] = {first_golden!r}\nwb.save(OUTPUT_PATH)\n"
    client = scripted_client(lambda request: fenced(code))
    rollout = make_env(mode="multi", max_turns=5).rollout(task, "", client, RolloutContext(training=True))
    assert len(client.backend.requests) == 1  # case 1 passed, so the loop stopped
    assert rollout.score.metrics["cases_passed"] < 3 and rollout.score.hard == 0.0
    assert rollout.score.soft == pytest.approx(rollout.score.metrics["cases_passed"] / 3)
    assert "case 1: PASS" in rollout.score.feedback


HOSTILE = {
    "api-key": """import os, openpyxl
wb = openpyxl.load_workbook(INPUT_PATH)
ws = wb["Orders"]
for r in range(2, 12):
    ws.cell(r, 4).value = os.environ.get("OPENAI_API_KEY", "no key")
print(os.environ.get("OPENAI_API_KEY"))
wb.save(OUTPUT_PATH)
""",
    "escape": """import openpyxl
open({target!r}, "w").write("escaped")
wb = openpyxl.load_workbook(INPUT_PATH)
wb.save(OUTPUT_PATH)
""",
    "forever": "while True:\n    pass\n",
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_code_is_contained_and_scored_as_failure(kind, tasks, scripted_client, monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    target = tmp_path / "outside.txt"
    code = HOSTILE[kind].format(target=str(target)) if kind == "escape" else HOSTILE[kind]
    client = scripted_client(lambda request: fenced(code))
    env = make_env(mode="single", case_cpu_s=1, case_wall_s=10)
    rollout = env.rollout(tasks["row-total-a"], "", client, RolloutContext(workdir=tmp_path / "pred"))
    assert rollout.status == "ok" and rollout.score.hard == 0.0 and rollout.score.soft == 0.0
    dump = json.dumps([attrs.asdict(t) for t in rollout.turns]) + rollout.score.feedback
    assert SECRET not in dump
    assert not target.exists()
    if kind == "forever":
        assert "CPU time limit" in rollout.score.feedback
    if kind == "escape":
        assert "not allowed" in rollout.score.feedback or "Read-only" in rollout.score.feedback


def test_score_is_pure_and_empty_fails(tasks):
    env = make_env()
    task = tasks["row-total-a"]
    assert env.score(task, "") == env.score(task, "")
    assert env.score(task, "").hard == 0.0
    good = env.score(task, fenced(TEMPLATES["row-total-a"].solution))
    assert good.hard == 1.0 and good == env.score(task, TEMPLATES["row-total-a"].solution)


def test_rollout_saves_code_and_case1_output(tasks, scripted_client, tmp_path):
    client = scripted_client(lambda request: fenced(TEMPLATES["row-total-a"].solution))
    make_env(mode="single").rollout(tasks["row-total-a"], "", client, RolloutContext(workdir=tmp_path))
    assert (tmp_path / "solution.py").read_text().startswith("import openpyxl")
    assert (tmp_path / "case1_output.xlsx").is_file() and (tmp_path / "target_user_prompt.txt").is_file()


def test_cli_run_with_scripted_backend(run_cli, tmp_path):
    """The whole `skillopt run` plumbing on this env, with the deterministic scripted backend."""
    out = tmp_path / "run"
    result = run_cli("run", "--env", "spreadsheet", "--backend", "scripted", "--out", str(out), "--preset", "small",
                     "--set", "env.limit=2", "--set", "train.batch_size=2", "--set", "evaluation.sel_env_num=2",
                     "--set", "evaluation.test_env_num=2")
    assert result.exit_code == 0, result.output
    for name in ("best_skill.md", "history.json", "summary.json"):
        assert (out / name).is_file()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["env"] == "spreadsheetbench" and summary["test"]["initial"]["n"] == 2
