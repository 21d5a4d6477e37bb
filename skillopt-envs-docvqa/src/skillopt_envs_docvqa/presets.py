"""Run presets of DocVQA.

``full`` (chosen for API backends; ``--preset paper`` is the same with the paper's
``strict`` gate): upstream's rollout (the page image as a data URL, ``env.input = image``) with
the engine's default training schedule, 16 rollout workers and a 120 s per-item limit.

``small``: the default on the embedded local model (SmolLM2-135M, text-only, one call at
a time on a CPU). The page goes in as OCR text lines; three training steps of 8 questions,
one failure-only analyst call per step over trajectories clipped to 1200 characters, replies
capped at 48 tokens (an answer is a short value), at most 2 edits per step, the gate on 12
val questions and the final evaluations on 24 test questions. Local calls get a 300 s
deadline and items 600 s, as in the SearchQA preset (a retried slow call only repeats the
same work on a busy CPU).
"""

from __future__ import annotations

from typing import Any

from skillopt.api import small_preset

FULL: dict[str, Any] = {
    "env": {"input": "image", "workers": 16, "exec_timeout": 120.0},
}

# On top of the shared local overlay (small_preset); no minimum of failure edits here.
SMALL: dict[str, Any] = small_preset(
    train={"batch_size": 8, "max_steps": 3},
    gradient={"minibatch_size": 8, "max_trajectory_chars": 1200, "min_failure_edits": 0},
    optimizer={"max_skill_chars": 4000},
    evaluation={"sel_env_num": 12, "test_env_num": 24},
    env={"input": "ocr", "exec_timeout": 600.0, "max_completion_tokens": 48, "max_ocr_chars": 2500},
)

PRESETS: dict[str, dict[str, Any]] = {"small": SMALL, "full": FULL}
