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
        summary = make_trainer(out, target_script=coin, num_epochs=1, train={"seed": seed}, env={"n_val": 16}).train()
        accepted += summary.total_accepts
        for path in sorted((out / "steps").glob("step_*/gate/result.json")):
            verdict = load(path)["result"]["verdict"]
            looks.append(verdict["looks"])
            assert repeats_run(out, int(path.parent.parent.name[5:])) == list(range(verdict["repeats"]))
            assert verdict["repeats"] == verdict["looks"] <= 3
    assert looks and max(looks) >= 2  # some candidates were worth a second look
    assert accepted == 0


def test_max_repeats_one_decides_at_the_first_look(tmp_path):
    make_trainer(tmp_path, num_epochs=1, train={"max_steps": 1}, optimizer={"learning_rate": 1, "min_learning_rate": 1},
                 evaluation={"gate_max_repeats": 1}).train()
    assert gate_result(tmp_path)["verdict"]["looks"] == 1 and repeats_run(tmp_path) == [0]
