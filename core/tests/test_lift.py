"""The test lift is reported with an interval, over items and (with --seeds) over seeds."""

from __future__ import annotations

import json

import pytest
from engine_helpers import make_trainer

from skillopt.engine.lift import bootstrap_lift, describe, item_differences
from skillopt.records import Rollout, Score


def test_a_consistent_gain_has_an_interval_above_zero_and_noise_one_that_includes_it():
    gain = bootstrap_lift([[1.0] * 15 + [0.0] * 25], seed=1)
    assert gain.delta == pytest.approx(0.375) and 0.2 < gain.low < gain.delta < gain.high < 0.55
    noise = bootstrap_lift([[1.0] * 5 + [-1.0] * 5 + [0.0] * 30], seed=1)
    assert noise.delta == 0.0 and noise.low < 0 < noise.high
    assert "interval includes 0" in describe(noise) and "interval includes 0" not in describe(gain)
    assert bootstrap_lift([[1.0] * 15 + [0.0] * 25], seed=1) == gain  # seeded: the same interval every time
    assert bootstrap_lift([], seed=1) is None


def test_seeds_that_disagree_widen_the_interval_beyond_the_item_bootstrap():
    agree = bootstrap_lift([[0.5] * 20, [0.5] * 20, [0.5] * 20], seed=3)
    disagree = bootstrap_lift([[1.0] * 20, [0.5] * 20, [0.0] * 20], seed=3)
    assert agree.n_seeds == disagree.n_seeds == 3 and agree.n_items == 60
    assert agree.low == agree.high == 0.5  # no variation anywhere
    assert disagree.delta == pytest.approx(0.5) and disagree.high - disagree.low >= 0.5  # the seeds' spread shows


def test_item_differences_pair_items_scored_on_both_sides_only():
    def ro(item, hard, status="ok", repeat=0):
        return Rollout(task_id=item, status=status, repeat=repeat, score=Score(hard=hard, soft=hard))

    initial = [ro("a", 0.0), ro("b", 1.0), ro("c", 0.0, status="error")]
    best = [ro("a", 1.0), ro("a", 0.0, repeat=1), ro("b", 1.0), ro("c", 1.0)]
    assert item_differences(initial, best) == {"a": 0.5, "b": 0.0}  # c failed on one side: left out, never scored 0


def test_a_run_reports_its_test_lift_with_the_interval(tmp_path):
    trainer = make_trainer(tmp_path, num_epochs=1, evaluation={"eval_test": True})
    summary = trainer.train()
    lift = summary.test_lift
    assert lift is not None and lift.n_items == 8
    assert lift.delta == pytest.approx(summary.test["best"].hard - summary.test["initial"].hard)
    assert lift.low <= lift.delta <= lift.high and lift.low > 0  # the toy run learns every rule: 0 -> 1 on all items
    saved = json.loads((tmp_path / "summary.json").read_text())
    assert saved["test_lift"]["delta"] == lift.delta


def test_seeds_run_one_directory_each_and_pool_the_lift(run_cli, toy_registered, tmp_path):
    out = tmp_path / "series"
    args = ["run", "--env", "toy", "--backend", "scripted", "--out", str(out), "--epochs", "1", "--batch-size", "8",
            "--set", "optimizer.use_slow_update=false", "--seeds", "3,5", "--json"]
    first = run_cli(*args)
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert [r["seed"] for r in data["runs"]] == [3, 5] and all(r["status"] == "finished" for r in data["runs"])
    assert data["test_lift"]["n_seeds"] == 2 and data["test_lift"]["n_items"] == 16
    for seed in (3, 5):
        assert json.loads((out / f"seed-{seed}" / "config.json").read_text())["train"]["seed"] == seed
    assert json.loads((out / "seeds_summary.json").read_text()) == data
    assert "seeds done" in " ".join(first.output.split())
    again = run_cli(*args)  # every seed finished: nothing is run again
    assert again.exit_code == 0 and json.loads(again.stdout)["test_lift"] == data["test_lift"]
    clash = run_cli(*args, "--seed", "4")
    assert clash.exit_code != 0 and "drop --seed" in clash.output
    bad = run_cli(*args[:-3], "--seeds", "1,x")
    assert bad.exit_code != 0 and "--seeds takes integers" in bad.output
