"""What experiment trackers log (MLflow, W&B observers): the same numbers under the same
names whichever tracker a user picks, and a small memory in the run directory so a
resumed run logs into the same tracker run without logging a step twice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: StepRecord fields every tracker charts, per step
STEP_FIELDS = ("current_score", "best_score", "candidate_gate_score", "rollout_hard", "rollout_soft", "edit_budget",
               "n_edits_proposed", "n_edits_selected", "n_edits_applied", "prompt_tokens", "completion_tokens", "calls",
               "cost_usd", "cached_calls", "cached_tokens", "cached_cost_usd", "wall_time_s")


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def step_metrics(step: Any) -> dict[str, float]:
    """A step's numbers (``accepted`` is 1 when the step kept its candidate); fields a step
    did not reach (no gate ran) are left out rather than logged as 0."""
    from skillopt.serde import to_data

    data = to_data(step) if not isinstance(step, dict) else step
    out = {key: v for key in STEP_FIELDS if (v := _number(data.get(key))) is not None}
    action = str(data.get("action", ""))
    out["accepted"] = 1.0 if action.startswith(("accept", "force_accept")) else 0.0
    return out


def summary_metrics(summary: Any) -> dict[str, float]:
    """A finished run's headline numbers: val baseline and best, test initial / best /
    final (hard), spend; for an evaluation (a dict), its own scores."""
    from skillopt.serde import to_data

    data = to_data(summary) if not isinstance(summary, dict) else summary
    val, test, usage = data.get("val") or {}, data.get("test") or {}, data.get("usage") or {}
    pairs = {
        "val_baseline": val.get("baseline_gate_score"), "val_best": val.get("best_gate_score"),
        "val_final": val.get("final_gate_score"), "steps_completed": data.get("steps_completed"),
        "accepts": data.get("total_accepts"), "cost_usd_total": usage.get("cost_usd"), "requests": usage.get("requests"),
        "prompt_tokens_total": usage.get("prompt_tokens"), "completion_tokens_total": usage.get("completion_tokens"),
        "cached_calls_total": usage.get("cached_calls"), "cached_tokens_total": usage.get("cached_tokens"),
        "hard": data.get("hard"), "soft": data.get("soft"),  # an evaluation's
    }
    for which in ("initial", "best", "final"):
        pairs[f"test_{which}_hard"] = (test.get(which) or {}).get("hard")
    pick = data.get("selection") or {}
    if pick:  # the final pick (search.select, evaluation.selection_split)
        objectives = pick.get("objectives") or {}
        pairs.update({"selection_accuracy": objectives.get("accuracy"), "selection_skill_tokens": objectives.get("skill_tokens"),
                      "selection_rollout_tokens": objectives.get("rollout_tokens"), "selection_items": pick.get("n_items"),
                      "selection_finalists": pick.get("finalists"), "selection_on_front": pick.get("on_front")})
    return {key: v for key, value in pairs.items() if (v := _number(value)) is not None}


def summary_tags(summary: Any) -> dict[str, str]:
    """A finished run's words trackers keep beside its numbers: how the final skill was
    picked (``selection_rule``, ``selection_split``: ``selection`` when no gate decision used
    its items, ``selection_origin``); {} when the best gate score simply won."""
    from skillopt.serde import to_data

    data = to_data(summary) if not isinstance(summary, dict) else summary
    pick = data.get("selection") or {}
    if not pick:
        return {}
    return {"selection_rule": str(pick.get("rule", "")), "selection_split": str(pick.get("split", "")),
            "selection_origin": str(pick.get("origin", ""))}


def flat_params(config: dict[str, Any], limit: int = 500) -> dict[str, str]:
    """The run's (redacted) config as dotted ``key: text`` pairs, each value clipped to
    ``limit`` characters (trackers cap parameter values)."""
    out: dict[str, str] = {}

    def walk(node: Any, prefix: str) -> None:
        if isinstance(node, dict) and node:
            for key, value in node.items():
                walk(value, f"{prefix}.{key}" if prefix else str(key))
        elif prefix:
            out[prefix] = (node if isinstance(node, str) else json.dumps(node, default=str))[:limit]

    walk(config, "")
    return out


def tracker_memory(out_dir: Path | str, tracker: str) -> dict[str, Any]:
    """What a tracker remembered in this run directory (``tracking/<tracker>.json``): its
    run id, the last step it logged. Empty when none (a damaged file counts as none)."""
    try:
        data = json.loads((Path(out_dir) / "tracking" / f"{tracker}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def remember(out_dir: Path | str, tracker: str, **values: Any) -> dict[str, Any]:
    """Update the tracker's memory in the run directory; returns the whole memory."""
    from skillopt.fsio import write_atomic

    data = {**tracker_memory(out_dir, tracker), **values}
    path = Path(out_dir) / "tracking" / f"{tracker}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(data, indent=2))
    return data
