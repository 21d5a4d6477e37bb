"""Replay and gating: errors are not scores (bug §6.11), fresh final samples, paired gate."""

from pathlib import Path

from skillopt.config.schema import EvaluationConfig
from skillopt.errors import TransientError
from skillopt.records import CompletionRequest
from skillopt_sleep.documents import Doc
from skillopt_sleep.learn import gating
from skillopt_sleep.mine.tasks import Check, SleepTask
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


def _decide(scripted_client, gate_name, base_text, cand_text, tasks, **cfg):
    gate = gating.make_gate(gate_name, EvaluationConfig(gate=gate_name, gate_metric="hard", **cfg))
    client = scripted_client(agent)
    base = replay(tasks, _docs(base_text), client, phase="base")
    cand = replay(tasks, _docs(cand_text), client, phase="cand")
    return gating.decide(gate, base, cand, min_items=2)


def test_strict_gate_accepts_a_real_gain_and_rejects_a_tie(scripted_client):
    assert _decide(scripted_client, "strict", "", "- use uv run pytest", _tasks()).accepted
    assert not _decide(scripted_client, "strict", "", "- be nice", _tasks()).accepted


def test_too_few_val_items_is_unverified(scripted_client):
    verdict = _decide(scripted_client, "strict", "", "- use uv run pytest", _tasks(1))
    assert not verdict.accepted and verdict.action == "no_decision" and "comparable" in verdict.reason


def test_paired_gate_no_regression_blocks_a_regressing_candidate(scripted_client):
    tasks = _tasks(6) + [
        SleepTask(id="lint", intent="lint it", split="val", checks=(Check(op="contains", value="python -m pytest"),))
    ]
    verdict = _decide(scripted_client, "paired", "", "- use uv run pytest", tasks, gate_no_regression=True, gate_confidence=0.9)
    assert not verdict.accepted and "regressed" in verdict.reason
    verdict = _decide(
        scripted_client, "paired", "", "- use uv run pytest", _tasks(6), gate_no_regression=True, gate_confidence=0.9
    )
    assert verdict.accepted
