"""A night as an env of the engine (issue 24): the documents as one folder skill and
back, mined tasks as splits, a replay as the rollout, the checks as the score, the
no-model reflector as the ``sleep-rules`` edit policy, the reflector's prompt as the
env's override, and a whole night's learning run through ``skillopt.api.train``.

The scripted target stands for the developer's agent: it runs tests with
``uv run pytest`` only when a rule in the documents it is shown says so, and formats
with ``uv run ruff format`` only when told; otherwise it does what an agent with no
conventions does (``python -m pytest``, ``black .``)."""

from __future__ import annotations

import attrs
import pytest

from skillopt.api import AwaitingAnswer, Edit, EvaluationConfig, Ledger, ModelClient, RunConfig, ScriptedBackend, apply_edits
from skillopt_sleep import documents
from skillopt_sleep.documents import Doc, DocTarget
from skillopt_sleep.learn.policy import SleepRules
from skillopt_sleep.mine.tasks import Check, Lesson, SleepTask
from skillopt_sleep.nightenv import MEMORY_FILE, NightEnv, docs_of, folder_of, rules_of
from skillopt_sleep.replay import NoAnswer
from skillopt_sleep.replay.handoff import HandoffPending
from skillopt_sleep.sentinel import SENTINEL

PYTEST = Lesson(text="use uv run pytest", kind="command", prefer=("uv run pytest",), avoid=("python -m pytest",),
                support=2, sessions=("s1", "s2"), scope="test")
#: taught in both train jobs' sessions (so ranked first), but the agent is not linting: the gate must reject it
LINT = Lesson(text="lint with ruff check", kind="command", prefer=("uv run ruff check",), avoid=("flake8",),
              support=2, sessions=("s5", "s6"), scope="lint")
RUFF = Lesson(text="format with ruff", kind="command", prefer=("uv run ruff format",), avoid=("black .",),
              support=2, sessions=("s3", "s4"), scope="format")


def task(tid: str, split: str, job: str) -> SleepTask:
    if job == "test":
        return SleepTask(id=tid, intent="run the tests", split=split, lessons=(PYTEST,), sessions=("s1", "s2"),
                         checks=(Check(op="contains", value="uv run pytest"), Check(op="not_contains", value="python -m pytest")))
    return SleepTask(id=tid, intent="format the code", split=split, lessons=(RUFF,), sessions=("s3", "s4"),
                     checks=(Check(op="contains", value="uv run ruff format"), Check(op="not_contains", value="black .")))


TASKS = [attrs.evolve(task("t-train-1", "train", "test"), lessons=(PYTEST, LINT)),
         attrs.evolve(task("t-train-2", "train", "format"), lessons=(RUFF, LINT)),
         *(task(f"t-val-{i}", "val", "test" if i % 2 else "format") for i in range(6)),
         task("t-test-1", "test", "test")]


def agent(request):
    system = request.messages[0].content
    tests = "uv run pytest" if "`uv run pytest`" in system else "python -m pytest"
    fmt = "uv run ruff format" if "`uv run ruff format`" in system else "black ."
    user = request.messages[-1].content
    return f"```bash\n{tests if 'tests' in user else fmt}\n```\nDone."


def load_docs(project) -> list[Doc]:
    skill = project / ".agents" / "skills" / documents.SKILL_NAME / "SKILL.md"
    return [documents.load(DocTarget(role="skill", path=skill)), documents.load(DocTarget(role="memory", path=project / "AGENTS.md"))]


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "shop"
    root.mkdir()
    (root / "AGENTS.md").write_text("# Shop\nThe developer's own notes: never touched.\n")
    return root


def test_the_documents_round_trip_through_one_folder_skill_and_edits_reach_only_the_learned_blocks(project):
    docs = load_docs(project)
    folder = folder_of(docs)
    assert [d.text for d in docs_of(docs, folder)] == [d.text for d in docs]  # nothing learned: nothing changes
    edited, results = apply_edits(folder, [Edit(op="append", content="- Run tests with `uv run pytest`."),
                                           Edit(op="append", content="- Keep PRs small.", target_file=MEMORY_FILE)])
    assert [r.status for r in results] == ["applied", "applied"]
    assert rules_of(edited) == {"skill": "- Run tests with `uv run pytest`.", "memory": "- Keep PRs small."}
    skill, memory = docs_of(docs, edited)
    assert skill.original is None and skill.text.startswith(documents.SKILL_SCAFFOLD)
    assert "- Run tests with `uv run pytest`." in skill.rules()
    assert memory.text.startswith("# Shop\nThe developer's own notes: never touched.\n") and memory.rules() == "- Keep PRs small."
    assert folder_of(docs_of(docs, edited)) == edited  # and back again


def test_mined_tasks_are_the_splits_and_a_replay_scored_by_its_checks_is_the_rollout(project):
    from skillopt.api import RolloutContext

    env = NightEnv(TASKS, load_docs(project), project_name="shop")
    assert [t.id for t in env.tasks("train")] == ["t-train-1", "t-train-2"]
    assert len(env.tasks("val")) == 6 and [t.id for t in env.tasks("test")] == ["t-test-1"]
    target = ScriptedBackend(script=agent)
    rolled = env.rollout(env.tasks("train")[0], env.initial_skill(), target, RolloutContext(seed=7))
    assert rolled.score.hard == 0.0 and "python -m pytest" in rolled.prediction
    taught, _ = apply_edits(env.initial_skill(), [Edit(op="append", content="- Run tests with `uv run pytest`.")])
    rolled = env.rollout(env.tasks("train")[0], taught, target, RolloutContext(seed=7))
    assert rolled.score.hard == 1.0 and SENTINEL in rolled.turns[0].content
    assert target.requests[-1].seed == 7  # the engine's per-item seed reaches the request


def test_an_empty_reply_is_an_error_not_a_score(project):
    from skillopt.api import RolloutContext

    env = NightEnv(TASKS, load_docs(project))
    with pytest.raises(NoAnswer, match="empty reply"):
        env.rollout(env.tasks("val")[0], env.initial_skill(), ScriptedBackend(script=lambda r: "  "), RolloutContext())


def test_the_reflector_prompt_is_the_envs_override_with_the_sentinel(project, tmp_path, monkeypatch):
    env = NightEnv(TASKS, load_docs(project))
    text = env.prompt("analyst_failure")
    assert text.startswith(SENTINEL) and "learned rules a coding agent follows" in text
    assert env.prompt("merge_failure") is None  # the engine's own
    prompts = tmp_path / "prompts.toml"
    prompts.write_text("reflect_system = '''Only propose rules about tests.'''\n")
    monkeypatch.setenv("SKILLOPT_SLEEP_PROMPTS", str(prompts))
    assert env.prompt("analyst_failure") == f"{SENTINEL}\nOnly propose rules about tests."


def test_a_handoff_prompt_pauses_the_engine():
    assert issubclass(HandoffPending, AwaitingAnswer)


def night_config(tmp_path) -> RunConfig:
    cfg = RunConfig()
    return attrs.evolve(
        cfg,
        train=attrs.evolve(cfg.train, num_epochs=3, batch_size=64, seed=42),
        gradient=attrs.evolve(cfg.gradient, minibatch_size=64),
        optimizer=attrs.evolve(cfg.optimizer, skill_update_mode="sleep-rules", use_slow_update=False, use_meta_skill=False,
                               rejected_ledger=False),
        search=attrs.evolve(cfg.search, strategy="one-edit"),  # one gated edit a step, whatever the schedule
        evaluation=EvaluationConfig(gate="strict", gate_min_items=2, eval_test=True, final_recheck=True),
        env=attrs.evolve(cfg.env, workers=2),
    )


def test_a_night_learns_through_the_engine_one_gated_rule_per_step_and_never_retries_a_rejected_one(project, tmp_path):
    from skillopt.api import train

    docs = load_docs(project)
    env = NightEnv(TASKS, docs, project_name="shop")
    ledger = Ledger()
    target = ModelClient(ScriptedBackend(script=agent), role="target", ledger=ledger, cache=None, cache_mode="off")
    optimizer = ModelClient(ScriptedBackend(script=lambda r: pytest.fail("the no-model reflector asked a model")),
                            role="optimizer", ledger=ledger, cache=None, cache_mode="off")
    summary = train(night_config(tmp_path), env, target=target, optimizer=optimizer, out_dir=tmp_path / "night",
                    ledger=ledger, policy=SleepRules(tasks=TASKS))
    assert summary.status == "finished" and (summary.total_rejects, summary.total_accepts) == (1, 2)
    assert summary.val.baseline_gate_score == 0.0 and summary.val.final_gate_score == 1.0
    assert summary.recheck is not None and summary.recheck.accepted
    assert summary.test["initial"].hard == 0.0 and summary.test["best"].hard == 1.0
    best = (tmp_path / "night" / "best_skill.md").read_text()
    skill, memory = docs_of(docs, best)
    assert sorted(skill.rules().splitlines()) == ["- Format code with `uv run ruff format`, not `black .`.",
                                                  "- Run tests with `uv run pytest`, not `python -m pytest`."]
    assert memory.text == docs[1].text  # no rule aimed at the memory document
    import json

    steps = [h for h in json.loads((tmp_path / "night" / "history.json").read_text()) if h.get("step")]
    assert [h["action"] for h in steps] == ["reject", "accept_new_best", "accept_new_best"]
    assert [h["n_edits_applied"] for h in steps] == [1, 1, 1]  # one edit at a time, the rejected one not again
    assert "ruff check" not in best
