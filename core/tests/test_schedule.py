"""Learning-rate schedules and the deterministic data plan."""

from __future__ import annotations

import pytest

from skillopt.config.schema import OptimizerConfig, TrainConfig
from skillopt.engine.plan import epoch_batches, scheduled_budget, steps_per_epoch
from skillopt.records import Task


def seq(total, **kw):
    cfg = OptimizerConfig(**kw)
    return [scheduled_budget(s, total, cfg) for s in range(1, total + 1)]


def test_constant():
    assert seq(5, lr_scheduler="constant") == [4] * 5


def test_linear_starts_at_max_and_ends_at_min():
    assert seq(5, lr_scheduler="linear") == [4, 4, 3, 3, 2]


def test_cosine_starts_at_max_and_ends_at_min_with_half_up_rounding():
    assert seq(8) == [4, 4, 4, 3, 3, 2, 2, 2]
    assert seq(1) == [4]


def test_warmup_ramps_from_the_minimum():
    assert seq(6, lr_scheduler="constant", warmup_steps=2, learning_rate=6, min_learning_rate=2) == [4, 6, 6, 6, 6, 6]


@pytest.mark.parametrize("kw", [{"lr_scheduler": "autonomous"}, {"lr_control_mode": "none"}])
def test_no_clipping_modes(kw):
    assert seq(3, **kw) == [None, None, None]


def tasks(n):
    return [Task(id=f"t{i}") for i in range(n)]


def test_epoch_plan_is_seeded_covers_every_item_and_differs_between_epochs():
    cfg = TrainConfig(batch_size=4, seed=1)
    e1, e1b, e2 = epoch_batches(tasks(10), cfg, 1), epoch_batches(tasks(10), cfg, 1), epoch_batches(tasks(10), cfg, 2)
    assert e1 == e1b and e1 != e2
    assert steps_per_epoch(10, cfg) == 3 == len(e1)
    assert sorted(t.id for step in e1 for micro in step for t in micro) == sorted(t.id for t in tasks(10))


def test_accumulation_refills_an_empty_trailing_micro_batch():
    cfg = TrainConfig(batch_size=4, accumulation=2)
    plan = epoch_batches(tasks(6), cfg, 1)
    assert len(plan) == 1 and [len(m) for m in plan[0]] == [4, 2]
    plan = epoch_batches(tasks(4), cfg, 1)
    assert [len(m) for m in plan[0]] == [4, 4]


def test_derived_seeds_never_collide_across_steps_stages_or_micro_batches():
    """Seeds were sums of offsets (seed + 1000*epoch + 10*step + micro): step 1 of one
    layout drew the same numbers as step 11 of another. A hash has no such sums."""
    from skillopt.engine.seeds import derive_seed

    uses = [(stage, epoch, step, micro) for stage in ("rollout", "reflect", "optimizer") for epoch in range(1, 5)
            for step in range(40) for micro in range(4)]
    seeds = [derive_seed(42, stage, epoch, step, micro) for stage, epoch, step, micro in uses]
    assert len(set(seeds)) == len(seeds)
    assert derive_seed(42, "rollout", 1, 1, 0) == derive_seed(42, "rollout", 1, 1, 0)  # and stay put across resumes
    assert derive_seed(42, "rollout", 1, 1) != derive_seed(42, "rollout", 1, 11)
