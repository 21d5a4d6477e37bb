"""A step's rollouts as a person reads them: every item with its score and feedback,
failures first, the full conversation on demand, and on val which items the step's
candidate fixed or broke against the skill it was compared with.

Where they are: a step's train rollouts in ``steps/step_NNNN/rollout/results.jsonl``,
its candidate's val rollouts in ``steps/step_NNNN/gate/results.jsonl``, and the
current skill's val rollouts wherever ``score_book.json`` says that skill was
evaluated (the gate verdict names its hash). The final evaluation's test rollouts are
``final_eval/test_{initial,best,final}``. Each ``results.jsonl`` line holds one
repeat of one item (``{"key", "skill_hash", "rollout"}``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skillopt.redact import redact_data
from skillopt.ui.runs import as_mapping, planted_link, read_json, stage_result

#: the splits a step has rollouts for
SPLITS = ("train", "val")
#: the final evaluation's rollouts, by which skill ran them
FINAL = ("initial", "best", "final")


def read_results(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Rollouts of an evaluation folder by item id (one entry per repeat); lines that
    are not JSON objects (a torn write) are skipped."""
    file = folder / "results.jsonl"
    out: dict[str, list[dict[str, Any]]] = {}
    if not file.is_file() or planted_link(file):
        return out
    try:
        lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return out
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        rollout = as_mapping(as_mapping(entry).get("rollout"))
        task_id = rollout.get("task_id")
        if isinstance(task_id, str) and task_id:
            out.setdefault(task_id, []).append(rollout)
    return out


def _score(rollouts: list[dict[str, Any]], key: str) -> float | None:
    values = [v for r in rollouts if r.get("status", "ok") == "ok" and isinstance(v := as_mapping(r.get("score")).get(key), (int, float))]
    return sum(values) / len(values) if values else None


def _item(task_id: str, rollouts: list[dict[str, Any]], before: list[dict[str, Any]] | None) -> dict[str, Any]:
    first = rollouts[0]
    hard = _score(rollouts, "hard")
    row: dict[str, Any] = {
        "id": task_id,
        "task_type": first.get("task_type", ""),
        "hard": hard,
        "soft": _score(rollouts, "soft"),
        "repeats": len(rollouts),
        "status": first.get("status", "ok"),
        "error": first.get("error", ""),
        "feedback": as_mapping(first.get("score")).get("feedback", ""),
        "prediction": str(first.get("prediction", ""))[:400],
        "turns": len(first.get("turns") or []),
    }
    if before is not None:
        was = _score(before, "hard")
        row["before"] = was
        row["flip"] = _flip(was, hard)
    return row


def _flip(before: float | None, after: float | None) -> str:
    if before is None or after is None:
        return ""
    if before < 0.5 <= after:
        return "fixed"
    if after < 0.5 <= before:
        return "broke"
    return ""


def step_folders(path: Path, step: int, split: str) -> tuple[Path, Path | None] | None:
    """(the rollouts' folder, the folder to compare with or None) for a step's split,
    or for ``step == 0`` the final evaluation (``split`` one of :data:`FINAL`, compared
    with the initial skill)."""
    if step == 0:
        if split not in FINAL:
            return None
        folder = path / "final_eval" / f"test_{split}"
        return folder, (path / "final_eval" / "test_initial" if split != "initial" else None)
    step_dir = path / "steps" / f"step_{int(step):04d}"
    if split == "train":
        return step_dir / "rollout", None
    if split == "val":
        gate = as_mapping(stage_result(step_dir / "gate" / "result.json"))
        current_hash = as_mapping(gate.get("current")).get("skill_hash", "")
        return step_dir / "gate", _evaluated(path, "val", current_hash)
    return None


def _evaluated(path: Path, split: str, skill: str) -> Path | None:
    """The folder where ``skill`` was evaluated on ``split`` (``score_book.json``)."""
    book = as_mapping(read_json(path / "score_book.json"))
    for key, entry in book.items():
        parts = str(key).split(":")
        folder = as_mapping(entry).get("dir")
        if len(parts) == 3 and parts[0] == split and parts[1] == skill and isinstance(folder, str) and skill:
            found = (path / folder).resolve()
            root = path.resolve()
            return found if found.is_relative_to(root) else None  # never outside the run
    return None


def items(path: Path, step: int, split: str) -> dict[str, Any] | None:
    """Every item of a step's split, failures first, with flips against the compared skill."""
    folders = step_folders(path, step, split)
    if folders is None:
        return None
    folder, compare = folders
    results = read_results(folder)
    if not results and not folder.is_dir():
        return None
    before = read_results(compare) if compare is not None else None
    rows = [_item(task_id, rollouts, (before or {}).get(task_id) if before is not None else None)
            for task_id, rollouts in results.items()]
    rows.sort(key=lambda r: (r["hard"] if r["hard"] is not None else -1.0, r["id"]))
    flips = {kind: sum(1 for r in rows if r.get("flip") == kind) for kind in ("fixed", "broke")}
    shown: dict[str, Any] = redact_data({"step": step, "split": split, "compared": before is not None, "items": rows, "flips": flips})
    return shown


def conversation(path: Path, step: int, split: str, task_id: str, side: str = "candidate") -> dict[str, Any] | None:
    """One item's full rollout (every repeat's turns, score, feedback); ``side`` is
    ``before`` for the compared skill's rollout of the same item."""
    folders = step_folders(path, step, split)
    if folders is None:
        return None
    folder = folders[1] if side == "before" else folders[0]
    if folder is None:
        return None
    rollouts = read_results(folder).get(task_id)
    if not rollouts:
        return None
    shown: dict[str, Any] = redact_data({"id": task_id, "side": side, "repeats": rollouts})
    return shown
