"""Several runs side by side: their curves, what differs in their configs, their final
scores. Shared by the dashboard's comparison view and ``skillopt report``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skillopt.ui import runs

#: history fields the curves use (the rest of a step record stays on the run page)
CURVE_KEYS = ("step", "epoch", "action", "current_score", "candidate_gate_score", "best_score", "rollout_hard",
              "edit_budget", "prompt_tokens", "completion_tokens", "cost_usd")
#: config keys that differ between any two runs but say nothing about the training
NOT_SETTINGS = frozenset({"out_dir"})


def flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}}`` as ``{"a.b": 1}``; lists stay values."""
    if not isinstance(data, dict):
        return {prefix: data} if prefix else {}
    out: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict) and value:
            out.update(flatten(value, dotted))
        else:
            out[dotted] = value
    return out


def config_diff(configs: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Each setting whose value is not the same in every run: ``{"key", "values": {run: value}}``
    (a run without the key shows None)."""
    flat = {run_id: flatten(config) for run_id, config in configs.items()}
    keys = sorted({k for f in flat.values() for k in f} - NOT_SETTINGS)
    rows = []
    for key in keys:
        values = {run_id: f.get(key) for run_id, f in flat.items()}
        if len({repr(v) for v in values.values()}) > 1:
            rows.append({"key": key, "values": values})
    return rows


def curve(history: list[dict[str, Any]], baseline: Any = None) -> list[dict[str, Any]]:
    """The history's chart fields, from step 0 (the initial skill's baseline) when known."""
    start = [{"step": 0, "current_score": baseline, "best_score": baseline}] if isinstance(baseline, (int, float)) else []
    return start + [{k: h.get(k) for k in CURVE_KEYS} for h in history]


def comparison(found: dict[str, Path]) -> dict[str, Any]:
    """Runs by id -> their overviews, curves, config differences and final scores."""
    details = {run_id: runs.detail(run_id, path) for run_id, path in found.items()}
    return {
        "runs": [d["overview"] for d in details.values()],
        "curves": {run_id: curve(d["history"], d["overview"]["baseline_val"]) for run_id, d in details.items()},
        "config_diff": config_diff({run_id: d["config"] for run_id, d in details.items()}),
        "test_by_type": {run_id: runs.as_mapping(d["summary"].get("test")) for run_id, d in details.items()},
    }
