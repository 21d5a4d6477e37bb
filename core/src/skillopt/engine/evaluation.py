"""Scoring skills on a split, memoised by skill content.

Every skill version is scored on the *same* items with the *same* per-item seeds, so
gates compare like with like. The score book maps (split, skill hash, item set) to the
folder holding that skill's rollouts; the rollouts' own ``results.jsonl`` is the memo,
so a skill scored once (the baseline, an accepted candidate) is never re-rolled, a
gate that asks for more repeats adds only the new ones, and items that were missing
(provider errors) are asked again the next time the skill is evaluated.
"""

from __future__ import annotations

import hashlib
import threading
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillopt.engine.rundir import RunFileError, move_aside, read_json, write_json
from skillopt.engine.seeds import derive_seed
from skillopt.gates import Evaluation
from skillopt.records import Rollout, Task, skill_hash

if TYPE_CHECKING:
    from skillopt.engine.rollouts import RolloutRunner, Watch


def items_fingerprint(tasks: list[Task]) -> str:
    return hashlib.sha256("\n".join(t.id for t in tasks).encode()).hexdigest()[:12]


class ScoreBook:
    """``score_book.json``: where each (split, skill, item set) evaluation lives."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._data: dict[str, dict[str, Any]] = self._load(path)

    @staticmethod
    def _load(path: Path) -> dict[str, dict[str, Any]]:
        """The saved book; a damaged one is moved aside and started afresh, which costs
        nothing: each evaluation folder's log still holds its finished items."""
        try:
            data = read_json(path, {}, expect=dict) or {}
        except RunFileError as exc:
            from skillopt.report import warn

            aside = move_aside(path)
            warn(f"{exc.args[0].split(';')[0]}; started a new one (evaluations re-use their saved items; "
                 f"the damaged copy is {aside.name})")
            return {}
        return data

    @staticmethod
    def key(split: str, h: str, fp: str) -> str:
        return f"{split}:{h}:{fp}"

    def folder(self, key: str) -> Path | None:
        with self._lock:
            entry = self._data.get(key)
        if not isinstance(entry, dict) or not entry.get("dir"):
            return None
        return self.path.parent / str(entry["dir"])  # relative to the run directory (absolute stays absolute)

    def put(self, key: str, folder: Path) -> None:
        try:
            shown = str(Path(folder).relative_to(self.path.parent))
        except ValueError:
            shown = str(folder)
        with self._lock:
            if self._data.get(key, {}).get("dir") == shown:
                return
            self._data[key] = {"dir": shown}
            write_json(self.path, self._data)


def to_evaluation(skill: str, split: str, rollouts: list[Rollout]) -> Evaluation:
    items: dict[str, list[tuple[float, float]]] = defaultdict(list)
    missing: dict[str, str] = {}
    types: dict[str, str] = {}
    for ro in rollouts:
        types[ro.task_id] = ro.task_type
        if ro.missing:
            missing.setdefault(ro.task_id, (ro.error or ro.status).strip().splitlines()[0][:200] if (ro.error or ro.status).strip() else ro.status)
            continue
        items[ro.task_id].append((float(ro.score.hard), float(ro.score.soft)))
    missing = {k: v for k, v in missing.items() if k not in items}
    return Evaluation(skill=skill, skill_hash=skill_hash(skill), split=split, items=dict(items), missing=missing, task_types=types)


def breakdown(rollouts: list[Rollout]) -> dict[str, dict[str, float]]:
    """Per task type: count, hard and soft means over scored rollouts, and missing ones."""
    groups: dict[str, list[Rollout]] = defaultdict(list)
    for ro in rollouts:
        groups[ro.task_type].append(ro)
    out = {}
    for kind, rows in sorted(groups.items()):
        scored = [r for r in rows if not r.missing]
        out[kind] = {
            "total": len(rows),
            "hard": sum(r.score.hard for r in scored) / len(scored) if scored else 0.0,
            "soft": sum(r.score.soft for r in scored) / len(scored) if scored else 0.0,
            "errors": len(rows) - len(scored),
        }
    return out


class Evaluator:
    def __init__(self, runner: RolloutRunner, book: ScoreBook, *, seed: int) -> None:
        self.runner = runner
        self.book = book
        self.seed = seed

    def home(self, skill: str, tasks: list[Task], folder: Path, *, split: str) -> None:
        """Evaluations of ``skill`` on ``tasks`` go to ``folder`` unless they have a folder
        already: a race scores a candidate on a prefix of the items there, and the gate's
        full pass then adds only the items it lacks."""
        key = ScoreBook.key(split, skill_hash(skill), items_fingerprint(tasks))
        if self.book.folder(key) is None:
            self.book.put(key, folder)

    def evaluate(
        self, skill: str, tasks: list[Task], out_dir: Path, *, split: str, repeats: int = 1, label: str = "", client: Any = None,
        watch: Watch | None = None,
    ) -> tuple[Evaluation, list[Rollout]]:
        """Score ``skill`` on ``tasks`` (running only what its folder lacks; ``watch``: see
        :meth:`~skillopt.engine.rollouts.RolloutRunner.run`)."""
        key = ScoreBook.key(split, skill_hash(skill), items_fingerprint(tasks))
        folder = self.book.folder(key) or out_dir
        self.book.put(key, folder)
        rollouts = self.runner.run(
            tasks, skill, folder, training=False, seed=derive_seed(self.seed, "eval", split), repeats=repeats,
            label=label or f"{split} eval", client=client, split=split, watch=watch,
        )
        return to_evaluation(skill, split, rollouts), rollouts
