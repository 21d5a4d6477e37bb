"""Run presets of the livemath env (``small`` on a backend declaring a small CPU model,
``full`` elsewhere; ``--preset paper`` is ``full`` with the paper's ``strict`` gate)."""

from __future__ import annotations

from typing import Any

from skillopt.api import small_preset

# A few minutes on the embedded 135M model: two steps of eight items, small gate and test
# subsets, failure-only reflection, bounded replies and one schema re-ask (a 135M optimizer
# that misses the schema once rarely hits it on the third try); `paper` keeps the defaults.
# One rollout worker: the local model serves one call at a time, so more workers only queue
# behind its lock and spend their deadline waiting. On top of the shared local overlay, this
# env keeps the cosine schedule, the default deadlines and no minimum of failure edits.
SMALL_PRESET: dict[str, Any] = small_preset(
    train={"batch_size": 8, "max_steps": 2},
    gradient={"minibatch_size": 4, "max_trajectory_chars": 1500, "analyst_workers": 2, "min_failure_edits": 0},
    optimizer={"lr_scheduler": "cosine"},
    evaluation={"sel_env_num": 8, "test_env_num": 16},
    env={"max_completion_tokens": 96, "exec_timeout": 300.0},
    model={"optimizer": {"timeout_s": None}, "target": {"timeout_s": None}, "schema_retries": 1},
)

PRESETS: dict[str, dict[str, Any]] = {"small": SMALL_PRESET, "full": {}}
