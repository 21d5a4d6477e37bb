"""What a night's own loop did, done through the training engine (issue 24, the switch).

A night's learning is one engine run in the project's sleep state (``runs/night-NNNN``);
these tests read that run directory. The scripted models stand in for a coding agent
and an optimizer: ``pair_agent`` answers the project's way only when *both* rules are
in its documents (two conventions that only help together), ``two_rules`` is an
optimizer reflector proposing exactly those two rules.
"""

from __future__ import annotations

import json

import attrs

from skillopt.api import Message, ScriptedBackend
from skillopt_sleep.clients import from_backends
from skillopt_sleep.cycle import run_night
from skillopt_sleep.mine.tasks import Check, SleepTask
from skillopt_sleep.options import SleepOptions
from skillopt_sleep.state import project_state_dir

RULE_A = "- Run Python tools through `uv run`."
RULE_B = "- Run the test suite with `pytest -q`."
CHECK = (Check(op="contains", value="uv run pytest -q"),)
TASKS = [SleepTask(id=f"t-{split}-{n}", intent=f"run the tests ({split} {n})", checks=CHECK, split=split, origin="file")
         for split, count in (("train", 2), ("val", 3)) for n in range(count)]


def pair_agent(request) -> str:
    system = request.messages[0].content
    both = "Run Python tools through `uv run`" in system and "`pytest -q`" in system
    return "```bash\nuv run pytest -q\n```" if both else "```bash\npython -m pytest\n```"


def two_rules(request):
    if request.stage == "sleep-reflect":
        return {"edits": [{"doc": "skill", "op": "append", "content": RULE_A, "why": "a"},
                          {"doc": "skill", "op": "append", "content": RULE_B, "why": "b"}]}
    return {"edits": []}


def lucky_agent(request) -> str:
    """A sampling agent: on odd seeds it happens to follow the project's convention (uv)."""
    from skillopt_sleep.experiments.agents import convention_agent

    if request.seed is not None and request.seed % 2 == 1:
        system = request.messages[0].content.replace("## Skill", "## Skill\nThis project uses uv run.", 1)
        request = attrs.evolve(request, messages=(Message(role="system", content=system), *request.messages[1:]))
    return convention_agent(request)


def contrast_optimizer(request):
    """Shown GOOD vs BAD attempts, it proposes the rule that explains them."""
    from skillopt_sleep.learn.contrast import STAGE

    if request.stage == STAGE:
        return {"edits": [{"doc": "skill", "op": "append", "content": "- Run Python tools through `uv run`.", "why": "GOOD"}]}
    return {"edits": []}


def _opts(project, **kw):
    return SleepOptions(**{"project": project, "lookback_hours": 0, "min_val_items": 2, "edit_budget": 4,
                           "reflector": "llm", "miner": "heuristic", **kw})


def _history(run_dir):
    return [h for h in json.loads((run_dir / "history.json").read_text()) if h.get("step")]


def test_when_no_edit_passes_alone_all_usable_edits_are_tried_together_once(tmp_path, skillopt_home):
    project = tmp_path / "shop"
    project.mkdir()
    opts = _opts(project)
    clients = from_backends(ScriptedBackend(script=pair_agent), ScriptedBackend(script=two_rules), opts=opts)
    result = run_night(opts, clients=clients, dry_run=True, tasks=TASKS)
    report = result.report
    assert result.status == "accepted", result.reason
    assert [t.label for t in report.trials][-2:] == ["all usable edits together", "final fresh check"]
    assert sorted(e.edit.content for e in report.accepted_edits) == sorted([RULE_A, RULE_B])
    assert not {e.edit.content for e in report.rejected_edits} & {RULE_A, RULE_B}, "the bundle's edits are not rejected"
    run_dir = project_state_dir(project) / "runs" / "dryrun-0001"
    actions = [h["action"] for h in _history(run_dir)]
    assert actions[:3] == ["reject", "reject", "accept_new_best"] and actions.count("accept_new_best") == 1
    selected = [json.loads((run_dir / "steps" / f"step_{n:04d}" / "select" / "result.json").read_text())["result"]["selected"]
                for n in (1, 2, 3)]
    assert [len(s["edits"]) for s in selected] == [1, 1, 2], "one edit a step, then both together"


def test_a_resumed_night_does_not_put_an_edit_to_the_gate_twice(tmp_path, skillopt_home):
    """The tried-edit memory is the run directory's select records: a new process (a
    fresh policy) resuming the run goes on with the next edit."""
    from skillopt_sleep.learn.engine import learn
    from skillopt_sleep.learn.record import selected_by_step

    opts = _opts(tmp_path)
    out = tmp_path / "run"
    stopped = learn(_opts(tmp_path, max_calls=10), TASKS, [], from_backends(
        ScriptedBackend(script=pair_agent), ScriptedBackend(script=two_rules), opts=_opts(tmp_path, max_calls=10)),
        out, reflectors=("llm",), once=True)
    assert stopped.status == "budget_exhausted" and stopped.steps_completed >= 1
    done = learn(opts, TASKS, [], from_backends(ScriptedBackend(script=pair_agent), ScriptedBackend(script=two_rules),
                                                 opts=opts), out, reflectors=("llm",), once=True)
    assert done.status == "finished"
    singles = [e.content for edits in selected_by_step(out).values() if len(edits) == 1 for e in edits]
    assert sorted(singles) == sorted([RULE_A, RULE_B]), singles


def test_contrastive_rollouts_are_train_items_of_the_engine_run(fixture_home):
    """--dream-rollouts K: each train task is K items of the run (``ID~rK``), the
    contrast the reflection drew is kept beside the run's records."""
    _home, project = fixture_home
    opts = SleepOptions(project=project, lookback_hours=0, min_val_items=1, edit_budget=5, dream_rollouts=3, reflector="llm")
    clients = from_backends(ScriptedBackend(script=lucky_agent), ScriptedBackend(script=contrast_optimizer), opts=opts)
    result = run_night(opts, clients=clients, dry_run=True)
    run_dir = project_state_dir(project) / "runs" / "dryrun-0001"
    items = [json.loads(line)["rollout"]["task_id"] for line in (run_dir / "steps" / "step_0001" / "rollout" / "results.jsonl")
             .read_text().splitlines()]
    train = [t.id for t in result.report.tasks if t.split == "train"]
    assert sorted(items) == sorted(f"{t}~r{k}" for t in train for k in range(3))
    kept = json.loads((run_dir / "sleep" / "proposals.json").read_text())["contrast"]
    assert kept["rollouts"] == 3 and [row["id"] for row in kept["tasks"]] == [r.id for r in result.report.contrast.tasks]


def test_a_night_is_a_run_directory_with_its_gate_decisions(fixture_home, run_cli):
    """The night's trials are its run's step verdicts (and the re-check's); ``skillopt report`` reads it."""
    from skillopt_sleep.experiments.agents import convention_agent, optimizer

    _home, project = fixture_home
    opts = SleepOptions(project=project, lookback_hours=0, min_val_items=1, edit_budget=5)
    result = run_night(opts, clients=from_backends(ScriptedBackend(script=convention_agent), ScriptedBackend(script=optimizer()),
                                                   opts=opts))
    run_dir = project_state_dir(project) / "runs" / "night-0001"
    gated = [h for h in _history(run_dir) if h.get("verdict")]
    assert [t.verdict.action for t in result.report.trials[:-1]] == [h["verdict"]["action"] for h in gated]
    assert result.report.trials[-1].label == "final fresh check"
    assert run_cli("report", str(run_dir), "-o", str(project.parent / "night.html")).exit_code == 0


def test_a_handoff_night_resumes_one_engine_run_round_after_round(fixture_home):
    """Each round stops with its prompts written (the engine's pause); the next round
    resumes the same run directory on the same tasks, never a second run."""
    from skillopt_sleep.cycle import HandoffWaiting

    _home, project = fixture_home
    opts = SleepOptions(project=project, lookback_hours=0, min_val_items=1, backend="handoff", miner="heuristic",
                        reflector="heuristic")
    rounds = 0
    while True:
        try:
            result = run_night(opts)
            break
        except HandoffWaiting as waiting:
            rounds += 1
            assert rounds < 12
            handoff = waiting.index.parent
            for entry in json.loads((handoff / "pending.json").read_text()).values():
                prompt = (handoff / entry["prompt"]).read_text()
                answer = "```bash\nuv run pytest -q\n```" if "uv run" in prompt.split("## Request", 1)[0] else "```bash\npytest\n```"
                (handoff / entry["answer"]).write_text(answer)
    runs = sorted(p.name for p in (project_state_dir(project) / "runs").iterdir())
    assert rounds >= 2 and runs == ["night-0001"], (rounds, runs)
    summary = json.loads((project_state_dir(project) / "runs" / "night-0001" / "summary.json").read_text())
    assert summary["status"] == "finished" and len(result.report.trials) >= 1
