"""Run presets of SearchQA.

``full`` (chosen for API backends; ``--preset paper`` is the same with the paper's
``strict`` gate): the paper's settings (the engine's defaults: 4 epochs, batch 40, minibatch 8,
learning rate 4 with a cosine schedule, slow update and meta skill) on the real data
(``env.data = "real"``: the materialized split or ``env.data_path``), with upstream's
rollout settings (24 workers, 120 s per item, 16384 completion tokens, no worked example).

``small``: the default on the embedded local model (SmolLM2-135M, 8192-token context,
one call at a time on a CPU). It runs on the bundled sample and is sized to finish in a
few minutes on 2 cores: three training steps of 8 items, one failure-only analyst call
per step over the step's trajectories clipped to 800 characters each (the prompt stays
near 3k tokens, under 6k in the worst case), replies capped at 512 tokens, at most 2
edits per step (so no merge or ranking call), the gate on 16 val items, the final
evaluations on 32 test items. Local calls get a 300 s deadline: a call past its deadline
is retried from scratch, which on a busy CPU only repeats the same slow work; the
per-item limit (600 s) stays above it, since a rollout abandoned at its limit keeps the
model busy and the next items would time out queueing behind it. The settings every env's
``small`` shares come from :func:`~skillopt.api.small_preset`; the ones below are SearchQA's.
"""

from __future__ import annotations

from typing import Any

from skillopt.api import small_preset

FULL: dict[str, Any] = {
    "env": {"data": "real", "workers": 24, "exec_timeout": 120.0, "demo": False},
}

SMALL: dict[str, Any] = small_preset(
    train={"batch_size": 8, "max_steps": 3},
    gradient={"minibatch_size": 8, "max_trajectory_chars": 800},
    optimizer={"max_skill_chars": 4000},
    evaluation={"sel_env_num": 16, "test_env_num": 32},
    env={"data": "sample", "exec_timeout": 600.0, "max_completion_tokens": 64, "max_context_chars": 1500},
)

PRESETS: dict[str, dict[str, Any]] = {"small": SMALL, "full": FULL}
