"""The ``gate`` stage: looks with repeats (racing), a deterministic target's early
stop, and pairing by item (toy env, scripted models; see toy.py)."""

from __future__ import annotations

import json
import random

from engine_helpers import make_trainer


def load(path):
    return json.loads(path.read_text())


def gate_result(out, step=1):
    return load(out / "steps" / f"step_{step:04d}" / "gate" / "result.json")["result"]


def repeats_run(out, step=1):
    rows = [json.loads(x) for x in (out / "steps" / f"step_{step:04d}" / "gate" / "results.jsonl").read_text().splitlines()]
    return sorted({int(r["key"].split("#r")[1]) for r in rows})


def test_an_undecided_candidate_gets_another_look_and_a_deterministic_target_stops_it(tmp_path):
    # one rule per step fixes 2 of 8 val items: p = 1/4 at the first look, undecided
    make_trainer(tmp_path, num_epochs=1, train={"max_steps": 1}, optimizer={"learning_rate": 1, "min_learning_rate": 1}).train()
    result = gate_result(tmp_path)
    verdict = result["verdict"]
    # 8 items are one round: no race; the full pass, then one more repeat
    assert verdict["looks"] == 2 and verdict["repeats"] == 2 and verdict["action"] == "reject"
    assert repeats_run(tmp_path) == [0, 1]  # the second look was paid, the third was not needed
    assert result["rollouts_saved"] == 2 * 1 * 8


def test_a_coin_flip_target_is_looked_at_with_more_repeats_and_never_accepted(tmp_path):
    """A target right half the time whatever the skill (a sampled model: its draw depends
    on the seed and on the whole prompt): undecided candidates get more repeats, and pure
    noise is not accepted."""
    import re

    from toy import solve

    def coin(request):
        user = request.messages[-1].content
        right = solve(re.search(r"Puzzle kind: (\w+)", user).group(1), re.search(r"Word: (\w+)", user).group(1))
        draw = random.Random(f"{request.seed}:{request.messages[0].content}:{user}").random()
        return right if draw < 0.5 else "no idea"

    looks, accepted = [], 0
    for seed in range(6):
        out = tmp_path / f"seed{seed}"
        # each seed measures the gate afresh: no ledger refusing what an earlier seed rejected
        summary = make_trainer(out, target_script=coin, num_epochs=1, train={"seed": seed}, env={"n_val": 16},
                               optimizer={"rejected_ledger": False}).train()
        accepted += summary.total_accepts
        for path in sorted((out / "steps").glob("step_*/gate/result.json")):
            verdict = load(path)["result"]["verdict"]
            looks.append(verdict["looks"])
            assert repeats_run(out, int(path.parent.parent.name[5:])) == list(range(verdict["repeats"]))
            if verdict["details"].get("raced_items"):  # decided in the race's early round (16 items: 2 rounds of 8)
                assert verdict["repeats"] == 1 and verdict["looks"] == 1
            else:  # the early round, then one look per repeat level
                assert verdict["looks"] == verdict["repeats"] + 1 and verdict["repeats"] <= 3
    assert looks and max(looks) >= 2  # some candidates were worth a second look
    assert accepted == 0


def test_max_repeats_one_decides_at_the_first_look(tmp_path):
    make_trainer(tmp_path, num_epochs=1, train={"max_steps": 1}, optimizer={"learning_rate": 1, "min_learning_rate": 1},
                 evaluation={"gate_max_repeats": 1, "gate_race_rounds": 1}).train()
    assert gate_result(tmp_path)["verdict"]["looks"] == 1 and repeats_run(tmp_path) == [0]


def candidate_items(out, step=1):
    rows = [json.loads(x) for x in (out / "steps" / f"step_{step:04d}" / "gate" / "results.jsonl").read_text().splitlines()]
    return {r["key"] for r in rows}


def test_a_harmful_candidate_is_raced_out_on_a_fraction_of_the_val_items(tmp_path):
    from toy import toy_optimizer

    raced = make_trainer(tmp_path / "raced", optimizer_script=toy_optimizer(harmful=True), num_epochs=1, train={"max_steps": 1},
                         env={"n_val": 40}, optimizer={"learning_rate": 1, "min_learning_rate": 1})
    raced.env.initial_skill = lambda: "- RULE-upper\n- RULE-reverse\n- RULE-double"  # vowels fails: RULE-BAD is proposed
    summary = raced.train()
    verdict = gate_result(tmp_path / "raced")["verdict"]
    assert summary.total_rejects == 1 and verdict["action"] == "reject" and "(raced)" in verdict["reason"]
    ran = len(candidate_items(tmp_path / "raced"))
    assert ran == verdict["details"]["raced_items"] < 40  # the RULE-BAD candidate fails every item: clear at once
    assert gate_result(tmp_path / "raced")["rollouts_saved"] == 40 - ran
    history = load(tmp_path / "raced" / "history.json")
    assert history[-1]["gate_rollouts_saved"] == 40 - ran

    full = make_trainer(tmp_path / "full", optimizer_script=toy_optimizer(harmful=True), num_epochs=1, train={"max_steps": 1},
                        env={"n_val": 40}, optimizer={"learning_rate": 1, "min_learning_rate": 1},
                        evaluation={"gate_race_rounds": 1})
    full.env.initial_skill = raced.env.initial_skill
    assert full.train().total_rejects == 1  # the same decision, at the price of every item
    assert len(candidate_items(tmp_path / "full")) == 40


def test_a_race_round_is_at_least_one_wave_of_workers():
    from skillopt.config.schema import EvaluationConfig
    from skillopt.engine.stages.gate import race_plan
    from skillopt.gates.paired import PairedGate
    from skillopt.records import Task

    class Run:
        seed = 1

        def __init__(self, n, workers=4, evaluation=None):
            self.data = type("D", (), {"val": tuple(Task(id=f"v{i}") for i in range(n))})()
            self.cfg = type("C", (), {"env": type("E", (), {"workers": workers})()})()
            self.gate = PairedGate(evaluation or EvaluationConfig())

    assert race_plan(Run(15)) == []  # one round of 8 only: no race
    rounds = race_plan(Run(24))
    assert [len(r) for r in rounds] == [8, 16]  # three rounds of eight, the last one the full pass
    assert [len(r) for r in race_plan(Run(40))] == [8, 16, 24, 32]
    assert [len(r) for r in race_plan(Run(40, workers=20))] == [20]  # a round fills the workers
    assert race_plan(Run(40, evaluation=EvaluationConfig(gate_race_rounds=1))) == []
    assert rounds[0] == rounds[1][:8]  # growing prefixes of one seeded order


def test_a_candidate_accepted_early_is_scored_on_every_val_item(tmp_path):
    """A race may accept on the first rounds; the score the run keeps (and compares every
    later score with) is still the mean over all val items."""
    trainer = make_trainer(tmp_path, num_epochs=1, train={"max_steps": 1}, env={"n_val": 40, "workers": 4})
    summary = trainer.train()
    result = gate_result(tmp_path)
    assert summary.total_accepts == 1
    if result["verdict"]["details"].get("raced_items"):
        assert result["candidate"]["n"] == 40  # all 40, not the raced subset
    state = load(tmp_path / "runtime_state.json")
    assert state["current_score"] == result["candidate"]["gate_score"] == 1.0


def test_a_changed_gates_section_setting_is_never_answered_by_a_saved_verdict(tmp_path):
    """The gate stage keys its saved verdict by the one gate fingerprint (the ledger's gate
    context): a changed ``[gates.NAME]`` setting changes the key, so a resume under it
    decides again instead of reusing a verdict taken under other settings."""
    import attrs

    from skillopt.engine.context import Current
    from skillopt.engine.stages.gate import gate
    from skillopt.records import skill_hash

    def gate_key(trainer, folder):
        run = trainer.context()
        initial = run.env.initial_skill()
        current = Current(skill=initial, skill_hash=skill_hash(initial), score=0.0)
        gate(run, folder, current, initial + "\n- Answer with the capital city only.\n")
        return load(folder / "result.json")["key"], run.gate_context

    folder = tmp_path / "gate"
    first = make_trainer(tmp_path / "a", num_epochs=1)
    key, context = gate_key(first, folder)
    assert gate_key(make_trainer(tmp_path / "b", num_epochs=1), folder) == (key, context)  # same settings: same key
    changed = make_trainer(tmp_path / "c", num_epochs=1)
    changed.cfg = attrs.evolve(changed.cfg, gates={"paired": {"min_gain": 0.1}})
    changed_key, changed_context = gate_key(changed, folder)
    assert changed_context != context  # the ledger's gate context
    assert changed_key != key  # and the stage's saved verdict
