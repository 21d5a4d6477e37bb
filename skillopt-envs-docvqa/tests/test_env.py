"""The env: requests per input mode, rollouts with a scripted target, contract, presets, registration."""

from __future__ import annotations

import base64
import json
import re

import pytest

from skillopt.api import RolloutContext
from skillopt.config.loading import ConfigSources, resolve_config
from skillopt.testing import check_env_contract
from skillopt_envs_docvqa.env import DocVQAConfig, DocVQAEnv


def val_task(env: DocVQAEnv, task_id: str):
    return next(t for t in env.tasks("val") if t.id == task_id)


def ocr_reader(mangle=lambda s: s, wrap="<answer>{}</answer>"):
    """A scripted target standing in for a text-only model that reads the OCR lines: it finds
    the field the question names in the page text of the user message (it never sees the gold)."""
    fields = {"invoice number": r"Invoice No: (\S+)", "due date": r"Due Date: (\S+)", "total amount due": r"Total Due \| (\S+)"}

    def script(request):
        user = request.messages[-1].content
        assert not request.messages[-1].images
        question = re.search(r"Question: (.*)", user).group(1)
        pattern = next(p for key, p in fields.items() if key in question)
        return "Reading the page.\n" + wrap.format(mangle(re.search(pattern, user).group(1)))

    return script


def test_contract_in_every_input_mode():
    for mode in ("image", "ocr", "both"):
        env = check_env_contract(DocVQAEnv, config=DocVQAConfig(input=mode))
        assert env.name == "docvqa" and len(env.tasks("train")) >= 60


def test_image_mode_sends_the_page_as_a_data_url(scripted_client):
    env = DocVQAEnv(DocVQAConfig(input="image"))
    task = val_task(env, "invoice-03-q1")
    seen = []
    model = scripted_client(lambda request: seen.append(request) or "<answer>INV-58804</answer>")
    rollout = env.rollout(task, "SKILL TEXT", model, RolloutContext(seed=1))
    system, user = seen[0].messages
    assert system.role == "system" and "SKILL TEXT" in system.content and not system.images
    assert user.role == "user" and len(user.images) == 1
    header, payload = user.images[0].split(",", 1)
    assert header == "data:image/png;base64"
    with open(task.inputs["image"], "rb") as handle:
        assert base64.b64decode(payload) == handle.read()
    assert "Question: What is the invoice number?" in user.content and "<answer></answer>" in user.content
    assert "INV-58804" not in user.content  # the value is only in the image
    assert rollout.score.hard == 1.0 and "[page image attached: invoice-03" in rollout.turns[1].content


def test_ocr_mode_sends_the_text_and_no_image(scripted_client):
    env = DocVQAEnv(DocVQAConfig(input="ocr"))
    task = val_task(env, "invoice-03-q1")
    seen = []
    env.rollout(task, "", scripted_client(lambda r: seen.append(r) or "x"), RolloutContext())
    user = seen[0].messages[-1]
    assert not user.images and "image" not in task.inputs
    assert "410 Cedar Drive | Invoice No: INV-58804" in user.content and task.inputs["ocr"] in user.content
    both = DocVQAEnv(DocVQAConfig(input="both"))
    seen.clear()
    both.rollout(val_task(both, "invoice-03-q1"), "", scripted_client(lambda r: seen.append(r) or "x"), RolloutContext())
    assert len(seen[0].messages[-1].images) == 1 and "Invoice No: INV-58804" in seen[0].messages[-1].content


def test_scores_of_an_ocr_reading_target_match_hand_computation(scripted_client):
    env = DocVQAEnv(DocVQAConfig(input="ocr"))
    ids = ("invoice-03-q1", "invoice-03-q2")  # invoice number INV-58804, due date 06/28/2023
    exact = [env.rollout(val_task(env, i), "", scripted_client(ocr_reader()), RolloutContext()) for i in ids]
    assert [(r.prediction, r.score.hard, r.score.soft) for r in exact] == [("INV-58804", 1.0, 1.0), ("06/28/2023", 1.0, 1.0)]
    # one character dropped: Levenshtein 1 over 9 and 10 characters
    clipped = [env.rollout(val_task(env, i), "", scripted_client(ocr_reader(lambda s: s[:-1])), RolloutContext()) for i in ids]
    assert [r.score.hard for r in clipped] == [0.0, 0.0]
    assert clipped[0].score.soft == pytest.approx(1 - 1 / 9) and clipped[1].score.soft == pytest.approx(1 - 1 / 10)
    assert "Predicted 'INV-5880'; expected 'INV-58804'" in clipped[0].score.feedback
    # the label copied along with the value: "Invoice No: INV-58804" is 13 edits from 9 characters
    wordy = env.rollout(val_task(env, ids[0]), "", scripted_client(ocr_reader(lambda s: "Invoice No: " + s)), RolloutContext())
    assert wordy.score.hard == 0.0 and wordy.score.soft == 0.0
    assert "adds other text" in wordy.score.feedback
    assert all(env.score(val_task(env, r.task_id), r.prediction) == r.score for r in exact + clipped + [wordy])


def test_fallback_extraction_is_said_in_the_trajectory(scripted_client):
    env = DocVQAEnv(DocVQAConfig(input="ocr"))
    task = val_task(env, "invoice-03-q1")
    rollout = env.rollout(task, "", scripted_client(ocr_reader(wrap="The invoice number is {}.")), RolloutContext())
    assert rollout.prediction == "INV-58804." and rollout.score.hard == 1.0
    evaluation = rollout.turns[-1]
    assert evaluation.kind == "evaluation" and "extracted answer (statement)" in evaluation.content
    assert "no <answer> tag" in rollout.score.feedback


def test_refinement_only_while_the_tag_is_missing(scripted_client):
    env = DocVQAEnv(DocVQAConfig(input="ocr", max_turns=3))
    task = val_task(env, "invoice-03-q1")
    replies = iter(["I think it is on the top right.", "<answer>INV-58804</answer>", "never asked"])
    calls = []
    model = scripted_client(lambda r: calls.append(r) or next(replies))
    rollout = env.rollout(task, "", model, RolloutContext())
    assert len(calls) == 2 and rollout.score.hard == 1.0
    second = calls[1].messages
    assert [m.role for m in second] == ["system", "user", "assistant", "user"] and "<answer>" in second[-1].content
    assert [t.role for t in rollout.turns] == ["system", "user", "assistant", "user", "assistant", "system"]
    once = DocVQAEnv(DocVQAConfig(input="ocr"))
    calls.clear()
    once.rollout(task, "", scripted_client(lambda r: calls.append(r) or "no tag"), RolloutContext())
    assert len(calls) == 1


def test_image_detail_travels_with_the_image():
    env = DocVQAEnv(DocVQAConfig(image_detail="high"))
    task = env.tasks("val")[0]
    _system, user = env.request_messages(task, "skill")
    assert user.images and user.image_detail == "high"
    _system, user = DocVQAEnv(DocVQAConfig()).request_messages(task, "skill")
    assert user.image_detail == ""  # "auto": left to the provider


def test_presets_resolve_and_pick_the_input_mode():
    small = resolve_config(ConfigSources(preset=DocVQAEnv.presets["small"]), DocVQAConfig)
    paper = resolve_config(ConfigSources(preset=DocVQAEnv.presets["full"]), DocVQAConfig)
    assert small.env.input == "ocr" and paper.env.input == "image"
    assert small.train.max_steps and small.gradient.failure_only and small.env.workers == 1
    from skillopt.registry import get
    from skillopt.testing import register_backend

    # stand-ins for skillopt-backends' local (a small CPU model) and a provider's backend
    register_backend("cpu-model", small_model=True)
    register_backend("provider")
    local, scripted, provider = (get("backends", name).obj for name in ("cpu-model", "scripted", "provider"))
    assert DocVQAEnv.auto_preset(local) == "small" and DocVQAEnv.auto_preset(provider) == "full"
    assert DocVQAEnv.auto_preset(scripted) == "small"
    assert DocVQAConfig().input == "image"


def test_initial_skill_and_prompts_ship_with_the_package():
    env = DocVQAEnv()
    assert "<answer>" in env.initial_skill()
    assert "ANLS" in env.prompt("analyst_failure") and "success_patterns" in env.prompt("analyst_success")


def test_registered_as_docvqa(run_cli):
    from skillopt.registry import get

    assert get("envs", "docvqa").obj is DocVQAEnv
    result = run_cli("envs")
    assert result.exit_code == 0 and "docvqa" in result.output


def test_a_scripted_run_through_the_cli(run_cli, tmp_path):
    out = tmp_path / "run"
    result = run_cli(
        "run", "--env", "docvqa", "--backend", "scripted", "--set", "env.limit=4", "--set", "train.batch_size=4",
        "--set", "train.num_epochs=1", "--set", "train.max_steps=1", "--set", "evaluation.sel_env_num=2",
        "--set", "evaluation.test_env_num=4", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["preset"] == "small" and summary["config"]["env"]["input"] == "ocr"
    assert summary["test"]["initial"]["n"] == 4 and summary["test"]["initial"]["hard"] == 0.0  # "scripted reply" is no value
    assert (out / "best_skill.md").is_file()
