"""Run presets of OfficeQA.

``full`` (chosen for API backends; ``--preset paper`` is the same with the paper's
``strict`` gate): upstream's settings: the multi-turn tool loop with 24 model turns per item,
the gold pages also given in the prompt (upstream's default "oracle parsed pages"), tools
restricted to the item's source files, 4 rollout workers, exact-match scoring only (no
numeric match), and the engine's training defaults.

``small``: the default on the embedded local model (SmolLM2-135M, 8k context, one call at a
time on a CPU). A 135M model cannot drive a tool protocol, so it answers in ``oracle`` mode
(one call, the gold pages in the prompt, capped at 3000 characters), with 48-token replies,
two training steps of 6 items, 6 val and 8 test items, failure-only reflection and no slow
update or meta skill.
"""

from __future__ import annotations

from typing import Any

from skillopt.api import small_preset

FULL: dict[str, Any] = {
    "env": {"mode": "tools", "max_tool_turns": 24, "oracle_pages": True, "restrict_to_source_files": True,
            "numeric_match": False, "workers": 4},
}  # fmt: skip

# on top of the shared small overlay; no forced failure edit and the engine's call deadlines
SMALL = small_preset(
    train={"batch_size": 6, "max_steps": 2},
    gradient={"minibatch_size": 6, "max_trajectory_chars": 1200, "min_failure_edits": 0},
    evaluation={"sel_env_num": 6, "test_env_num": 8},
    env={"mode": "oracle", "oracle_page_chars": 3000, "oracle_total_chars": 3000, "max_completion_tokens": 48, "exec_timeout": 300.0},
    model={"optimizer": {"timeout_s": None}, "target": {"timeout_s": None}, "schema_retries": 1},
)

PRESETS: dict[str, dict[str, Any]] = {"small": SMALL, "full": FULL}
