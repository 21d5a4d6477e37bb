"""The env contract, the rollout protocol, presets and the CLI wiring, with scripted models."""

from __future__ import annotations

import json

import pytest

from skillopt.api import RolloutContext, Task
from skillopt.testing import check_env_contract
from skillopt_envs_searchqa import prompting
from skillopt_envs_searchqa.env import SearchQAConfig, SearchQAEnv
from skillopt_envs_searchqa.presets import PRESETS


def test_env_contract():
    env = check_env_contract(SearchQAEnv)
    assert env.name == "searchqa"


def test_contract_on_an_items_file(tmp_path):
    rows = [{"id": f"q{i}", "question": "This town", "context": "[DOC] [TLE] t [PAR] Velby", "answers": ["Velby"], "split": s}
            for i, s in enumerate(["train", "val", "val", "test"])]
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    check_env_contract(SearchQAEnv, config=SearchQAConfig(data_path=str(path)))


TASK = Task(
    id="t1",
    inputs={
        "question": "In 1821 this engineer completed the lighthouse at Kessford",
        "context": "[DOC] [TLE] Kessford lighthouse [PAR] Built in 1821 by Dr. Ada Quill.\n[DOC] [TLE] Velby bridge [PAR] Tomas Brandt, 1830.",
    },
    gold=["Ada Quill", "Quill"],
    task_type="noncanonical",
    reference="Supporting snippet: #1",
)


def answering(reply: str):
    """A scripted target that always gives ``reply`` (stands in for the model)."""
    return lambda request: reply


def test_rollout_scores_the_tagged_answer_and_keeps_the_conversation(scripted_client):
    env = SearchQAEnv()
    ro = env.rollout(TASK, "Give the name only.", scripted_client(answering("It is snippet 1.\nAnswer: Ada Quill")), RolloutContext(seed=3))
    assert (ro.prediction, ro.score.hard, ro.score.soft) == ("Ada Quill", 1.0, 1.0)
    assert [t.role for t in ro.turns] == ["system", "user", "assistant", "system"] and ro.turns[-1].kind == "evaluation"
    assert "## Skill\nGive the name only." in ro.turns[0].content
    user = ro.turns[1].content
    assert "1. Kessford lighthouse: Built in 1821 by Dr. Ada Quill." in user and "2. Velby bridge: Tomas Brandt, 1830." in user
    assert "Who or what is this engineer?" in user and "Answer: <answer>" in user
    assert "Supporting snippet" not in user and "Ada Quill" not in user.replace("Dr. Ada Quill", "")


def test_rollout_feedback_explains_a_near_miss_and_a_missing_answer_line(scripted_client):
    env = SearchQAEnv()
    near = env.rollout(TASK, "", scripted_client(answering("<answer>Dr. Ada Quill</answer>")), RolloutContext())
    assert near.score.hard == 0.0 and near.score.soft == pytest.approx(0.8)
    assert "extra words: dr" in near.score.feedback
    chatty = env.rollout(TASK, "", scripted_client(answering("The lighthouse was built by Ada Quill in 1821.")), RolloutContext())
    assert chatty.score.hard == 0.0 and "no `Answer:` line" in chatty.score.feedback


def test_no_skill_means_no_skill_section(scripted_client):
    seen = []

    def target(request):
        seen.append(request)
        return "Answer: x"

    SearchQAEnv().rollout(TASK, "  \n", scripted_client(target), RolloutContext(seed=5))
    system = seen[0].messages[0].content
    assert "## Skill" not in system and system.strip() == prompting.system_prompt("")
    assert seen[0].max_tokens == 16384 and seen[0].seed == 5 and seen[0].role == "target"
    SearchQAEnv(SearchQAConfig(max_completion_tokens=64)).rollout(TASK, "", scripted_client(target), RolloutContext())
    assert seen[1].max_tokens == 64


def test_worked_example_precedes_the_item_unless_disabled(scripted_client):
    seen = []

    def target(request):
        seen.append(request)
        return "Answer: Ada Quill"

    ro = SearchQAEnv().rollout(TASK, "skill text", scripted_client(target), RolloutContext())
    roles = [m.role for m in seen[0].messages]
    assert roles == ["system", "user", "assistant", "user"]
    assert "Velby" in seen[0].messages[1].content and seen[0].messages[2].content == "Answer: Tomas Brandt"
    assert "lighthouse at Kessford" in seen[0].messages[3].content and "stone bridge at Velby" not in seen[0].messages[3].content
    # the recorded task is the item; the example is noted with the system turn
    assert ro.turns[1].content == seen[0].messages[3].content and "worked example" in ro.turns[0].content
    SearchQAEnv(SearchQAConfig(demo=False)).rollout(TASK, "", scripted_client(target), RolloutContext())
    assert [m.role for m in seen[1].messages] == ["system", "user"]


def test_score_is_pure_and_reports_metrics():
    env = SearchQAEnv()
    a, b = env.score(TASK, "quill"), env.score(TASK, "quill")
    assert a == b and a.hard == 1.0 and a.metrics == {"em": 1.0, "f1": 1.0, "sub_em": 1.0}
    assert env.score(TASK, "").hard == 0.0 and env.score(TASK, "").metrics["sub_em"] == 0.0


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("In 1821 this engineer completed the lighthouse", "engineer"),
        ("This Dutch painter's works hang in Delft", "Dutch painter's"),
        ("These islands were named for a king", "islands"),
        ("The Salt Fair is the pride of this town in the High Moors", "town"),
        ("Capital of France", ""),
    ],
)
def test_clue_subject(question, subject):
    assert prompting.clue_subject(question) == subject


def test_context_is_cut_at_snippet_boundaries_keeping_the_first_number():
    context = "[DOC] [TLE] A [PAR] " + "x" * 50 + " [DOC] [TLE] B [PAR] " + "y" * 50
    assert prompting.render_snippets(context, 70).splitlines() == ["1. A: " + "x" * 50]
    assert prompting.render_snippets(context, 500).count("\n") == 1
    assert prompting.render_snippets("[DOC] [TLE] A [PAR] " + "z" * 300, 40).startswith("1. A: zzz")
    assert len(prompting.render_snippets("[DOC] [TLE] A [PAR] " + "z" * 300, 40)) == 40
    assert prompting.render_snippets("plain text, no markers", 100) == "1. plain text, no markers"
    assert prompting.render_snippets("", 100) == "(no snippets)"


# --------------------------------------------------------------------------- presets and CLI


def resolve(*assignments: str, **flags):
    from skillopt.engine.session import resolve_run_config

    cfg, env_cls = resolve_run_config(config_file=None, assignments=list(assignments), flags={"env.name": "searchqa", **flags})
    return cfg


def backend(name: str) -> type:
    from skillopt.registry import get

    return get("backends", name).obj


def test_presets_small_on_local_and_full_size_elsewhere():
    assert SearchQAEnv.auto_preset(backend("local")) == "small"
    assert SearchQAEnv.auto_preset(backend("scripted")) == "small"
    assert SearchQAEnv.auto_preset(backend("openai")) == "full"
    small = resolve(**{"model.backend": "local"})
    assert small.preset == "small" and small.env.data == "sample" and small.train.max_steps == 3
    assert small.model.optimizer.max_tokens == PRESETS["small"]["model"]["optimizer"]["max_tokens"]
    paper = resolve(**{"model.backend": "openai-compatible"})
    assert paper.preset == "full" and paper.env.data == "real" and paper.train.batch_size == 40 and paper.env.workers == 24
    assert paper.evaluation.gate == "paired"  # the automatic choice never brings back the paper's gate
    assert small.env.demo and not paper.env.demo
    forced = resolve(**{"model.backend": "local", "preset": "paper"})
    assert forced.preset == "paper" and forced.train.num_epochs == 4 and forced.evaluation.gate == "strict"
    overridden = resolve("env.data_path=/x.jsonl", "train.max_steps=1", **{"model.backend": "local"})
    assert overridden.env.data_path == "/x.jsonl" and overridden.train.max_steps == 1


def test_small_preset_keeps_the_analyst_prompt_inside_the_local_context(scripted_client):
    """Worst case of the small preset, rendered by the engine's own analyst prompt builder:
    a full minibatch of the longest sample items with replies at the token limit, and a
    skill at the preset's length cap."""
    from skillopt.policies import OptimizerContext
    from skillopt.policies.patch import analyst_system, analyst_user_message

    cfg = resolve(**{"model.backend": "local"})
    env = SearchQAEnv(cfg.env)
    tasks = sorted(env.tasks("train"), key=lambda t: -len(t.inputs["context"]))[: cfg.gradient.minibatch_size]
    long_reply = "The answer is a long sentence about the snippets. " * 8  # ~64 tokens, the small preset's cap
    skill = ("- A rule of the skill that keeps growing with every accepted edit.\n" * 200)[: cfg.optimizer.max_skill_chars]
    rollouts = [env.rollout(t, skill, scripted_client(answering(long_reply)), RolloutContext()) for t in tasks]
    ctx = OptimizerContext(client=None, skill=skill, budget=cfg.optimizer.learning_rate, config=cfg, prompt_override=env.prompt,
                           step_history="step 1: reject (val 0.1 vs 0.1)\n" * 3)
    prompt = analyst_system(ctx, "analyst_failure") + analyst_user_message(ctx, rollouts, {t.id: t for t in tasks}, "failure", "edits")
    assert "for SearchQA" in prompt  # the env's analyst prompt, not the generic one
    tokens = len(prompt) / 3.0  # SmolLM2's tokenizer averages ~3.5-4 characters per token on this text
    print(f"worst-case analyst prompt: {len(prompt)} characters")
    assert tokens + cfg.model.optimizer.max_tokens < 8192, f"{len(prompt)} characters"


def test_envs_listing_and_unknown_preset(run_cli):
    listing = run_cli("envs")
    assert listing.exit_code == 0 and "searchqa" in listing.output
    bad = run_cli("run", "--env", "searchqa", "--backend", "scripted", "--preset", "huge")
    assert bad.exit_code != 0 and "unknown preset 'huge'" in bad.output


def test_paper_preset_without_real_data_says_how_to_get_it(run_cli, tmp_path):
    result = run_cli("run", "--env", "searchqa", "--backend", "scripted", "--preset", "paper", "--out", str(tmp_path / "run"))
    assert result.exit_code == 2
    assert "skillopt searchqa materialize" in result.output and "--preset small" in result.output


def test_a_scripted_training_run_writes_the_run_directory(run_cli, tmp_path):
    """The default job's wiring on the scripted backend: a target that always answers the
    same town, and an analyst that proposes one rule only when it is given the SearchQA
    analyst prompt (so the env's prompt override must reach the optimizer)."""
    rules = [
        {"stage": "analyst", "match": "failure analyst of SkillOpt for SearchQA",
         "reply": {"reasoning": "answers are sentences", "failure_summary": [{"failure_type": "format", "description": "sentences"}],
                   "edits": [{"op": "append", "content": "- Give only the name on the Answer line."}]}},
        {"stage": "rollout", "match": ".", "reply": "Answer: Velby"},
    ]
    (tmp_path / "rules.json").write_text(json.dumps(rules), encoding="utf-8")
    out = tmp_path / "run"
    result = run_cli("run", "--env", "searchqa", "--backend", "scripted", "--out", str(out),
                     "--set", f"model.options.rules={tmp_path / 'rules.json'}", "--set", "train.max_steps=2",
                     "--set", "evaluation.sel_env_num=4", "--set", "evaluation.test_env_num=4")
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert (out / "best_skill.md").is_file() and summary["status"] == "finished"
    assert summary["config"]["preset"] == "small" and summary["config"]["env"]["data"] == "sample"
    assert summary["val"]["n"] == 4 and summary["test"]["initial"]["n"] == 4
    assert summary["test"]["initial"]["hard"] == 0.0
    history = json.loads((out / "history.json").read_text())
    assert [h["action"] for h in history] == ["reject", "reject"]  # the rule changes nothing for this target
    assert "Give only the name" in (out / "steps" / "step_0001" / "apply" / "candidate_skill.md").read_text()
    assert "best_skill.md" in " ".join(result.output.split())


def test_eval_takes_the_preset_its_missing_data_hint_names(run_cli, tmp_path):
    """`skillopt eval` without the real data tells the user to pass ``--preset small``;
    `eval` accepts it (as `run` and `check` do) and evaluates on the bundled sample."""
    skill = tmp_path / "skill.md"
    skill.write_text("Give only the name on the Answer line.\n", encoding="utf-8")
    base = ("eval", "--env", "searchqa", "--backend", "scripted", "--skill", str(skill), "--limit", "4")
    paper = run_cli(*base, "--preset", "paper", "--out", str(tmp_path / "paper"))
    assert paper.exit_code == 2 and "--preset small" in paper.output
    small = run_cli(*base, "--preset", "small", "--out", str(tmp_path / "small"), "--json")
    assert small.exit_code == 0, small.output
    summary = json.loads(small.stdout)
    assert summary["n"] == 4 and summary["split"] == "test"
    assert "searchqa data: bundled synthetic sample" in " ".join(small.stderr.split())
