"""The deterministic training plan (batches per step) and the learning-rate schedule."""

from __future__ import annotations

import math
import random

from skillopt.config.schema import OptimizerConfig, TrainConfig
from skillopt.engine.seeds import derive_seed
from skillopt.errors import ConfigError
from skillopt.records import Task


def steps_per_epoch(train_size: int, cfg: TrainConfig) -> int:
    return max(1, math.ceil(train_size / (cfg.batch_size * cfg.accumulation)))


def check_train_size(tasks: list[Task], cfg: TrainConfig) -> int:
    if cfg.train_size and cfg.train_size != len(tasks):
        raise ConfigError(
            f"train.train_size={cfg.train_size} but the train split has {len(tasks)} items; "
            "set train_size to 0 (infer) or use env.limit"
        )
    if not tasks:
        raise ConfigError("the train split is empty")
    return len(tasks)


def epoch_batches(tasks: list[Task], cfg: TrainConfig, epoch: int) -> list[list[list[Task]]]:
    """Micro-batches of every step of ``epoch`` (1-based): ``plan[step][micro]``.

    Shuffled with a seed derived from ``(seed, epoch)``; an empty trailing micro-batch
    is refilled from a second shuffle so every step has ``accumulation`` micro-batches.
    """
    order = list(tasks)
    random.Random(derive_seed(cfg.seed, "epoch_order", epoch)).shuffle(order)
    n_steps = steps_per_epoch(len(order), cfg)
    refill = list(tasks)
    random.Random(derive_seed(cfg.seed, "epoch_refill", epoch)).shuffle(refill)
    plan = []
    cursor = 0
    for _ in range(n_steps):
        micro = []
        for _ in range(cfg.accumulation):
            chunk = order[cursor : cursor + cfg.batch_size]
            cursor += cfg.batch_size
            if not chunk:
                chunk = refill[: cfg.batch_size]
                refill = refill[cfg.batch_size :] + refill[: cfg.batch_size]
            micro.append(chunk)
        plan.append(micro)
    return plan


def scheduled_budget(step: int, total_steps: int, cfg: OptimizerConfig) -> int | None:
    """Edit budget B of a 1-based step; None means no clipping.

    Fixes upstream's quirks: the first step gets the full budget (t starts at 0, not
    1/T), the last reaches the minimum, rounding is half-up (not banker's), and an
    optional linear warmup ramps from the minimum.
    """
    if cfg.lr_control_mode == "none" or cfg.lr_scheduler == "autonomous":
        return None
    hi, lo = cfg.learning_rate, min(cfg.min_learning_rate, cfg.learning_rate)
    if cfg.warmup_steps and step <= cfg.warmup_steps:
        return _round(lo + (hi - lo) * step / cfg.warmup_steps)
    if cfg.lr_scheduler == "constant" or total_steps <= 1:
        return hi
    span = max(total_steps - 1 - cfg.warmup_steps, 1)
    t = min(max(step - 1 - cfg.warmup_steps, 0), span) / span
    if cfg.lr_scheduler == "linear":
        value = hi + (lo - hi) * t
    else:  # cosine
        value = lo + 0.5 * (hi - lo) * (1 + math.cos(math.pi * t))
    return max(lo, _round(value))


def _round(x: float) -> int:
    return int(math.floor(x + 0.5))
