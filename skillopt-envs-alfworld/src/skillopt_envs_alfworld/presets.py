"""Run presets of the alfworld env.

``full`` (chosen for API backends; ``--preset paper`` is the same with the paper's
``strict`` gate): upstream's rollout settings: 50 steps per episode, the last 2 observation/
action pairs in the prompt, 8 rollout workers; an episode is many calls, so the per-item
deadline is long (30 minutes). Training settings are the engine's defaults. It plays the
bundled simulator games; add ``env.source=alfworld`` for the real ALFWorld games.

``small``: the default on the embedded local model (SmolLM2-135M on a CPU, one call at a
time). An episode costs one call per step, so episodes are short (6 steps, history 1,
replies of 48 tokens): two training steps of 3 games, the gate on 3 val games, the final
evaluations on 6 test games (one per task type), one failure-only analyst call per step.
"""

from __future__ import annotations

from typing import Any

from skillopt.api import small_preset

FULL: dict[str, Any] = {
    "env": {"max_steps": 50, "history": 2, "workers": 8, "exec_timeout": 1800.0},
}

# on top of the shared small overlay; the schedule and call deadlines stay the engine's
SMALL = small_preset(
    train={"batch_size": 3, "max_steps": 2},
    gradient={"minibatch_size": 4, "max_trajectory_chars": 2000},
    optimizer={"lr_scheduler": "cosine"},
    evaluation={"sel_env_num": 3, "test_env_num": 6},
    env={"max_steps": 6, "history": 1, "max_completion_tokens": 48, "exec_timeout": 900.0},
    model={"optimizer": {"timeout_s": None}, "target": {"timeout_s": None}, "schema_retries": 1},
)

PRESETS: dict[str, dict[str, Any]] = {"small": SMALL, "full": FULL}
