"""Replay and gating: errors are not scores (bug §6.11), fresh final samples, paired gate.

The first tests drive :func:`skillopt_sleep.replay.replay` (the A/B command's and the
experiments' replays). The gate tests drive a night's own path: ``run_night`` on a
reviewed task list, learning through the training engine (``NightEnv`` and the
engine's gate) in the run directory ``runs/dryrun-0001``. ``agent`` stands in for a
model that follows the skill (it uses uv only when told to); ``proposing(rule)`` for
an optimizer whose reflection proposes exactly ``rule``.
"""

from pathlib import Path

from skillopt.api import ScriptedBackend
from skillopt.errors import TransientError
from skillopt.records import CompletionRequest
from skillopt_sleep.clients import from_backends
from skillopt_sleep.cycle import run_night
from skillopt_sleep.documents import Doc
from skillopt_sleep.mine.tasks import Check, SleepTask
from skillopt_sleep.options import SleepOptions
from skillopt_sleep.replay import replay
from skillopt_sleep.sentinel import SENTINEL


def _tasks(n=4):
    return [
        SleepTask(
            id=f"t{i}", intent=f"run the tests of module {i}", split="val", checks=(Check(op="contains", value="uv run pytest"),)
        )
        for i in range(n)
    ]


def _docs(text):
    return [Doc(role="skill", path=Path("/p/SKILL.md"), original=None, text=text)]


def agent(request: CompletionRequest) -> str:
    """Stands in for a model that follows the skill: uses uv only when told to."""
    return "uv run pytest -q" if "uv run" in request.messages[0].content.split("## Skill", 1)[1] else "python -m pytest"


def test_every_replay_prompt_carries_the_sentinel(scripted_client):
    backend_requests = []

    def spy(request):
        backend_requests.append(request)
        return "ok"

    replay(_tasks(1), _docs(""), scripted_client(spy), phase="val")
    assert SENTINEL in backend_requests[0].messages[0].content


def test_empty_reply_is_an_error_not_a_zero(scripted_client):
    """Bug §6.11: a transient empty reply scored 0 and could let a candidate through."""
    result = replay(_tasks(3), _docs(""), scripted_client(lambda r: "   "), phase="val")
    assert result.errors == 3 and result.evaluation().items == {}


def test_backend_errors_are_recorded_and_excluded(scripted_client):
    calls = {"n": 0}

    def flaky(request):
        calls["n"] += 1
        if "module 0" in request.messages[-1].content:
            raise TransientError("503")
        return agent(request)

    client = scripted_client(flaky, retry=__import__("skillopt.calls", fromlist=["RetryPolicy"]).RetryPolicy(max_retries=0))
    result = replay(_tasks(3), _docs("uv run"), client, phase="val")
    assert result.errors == 1 and set(result.evaluation().items) == {"t1", "t2"}


def test_final_check_draws_fresh_samples(scripted_client):
    """Bug §6.11: the 'final' replay was mostly cache hits; a salt changes the seed."""
    seeds = []

    def spy(request):
        seeds.append(request.seed)
        return agent(request)

    client = scripted_client(spy)
    replay(_tasks(2), _docs(""), client, phase="gate", repeats=2, seed=42, salt=0)
    first = set(seeds)
    seeds.clear()
    replay(_tasks(2), _docs(""), client, phase="final", repeats=2, seed=42, salt=1)
    assert first == {42, 43} and set(seeds).isdisjoint(first)


# ------------------------------------------------------------------ the gate, on a night's engine path

RULE = "- use uv run pytest"


def _split(tasks, split):
    return [SleepTask(id=f"{split}-{t.id}", intent=t.intent, split=split, checks=t.checks, origin="file") for t in tasks]


def proposing(rule):
    """Stands in for the optimizer: its reflection proposes ``rule``, nothing else."""

    def optimizer(request):
        if request.stage == "sleep-reflect":
            return {"edits": [{"doc": "skill", "op": "append", "content": rule, "why": "seen in the sessions"}]}
        return {"edits": []}

    return optimizer


def _night(tmp_path, rule, val, *, target=agent, train=None, **opts):
    """One night on ``train`` (by default two tasks ``agent`` fails) and ``val``
    (reflection: ``rule``); its result."""
    project = tmp_path / "project"
    project.mkdir(parents=True)
    options = SleepOptions(project=project, lookback_hours=0, min_val_items=2, reflector="llm", **opts)
    clients = from_backends(ScriptedBackend(script=target), ScriptedBackend(script=proposing(rule)), opts=options)
    return run_night(options, clients=clients, dry_run=True, tasks=(train or _split(_tasks(2), "train")) + _split(val, "val"))


def _gated(result):
    """The verdict of the one edit the night put to the gate."""
    edits = [t for t in result.report.trials if t.label.startswith("edit ")]
    assert len(edits) == 1, [t.label for t in result.report.trials]
    return edits[0].verdict


def _answers_empty(when):
    """``agent``, except that a replay ``when(request)`` holds gets an empty reply."""
    return lambda request: "   " if when(request) else agent(request)


def test_strict_gate_accepts_a_real_gain_and_rejects_a_tie(tmp_path, skillopt_home):
    gained = _night(tmp_path / "gain", RULE, _tasks())
    assert gained.status == "accepted" and _gated(gained).accepted
    tie = _night(tmp_path / "tie", "- be nice", _tasks())
    assert tie.status == "nothing_learned" and not _gated(tie).accepted and "tie" in _gated(tie).reason


def test_too_few_val_items_is_unverified(tmp_path, skillopt_home):
    """One val task is too few to compare: the night never asks the gate. Two, one of
    them unanswered under the candidate, leave one comparable pair: no decision."""
    one = _night(tmp_path / "one", RULE, _tasks(1))
    assert one.status == "too_few_tasks" and one.report.trials == () and not one.report.accepted_edits
    unanswered = _night(tmp_path / "two", RULE, _tasks(2), target=_answers_empty(
        lambda r: "module 1" in r.messages[-1].content and RULE in r.messages[0].content))
    verdict = _gated(unanswered)
    assert not verdict.accepted and verdict.action == "no_decision" and "valid pairs" in verdict.reason
    assert unanswered.status == "nothing_learned" and not unanswered.report.accepted_edits


def test_an_unanswered_baseline_item_is_not_a_zero_that_lets_a_candidate_through(tmp_path, skillopt_home):
    """Bug §6.11 on the engine path: an empty reply to the *current* documents scored 0,
    so a rule that changes nothing beat it. Left out, the unanswered item could change
    the decision: no decision."""

    def target(request):  # passes every val task under any documents, but the current ones get no answer on module 0
        if "module 0" in request.messages[-1].content and "be nice" not in request.messages[0].content:
            return "   "
        return "uv run pytest -q"

    lint = SleepTask(id="lint", intent="lint the project", split="train", checks=(Check(op="contains", value="uv run ruff"),))
    result = _night(tmp_path, "- be nice", _tasks(), target=target, train=[lint])
    verdict = _gated(result)
    assert not verdict.accepted and verdict.action == "no_decision" and "could change the decision" in verdict.reason
    assert result.status == "nothing_learned" and not result.report.accepted_edits


def test_a_candidates_unanswered_item_is_left_out_not_scored(tmp_path, skillopt_home):
    result = _night(tmp_path, RULE, _tasks(), target=_answers_empty(
        lambda r: "module 1" in r.messages[-1].content and RULE in r.messages[0].content))
    assert result.status == "accepted" and _gated(result).accepted
    finals = {row.id: row.final for row in result.report.per_task if row.split == "val"}
    assert finals == {"val-t0": 1.0, "val-t1": None, "val-t2": 1.0, "val-t3": 1.0}, "no answer is no score, not 0"


def test_the_final_check_replays_fresh_samples(tmp_path, skillopt_home):
    """Bug §6.11: the 'final' replay was mostly cache hits; each val task is replayed
    under the accepted documents twice (gate, fresh re-check), with two seeds."""
    seeds: dict[str, set] = {}

    def spy(request):
        if RULE in request.messages[0].content:
            seeds.setdefault(request.messages[-1].content.split("module ", 1)[1][:1], set()).add(request.seed)
        return agent(request)

    result = _night(tmp_path, RULE, _tasks(), target=spy)
    assert [t.label for t in result.report.trials][-1] == "final fresh check" and result.status == "accepted"
    assert sorted(seeds) == ["0", "1", "2", "3"] and all(len(s) == 2 for s in seeds.values()), seeds


def test_paired_gate_no_regression_blocks_a_regressing_candidate(tmp_path, skillopt_home):
    lint = SleepTask(id="lint", intent="lint it", split="val", checks=(Check(op="contains", value="python -m pytest"),))
    paired = {"gate": "paired", "no_regression": True, "confidence": 0.9}
    regressing = _night(tmp_path / "regress", RULE, _tasks(6) + [lint], **paired)
    verdict = _gated(regressing)
    assert not verdict.accepted and "regressed" in verdict.reason
    verdict = _gated(_night(tmp_path / "gain", RULE, _tasks(6), **paired))
    assert verdict.accepted


def test_an_unknown_gate_stops_the_night_at_its_start_with_one_line(tmp_path, run_cli):
    """``--gate`` is checked against the gates registry before anything is harvested."""
    project = tmp_path / "project"
    project.mkdir()
    res = run_cli("sleep", "run", "--project", str(project), "--lookback-hours", "0", "--gate", "lenient")
    assert res.exit_code == 2 and "--gate:" in res.output and "lenient" in res.output, res.output
    assert "Traceback" not in res.output and not (project / ".skillopt-sleep").exists(), "nothing was written"
