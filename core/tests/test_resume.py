"""Kill a real training process again and again; re-running resumes exactly.

The models are scripted and deterministic (see toy.py), so an uninterrupted run is the
reference: a run killed (os._exit, as a power cut would) inside every stage of a step,
in both epochs, at the epoch boundary and in the final evaluation, must end with the
same skills, the same candidate at every step, the same decisions and the same scores.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

WORKER = Path(__file__).with_name("resume_worker.py")
DIED = 77


def run(out: Path, kill: str = "", env: dict[str, str] | None = None) -> int:
    env = {**os.environ, "SKILLOPT_TEST_KILL": kill, **(env or {})}
    return subprocess.run([sys.executable, str(WORKER), str(out)], env=env, capture_output=True, text=True, timeout=120).returncode


def outcome(out: Path) -> dict:
    history = json.loads((out / "history.json").read_text())
    summary = json.loads((out / "summary.json").read_text())
    return {
        "best": (out / "best_skill.md").read_text(),
        "skills": {p.name: p.read_text() for p in sorted((out / "skills").glob("*.md"))},
        "history": [(h["step"], h["action"], h["edit_budget"], h["selection_hard"], h["candidate_hash"], h["n_edits_applied"])
                    for h in history],
        "test": {k: v["hard"] for k, v in summary["test"].items()},
        "val": summary["val"],
        "best_origin": summary["best_origin"],
        "meta": json.loads((out / "meta_skill" / "epoch_02" / "result.json").read_text())["result"],
        "slow": json.loads((out / "slow_update" / "epoch_02" / "result.json").read_text())["result"],
    }


def requests_in_order(out: Path) -> list[tuple[str, str, int]]:
    """(scope, role/stage, cumulative index of that stage) of every request the run sent."""
    seen: dict[str, int] = {}
    rows = []
    for line in (out / "usage.jsonl").read_text().splitlines():
        kind, key, scope = json.loads(line)[:3]
        if kind == "b":
            seen[key] = seen.get(key, 0) + 1
            rows.append((scope, key, seen[key]))
    return rows


def kill_plan(reference: Path, seed: int = 7) -> list[str]:
    """Kill points in the order the run reaches them: one inside each stage of step 1,
    the gate of step 2, a rollout and an analyst call of epoch 2, the slow update's
    rollouts and call, the meta skill, and the final evaluation."""
    rng = random.Random(seed)
    rows = requests_in_order(reference)
    wanted = [
        ("step 1", "target/rollout"), ("step 1", "optimizer/reflect"), ("step 1", "optimizer/merge"),
        ("step 1", "optimizer/select"), ("step 2", "target/gate"), ("step 3", "target/rollout"),
        ("step 4", "optimizer/reflect"), ("epoch 2", "target/slow_update"), ("epoch 2", "optimizer/slow_update"),
        ("epoch 2", "optimizer/meta_skill"), ("final", "target/final_eval"),
    ]
    plan = []
    # the final evaluation's tests of the trained skills: its initial-skill test runs beside
    # step 1 (engine.lookahead), where the other kills of step 1 already are
    trained = max(i for i, (s, _, _) in enumerate(rows) if s != "final")
    for scope, key in wanted:
        found = [(i, n) for i, (s, k, n) in enumerate(rows) if s == scope and k == key and (s != "final" or i > trained)]
        assert found, f"the reference run made no {key} request in {scope}"
        plan.append(rng.choice(found))
        if key == "optimizer/select":
            plan.append((plan[-1][0] + 0.5, "apply"))  # the patch policy applies without a model call
    ordered = sorted(plan, key=lambda p: p[0])
    return ["apply:1" if n == "apply" else f"{rows[i][1]}:{n}" for i, n in ordered]


@pytest.mark.slow
def test_eleven_kills_in_every_stage_and_both_epochs_end_as_an_uninterrupted_run(tmp_path):
    reference = tmp_path / "reference"
    assert run(reference) == 0
    actions = [h["action"] for h in json.loads((reference / "history.json").read_text())]
    assert actions.count("accept_new_best") == 2  # a run that learns: both rules of the schedule are gated in
    resumed = tmp_path / "resumed"
    kills = kill_plan(reference)
    assert len(kills) >= 10 and {k.split(":")[0].split("/")[-1] for k in kills} >= {
        "rollout", "reflect", "merge", "select", "apply", "gate", "slow_update", "meta_skill", "final_eval"}
    first_gate = next(i for i, k in enumerate(kills) if k.startswith("target/gate:"))  # step 2's: after step 1's gate
    for i, kill in enumerate(kills):
        assert run(resumed, kill) == DIED, f"the worker should have died at {kill}"
        if not (resumed / "runtime_state.json").exists():
            # step 1 runs beside the baseline (engine.lookahead): killed there before the baseline
            # was scored, the run has no state yet, as when a baseline is killed; never later
            assert i < first_gate, f"no run state after the kill at {kill}"
            continue
        state = json.loads((resumed / "runtime_state.json").read_text())
        assert state["status"] == "running"
    assert run(resumed) == 0
    assert outcome(resumed) == outcome(reference)
    # finished items are not redone: each train rollout item appears once per step
    lines = (resumed / "steps" / "step_0001" / "rollout" / "results.jsonl").read_text().splitlines()
    keys = [json.loads(line)["key"] for line in lines if line.strip()]
    assert len(keys) == len(set(keys)) == 8
    # and the requests paid again are only the ones in flight when each kill struck
    extra = len(requests_in_order(resumed)) - len(requests_in_order(reference))
    assert 0 <= extra <= 4 * len(kills)


def test_a_kill_in_the_next_steps_rollouts_while_the_gate_has_answers_out_resumes_exactly(tmp_path, monkeypatch):
    """Step 1's strict gate is settled by its first right answer; its later val answers
    are held until step 2's rollouts start (resume_worker.held_target). Killed at step 2's
    first rollout request, step 1's gate has no result yet and step 2 has begun: the
    resumed run ends as the uninterrupted one."""
    monkeypatch.setenv("SKILLOPT_TEST_HOLD_GATE", "1")
    reference = tmp_path / "reference"
    assert run(reference) == 0
    resumed = tmp_path / "resumed"
    assert run(resumed, "target/rollout:9") == DIED  # step 1 rolled out 8 items: the 9th request is step 2's
    assert not (resumed / "steps" / "step_0001" / "gate" / "result.json").exists()  # the gate had answers out
    assert (resumed / "steps" / "step_0001" / "gate" / "results.jsonl").read_text().strip()  # and some in
    assert run(resumed, "target/rollout:12") == DIED  # again, once step 2's rollouts have answers saved
    assert run(resumed) == 0
    assert outcome(resumed) == outcome(reference)
    lines = [tuple(json.loads(line)[:3]) for line in (reference / "usage.jsonl").read_text().splitlines()]
    started = lines.index(("b", "target/rollout", "step 2"))
    assert ("ok", "target/gate", "step 1") in lines[started:]  # step 1's gate answered beside step 2's rollouts


def test_resume_after_completion_is_a_no_op(tmp_path):
    assert run(tmp_path) == 0
    before = outcome(tmp_path)
    sent = len(requests_in_order(tmp_path))
    assert run(tmp_path) == 0
    assert outcome(tmp_path) == before and len(requests_in_order(tmp_path)) == sent


def test_step_buffer_survives_a_resume(tmp_path):
    from engine_helpers import make_trainer
    from toy import toy_optimizer

    make_trainer(tmp_path, optimizer_script=toy_optimizer(harmful=True), num_epochs=1, train={"max_steps": 1},
                 optimizer={"learning_rate": 8, "min_learning_rate": 8}).train()
    resumed = make_trainer(tmp_path, optimizer_script=toy_optimizer(harmful=True), num_epochs=1,
                           optimizer={"learning_rate": 8, "min_learning_rate": 8})
    resumed.train()
    prompts = [r.messages[-1].content for r in resumed.optimizer.backend.requests if r.stage == "analyst"]
    assert prompts and all("### Step 1 — REJECT" in p and "RULE-BAD" in p for p in prompts)


def test_a_resume_in_epoch_two_keeps_that_epochs_step_history(tmp_path):
    """F3: resuming in epoch 2 used to wipe the step buffer (the loop reset it while
    skipping epoch 1), so later analysts no longer saw what this epoch had tried."""
    from engine_helpers import make_trainer
    from toy import toy_optimizer

    settings = {"optimizer": {"learning_rate": 8, "min_learning_rate": 8}, "train": {"num_epochs": 2, "batch_size": 8}}
    make_trainer(tmp_path, optimizer_script=toy_optimizer(harmful=True), **{**settings, "train": {**settings["train"], "max_steps": 3}}).train()
    state = json.loads((tmp_path / "runtime_state.json").read_text())
    assert state["buffer_epoch"] == 2 and [e["step"] for e in state["step_buffer"]] == [3]
    resumed = make_trainer(tmp_path, optimizer_script=toy_optimizer(harmful=True), **settings)
    resumed.train()
    prompts = [r.messages[-1].content for r in resumed.optimizer.backend.requests if r.stage == "analyst"]
    assert prompts and all("### Step 3 —" in p for p in prompts)
    assert [e["step"] for e in json.loads((tmp_path / "runtime_state.json").read_text())["step_buffer"]] == [3, 4]


@pytest.mark.slow
def test_a_pareto_pool_resumes_exactly_after_kills_across_both_epochs(tmp_path, monkeypatch):
    """The pool (members, scores, the parent each step drew) lives in the run state: a run
    killed at random requests of both epochs ends with the uninterrupted run's pool."""
    monkeypatch.setenv("SKILLOPT_TEST_STRATEGY", "pareto")
    reference = tmp_path / "reference"
    assert run(reference) == 0
    rows = requests_in_order(reference)
    rng = random.Random(11)
    picks = sorted(rng.sample(range(len(rows)), 6))
    resumed = tmp_path / "resumed"
    for index in picks:
        _, key, n = rows[index]
        assert run(resumed, f"{key}:{n}") == DIED
    assert run(resumed) == 0
    pool = [(m["origin"], m["skill_hash"], m["score"]) for m in json.loads((reference / "runtime_state.json").read_text())["pool"]]
    assert pool and pool == [(m["origin"], m["skill_hash"], m["score"])
                             for m in json.loads((resumed / "runtime_state.json").read_text())["pool"]]
    assert outcome(resumed) == outcome(reference)


def ledger_rows(home: Path) -> list[tuple]:
    """The cross-run rejected-edit ledger of one SKILLOPT_HOME, without run names and times."""
    rows = []
    for file in sorted(home.rglob("rejected/*.jsonl")):
        for line in file.read_text().splitlines():
            r = json.loads(line)
            rows.append((r["step"], r["candidate_hash"], r["effect"], r.get("lost_to", ""), r["reason"]))
    return rows


@pytest.mark.slow
@pytest.mark.parametrize("sampler", ["edit-subsets", "minibatches"])
def test_three_proposals_a_step_resume_exactly_after_kills_in_the_race(tmp_path, sampler):
    """K = 3 proposals a step: the proposals' merges, rankings and applications, the race
    of their candidates and the losers' ledger entries are all resumable; a run killed in
    the race and around it ends as the uninterrupted run, with the same races and the
    same ledger (each run has its own SKILLOPT_HOME, so neither reads the other's)."""
    env = {"SKILLOPT_TEST_PROPOSALS": "3", "SKILLOPT_TEST_SAMPLER": sampler}
    reference = tmp_path / "reference"
    assert run(reference, env={**env, "SKILLOPT_HOME": str(tmp_path / "home-ref")}) == 0
    races = sorted(p.relative_to(reference).as_posix() for p in reference.glob("steps/*/race/result.json"))
    assert races, "the reference run raced no proposals"
    rows = requests_in_order(reference)
    in_race = [i for i, (_, key, _) in enumerate(rows) if key == "target/race"]
    around = [i for i, (scope, key, _) in enumerate(rows) if scope.startswith("step ") and key != "target/race"]
    rng = random.Random(5)
    picks = sorted({*rng.sample(in_race, min(3, len(in_race))), *rng.sample(around, 3)})
    resumed = tmp_path / "resumed"
    for index in picks:
        _, key, n = rows[index]
        assert run(resumed, f"{key}:{n}", env={**env, "SKILLOPT_HOME": str(tmp_path / "home-res")}) == DIED
    assert run(resumed, env={**env, "SKILLOPT_HOME": str(tmp_path / "home-res")}) == 0
    assert outcome(resumed) == outcome(reference)
    for rel in races:
        assert json.loads((resumed / rel).read_text())["result"] == json.loads((reference / rel).read_text())["result"]
    assert ledger_rows(tmp_path / "home-ref") and ledger_rows(tmp_path / "home-res") == ledger_rows(tmp_path / "home-ref")
    history = json.loads((reference / "history.json").read_text())
    assert [(h["proposals"], h["raced"], h["race_winner"]) for h in history] == [
        (h["proposals"], h["raced"], h["race_winner"]) for h in json.loads((resumed / "history.json").read_text())]


@pytest.mark.slow
def test_a_multi_objective_pool_resumes_exactly_after_kills_and_picks_the_same_final_skill(tmp_path, monkeypatch):
    """The ``frontier`` pool (members with accuracy, skill and rollout tokens) and the final
    pick on a carved selection split (the smallest skill within epsilon of the best): a run
    killed at random requests of both epochs and inside the pick ends with the
    uninterrupted run's pool, pick and scores (each with its own SKILLOPT_HOME: a gate
    rejection in the reference must not be refused unscored in the resumed run)."""
    monkeypatch.setenv("SKILLOPT_TEST_STRATEGY", "frontier")
    monkeypatch.setenv("SKILLOPT_TEST_SELECTION", "carved")
    monkeypatch.setenv("SKILLOPT_TEST_SELECT", "smallest")
    reference = tmp_path / "reference"
    assert run(reference, env={"SKILLOPT_HOME": str(tmp_path / "home-ref")}) == 0
    rows = requests_in_order(reference)
    picking = [i for i, (_, key, _) in enumerate(rows) if key == "target/selection"]
    assert picking, "the reference run made no request for the final pick"
    rng = random.Random(13)
    picks = sorted({*rng.sample(range(len(rows)), 5), rng.choice(picking)})
    resumed = tmp_path / "resumed"
    for index in picks:
        _, key, n = rows[index]
        assert run(resumed, f"{key}:{n}", env={"SKILLOPT_HOME": str(tmp_path / "home-res")}) == DIED
    assert run(resumed, env={"SKILLOPT_HOME": str(tmp_path / "home-res")}) == 0

    def pool(out: Path) -> list:
        return [(m["origin"], m["skill_hash"], m["score"], m["objectives"])
                for m in json.loads((out / "runtime_state.json").read_text())["pool"]]

    assert len(pool(reference)) >= 2 and all(set(m[3]) == {"accuracy", "skill_tokens", "rollout_tokens"} for m in pool(reference))
    assert pool(resumed) == pool(reference)
    assert outcome(resumed) == outcome(reference)
    picked = [json.loads((out / "selection" / "result.json").read_text())["result"] for out in (reference, resumed)]
    assert picked[0] == picked[1] and picked[0]["split"] == "selection"
    summaries = [json.loads((out / "summary.json").read_text())["selection"] for out in (reference, resumed)]
    assert summaries[0] == summaries[1] and summaries[0]["rule"] == "smallest"
