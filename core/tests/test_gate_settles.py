"""A gate decision settled before its last val answer starts the next step's rollouts;
the run's target calls per phase, and attribution that reads what the gate measured.

The toy env and scripted models stand in for a benchmark and real models (toy.py): the
target answers an item right only when the skill holds its kind's rule, so the initial
skill scores 0 on val and a candidate with one rule is right on that kind's items. The
ordering test makes a candidate val answer wait until the next step's first rollout has
started: when the next step waits for every val answer (the chain's order before), the
wait runs out and the test fails. Equivalence with the chain (every decision, skill,
score and booking) is ``test_lookahead.py``'s, which runs the same training with
``engine.lookahead`` on (early rollouts included) and off.
"""

from __future__ import annotations

import json
from collections import Counter

from engine_helpers import make_trainer
from test_lookahead import waiting_trainer

from skillopt.engine.stages.settle import settled_action
from skillopt.gates import Evaluation, Look
from skillopt.records import GateAction

STRICT_ONE_RULE = {"evaluation": {"gate": "strict"}, "optimizer": {"learning_rate": 1, "min_learning_rate": 1,
                                                                  "rejected_ledger": False}}


def evaluation(scores: dict[str, float], skill: str = "s") -> Evaluation:
    return Evaluation(skill=skill, skill_hash=skill, split="val", items={i: [(v, v)] for i, v in scores.items()})


def test_a_decision_is_settled_only_when_no_answer_still_out_can_change_it(tmp_path):
    trainer = make_trainer(tmp_path, num_epochs=1, **STRICT_ONE_RULE)
    run = trainer.context()
    ids = [t.id for t in run.data.val]  # 8 items
    current = evaluation({i: 1.0 if n < 3 else 0.0 for n, i in enumerate(ids)})  # 3 of 8 right
    look = Look()

    def settled(answered):
        return settled_action(run, current, evaluation(dict(zip(ids, answered, strict=False)), "cand"), 1, look, False)

    assert settled([1.0, 1.0, 1.0, 1.0]) is GateAction.ACCEPT  # 4 right already beat 3, whatever the other 4 say
    assert settled([1.0, 1.0, 1.0]) is None  # a tie is still possible (ties reject)
    assert settled([0.0] * 4 + [1.0]) is None  # up to 1 + 3 = 4 right: it may still win
    assert settled([0.0] * 5) is GateAction.REJECT  # at most 3 right: cannot beat 3
    assert settled([0.0] * 4) is None  # 4 still out: 4 > 3 is possible
    gap = Evaluation(skill="cand", skill_hash="cand", split="val", items={i: [(1.0, 1.0)] for i in ids[:4]},
                     missing={ids[4]: "HTTP 503"})
    assert settled_action(run, current, gap, 1, look, False) is None  # a provider gap is left to the full look


def test_the_next_steps_rollouts_start_while_the_gate_still_has_answers_out(tmp_path):
    """Step 1's first candidate val item waits for step 2's first rollout (under the
    accepted rule): the other answers settle the strict gate (one right answer beats the
    initial skill's 0), so step 2's rollouts start beside the answer still out."""
    trainer, env = waiting_trainer(tmp_path, ("gate", "val", True), ("rollout", "train", True), num_epochs=1, **STRICT_ONE_RULE)
    summary = trainer.train()
    assert env.waits == [True]
    assert summary.total_accepts >= 1
    # the candidate's val score is still measured on every item and recorded as before
    verdict = json.loads((tmp_path / "steps" / "step_0001" / "gate" / "result.json").read_text())["result"]
    assert verdict["candidate"]["n"] == len(trainer.context().data.val) and verdict["verdict"]["accepted"]
    # and step 2's rollouts were booked to step 2, once each
    booked = Counter((json.loads(line)[2], json.loads(line)[1]) for line in (tmp_path / "usage.jsonl").read_text().splitlines()
                     if json.loads(line)[0] == "b")
    assert booked[("step 2", "target/rollout")] == 8 and booked[("step 1", "target/rollout")] == 8


def test_without_look_ahead_the_next_step_waits_for_every_answer(tmp_path):
    trainer, env = waiting_trainer(tmp_path, ("gate", "val", True), ("rollout", "train", True), num_epochs=1,
                                   engine={"lookahead": False}, **STRICT_ONE_RULE)
    trainer.train()
    assert env.waits == [False]  # the chain: step 2 began only after the waiting answer gave up waiting


def target_calls_by_phase(out) -> dict[tuple[str, str], int]:
    calls: Counter[tuple[str, str]] = Counter()
    for line in (out / "usage.jsonl").read_text().splitlines():
        kind, key, scope = json.loads(line)[:3]
        if kind == "b" and key.startswith("target/"):
            calls[(scope, key.split("/", 1)[1])] += 1
    return dict(calls)


def test_target_calls_per_phase(tmp_path):
    """Two steps of one rule each (strict gate, 8 val and 8 test items, batch 8): every
    target call is the baseline, a step's train rollouts or its candidate on val (the
    current skill's val answers are the previous evaluation's), or a distinct skill on
    test; a step of one edit costs no attribution rollout (without the edit the skill is
    the current one, whose val answers the gate already has)."""
    trainer = make_trainer(tmp_path, num_epochs=1, **STRICT_ONE_RULE)
    summary = trainer.train()
    assert summary.total_accepts == 2
    assert target_calls_by_phase(tmp_path) == {
        ("baseline", "gate"): 8,
        ("step 1", "rollout"): 8, ("step 1", "gate"): 8,
        ("step 2", "rollout"): 8, ("step 2", "gate"): 8,
        ("final", "final_eval"): 16,  # the initial and the best skill on test (the final skill is the best)
    }
    for step in (1, 2):
        saved = json.loads((tmp_path / "steps" / f"step_000{step}" / "attribution.json").read_text())["result"]
        assert saved["rollouts"] == 0 and len(saved["edits"]) == 1
        assert saved["edits"][0]["helped"] == saved["fixed"] and saved["edits"][0]["effect"] == 1.0
