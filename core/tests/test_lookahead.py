"""Work starts when its inputs exist, and the run ends exactly as the sequential chain would.

The toy env and scripted models stand in for a benchmark and real models (see toy.py).
The overlap tests make one piece of work wait until the piece it should run beside has
started: in the sequential order the wait runs out and the test fails. The equivalence
tests run the same training with ``engine.lookahead`` on and off and compare every
decision, skill, score, attribution and the calls booked per step.
"""

from __future__ import annotations

import json
import threading
from collections import Counter

import pytest
from engine_helpers import make_trainer
from toy import ToyEnv, toy_optimizer, toy_target

from skillopt.calls import ModelClient
from skillopt.calls.pipeline import RetryPolicy
from skillopt.engine.rollouts import RolloutRunner
from skillopt.engine.slots import Lane, Priority, WorkerSlots
from skillopt.errors import TransientError
from skillopt.executors import ExecutorJob
from skillopt.scripted import ScriptedBackend


def outcome(out):
    """What a user reads off a finished run, plus the requests booked per scope and stage."""
    history = json.loads((out / "history.json").read_text())
    summary = json.loads((out / "summary.json").read_text())
    booked = Counter()
    for line in (out / "usage.jsonl").read_text().splitlines():
        kind, key, scope = json.loads(line)[:3]
        booked[(kind, scope, key)] += 1
    steps = sorted((out / "steps").glob("step_*"))
    return {
        "best": (out / "best_skill.md").read_text(),
        "skills": {p.name: p.read_text() for p in sorted((out / "skills").glob("*.md"))},
        "history": [(h["step"], h["action"], h["candidate_hash"], h["selection_hard"], h["calls"], h["prompt_tokens"],
                     h["current_score"], h["best_score"]) for h in history],
        "attribution": {s.name: json.loads((s / "attribution.json").read_text())["result"]
                        for s in steps if (s / "attribution.json").exists()},
        "val": summary["val"], "test": {k: v["hard"] for k, v in summary["test"].items()},
        "status": summary["status"], "booked": dict(booked),
        "state": {k: v for k, v in json.loads((out / "runtime_state.json").read_text()).items() if k != "wall_time_s"},
    }


@pytest.mark.parametrize("settings", [
    {"num_epochs": 1},
    {"num_epochs": 2, "evaluation": {"gate": "strict"},  # one rule a step, and the epoch boundary's updates
     "optimizer": {"learning_rate": 1, "min_learning_rate": 1, "use_slow_update": True, "use_meta_skill": True}},
    {"num_epochs": 1, "evaluation": {"gate": "strict"}, "optimizer": {"learning_rate": 2, "min_learning_rate": 1},
     "optimizer_script": toy_optimizer(harmful=True, rank_reverse=True)},  # accepted, then rejected
])
def test_look_ahead_ends_exactly_as_the_sequential_chain(tmp_path, settings):
    # the cross-run rejection ledger off: the second run must not skip what the first rejected
    settings = {**settings, "optimizer": {**settings.get("optimizer", {}), "rejected_ledger": False}}
    make_trainer(tmp_path / "ahead", **settings).train()
    make_trainer(tmp_path / "chain", engine={"lookahead": False}, **settings).train()
    got, want = outcome(tmp_path / "ahead"), outcome(tmp_path / "chain")
    assert got["attribution"]  # accepted steps were attributed (beside the next step)
    assert got == want


def test_a_budget_keeps_the_sequential_order(tmp_path):
    """Under a hard budget the order of spending decides where the run stops: no look-ahead."""
    trainer = make_trainer(tmp_path, num_epochs=1, budget={"max_calls": 10_000})
    assert not trainer.looking_ahead()
    assert make_trainer(tmp_path / "free", num_epochs=1).looking_ahead()


class WaitingEnv(ToyEnv):
    """The toy env where the first item of one kind of work (``waiter``: its ledger label,
    split and whether the skill has learnt a rule yet) waits until an item of another
    (``starter``) has started."""

    waiter: tuple = ()
    starter: tuple = ()

    def __init__(self, config):
        super().__init__(config)
        self.started, self.once, self.waits = threading.Event(), threading.Event(), []

    def rollout(self, task, skill, model, ctx):
        work = (getattr(model, "label", ""), task.split, "RULE-" in skill)
        if work == self.starter:
            self.started.set()
        if work == self.waiter and not self.once.is_set():
            self.once.set()
            self.waits.append(self.started.wait(5))
        return super().rollout(task, skill, model, ctx)


def waiting_trainer(out, waiter, starter, **settings):
    trainer = make_trainer(out, **settings)
    env = WaitingEnv(trainer.env.config)
    env.waiter, env.starter = waiter, starter
    trainer.env = trainer.runner.env = env
    trainer.runner.executor.start(ExecutorJob(env=env, cancel=trainer.runner.cancel))  # items run on the waiting env
    return trainer, env


def test_the_baseline_runs_beside_step_one(tmp_path):
    """The baseline's first val item waits for step 1's first analyst call: the baseline
    takes the rollout workers step 1 leaves idle while its analysts think."""
    base = toy_optimizer()

    def optimizer(request):
        if request.stage == "analyst":
            env.started.set()
        return base(request)

    trainer, env = waiting_trainer(tmp_path, ("gate", "val", False), (), optimizer_script=optimizer, num_epochs=1,
                                   train={"max_steps": 1})
    trainer.train()
    assert env.waits == [True]
    scopes = {json.loads(line)[2] for line in (tmp_path / "usage.jsonl").read_text().splitlines()
              if json.loads(line)[1] == "target/gate"}
    assert scopes == {"baseline", "step 1"}  # booked where each belongs, though the baseline ran during step 1


def test_an_accepted_steps_attribution_runs_beside_the_next_step(tmp_path):
    # two edits a step: leaving one out keeps the other rule (a step of one edit needs no
    # attribution rollout: without its edit the skill is the current one, already scored)
    trainer, env = waiting_trainer(tmp_path, ("attribution", "val", True), ("rollout", "train", True), num_epochs=1,
                                   evaluation={"gate": "strict"}, optimizer={"learning_rate": 2, "min_learning_rate": 2})
    trainer.train()
    assert env.waits == [True]  # step 1's attribution waited for (and saw) rollouts of step 2
    assert (tmp_path / "steps" / "step_0001" / "attribution.json").exists()


def test_an_outage_beside_a_deferred_commit_stops_as_the_chain_would(tmp_path):
    """Step 2's rollouts fail for good while step 1 (accepted) waits for its attribution:
    step 1 is committed, and the run stops after it, as without look-ahead."""

    def target(request):
        if "RULE-" in request.messages[0].content and "Puzzle kind" in request.messages[-1].content:
            # step 2's rollouts may start while step 1's gate still has answers out (its
            # decision settled): the outage hits the rollouts, as in the chain's order
            if target.step2.is_set() and request.messages[-1].content.rsplit("Word: ", 1)[-1].strip() in TRAIN_WORDS:
                raise TransientError("HTTP 503 from the provider", backend="scripted")
        return toy_target(request)

    results = {}
    for name, engine in (("ahead", {}), ("chain", {"lookahead": False})):
        target.step2 = threading.Event()
        trainer = make_trainer(tmp_path / name, target_script=target, num_epochs=1, engine=engine, evaluation={"gate": "strict"},
                               optimizer={"learning_rate": 1, "min_learning_rate": 1, "rejected_ledger": False})
        trainer.runner.heal_pause_s = 0.0
        trainer.target.retry = RetryPolicy(max_retries=0)
        original = trainer.runner.run

        def run(tasks, skill, out_dir, original=original, **kw):
            if "step_0002" in str(out_dir):
                target.step2.set()  # from step 2's rollouts on, the provider is down
            return original(tasks, skill, out_dir, **kw)

        trainer.runner.run = run
        summary = trainer.train()
        results[name] = (summary.status.value, summary.stopped_reason, outcome_state(tmp_path / name))
    assert results["ahead"] == results["chain"]
    assert results["ahead"][0] == "provider_outage" and results["ahead"][2]["last_completed_step"] == 1


#: the toy's train words (no val or test item uses one): a request for a train item
TRAIN_WORDS = {t.inputs["word"] for t in ToyEnv(ToyEnv.Config()).tasks("train")}


def outcome_state(out):
    state = json.loads((out / "runtime_state.json").read_text())
    return {k: v for k, v in state.items() if k != "wall_time_s"}


def test_the_critical_path_takes_worker_slots_first():
    slots = WorkerSlots(8)
    assert slots.background_cap == 6  # a quarter of the slots stays with the critical path
    background, critical = Lane(Priority(1)), Lane(0)
    with slots.queued(background), slots.queued(critical):
        background.pending, critical.pending = 10, 1
        assert not slots.acquire(background)  # the slots are not lent (the optimizer has no call out)
        slots.lend(True)
        assert not slots.acquire(background)  # the critical path has an item waiting
        assert slots.acquire(critical)
        critical.pending = 0
        got = sum(slots.acquire(background) for _ in range(10))
        assert got == 6  # at most the background cap
        background.shared.urgent()  # waited for: the critical path's now
        assert slots.acquire(background) and not slots.acquire(background)  # the last free slot, then none
    earlier, later = Lane(Priority(1)), Lane(Priority(2))
    slots = WorkerSlots(8)
    slots.lend(True)
    with slots.queued(earlier), slots.queued(later):
        earlier.pending, later.pending = 1, 1
        assert not slots.acquire(later) and slots.acquire(earlier)


def test_background_items_start_only_when_they_can_end_before_the_optimizer_answers():
    """Rollouts of 1 s, optimizer waves of 3 s: a background item may start in the first
    ~2.25 s of a wave (one that started later would still hold its worker when the
    critical path's target work resumes)."""
    slots = WorkerSlots(8)
    lane = Lane(Priority(1))
    with slots.queued(lane):
        lane.pending = 8
        slots.lend(True)
        assert slots.acquire(lane)  # nothing measured yet: lent is enough
        slots.release(lane)
        slots.observe_item(1.0)
        slots.lent_since -= 3.0
        slots.lend(False)  # one wave of 3 s seen
        assert slots.lent_s == pytest.approx(3.0, abs=0.01)
        assert not slots.acquire(lane)  # not lent
        slots.lend(True)
        assert slots.acquire(lane)
        slots.lent_since -= 2.0
        assert slots.acquire(lane)
        slots.lent_since -= 0.5
        assert not slots.acquire(lane)


def test_two_batches_on_one_folder_run_its_items_once(tmp_path):
    env = ToyEnv(ToyEnv.Config(workers=4, n_val=8))
    backend = ScriptedBackend(script=toy_target)
    runner = RolloutRunner(env, ModelClient(backend, role="target", cache=None, cache_mode="off"), workers=4, timeout_s=5)
    results = []

    def evaluate():
        results.append(runner.run(env.tasks("val"), "- RULE-upper", tmp_path / "val", training=False, seed=1))

    threads = [threading.Thread(target=evaluate) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert len(results) == 3 and results[0] == results[1] == results[2]
    assert len(backend.requests) == 8  # 24 before: each batch rolled out every item
