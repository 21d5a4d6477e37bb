"""Run presets of the spreadsheetbench env (``small`` on a backend declaring a small CPU model,
``full`` elsewhere; ``--preset paper`` is ``full`` with the paper's ``strict`` gate)."""

from __future__ import annotations

from typing import Any

from skillopt.api import small_preset

# On top of the shared small overlay; this env keeps the engine's gradient and learning-rate
# settings and call deadlines. One worker: the local model serialises calls, so with more,
# queued rollouts would spend their deadline waiting for the model lock.
SMALL_PRESET: dict[str, Any] = small_preset(
    env={"mode": "single", "limit": 4, "exec_timeout": 600.0, "max_completion_tokens": 256},
    train={"batch_size": 4},
    gradient={"minibatch_size": 4, "max_trajectory_chars": 1500, "analyst_workers": 16, "failure_only": False, "merge_batch_size": 8,
              "min_failure_edits": 0},
    optimizer={"learning_rate": 4, "min_learning_rate": 2, "lr_scheduler": "cosine"},
    evaluation={"sel_env_num": 4, "test_env_num": 4},
    model={"optimizer": {"max_tokens": 1024, "timeout_s": None}, "target": {"timeout_s": None}},
)

PRESETS: dict[str, dict[str, Any]] = {"small": SMALL_PRESET, "full": {}}
