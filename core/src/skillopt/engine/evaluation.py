"""Scoring skills on a split, memoised by skill content.

Every skill version is scored on the *same* items with the *same* per-item seeds, so
gates compare like with like, and a skill that was scored once (the baseline, an
accepted candidate) is never re-rolled: the score book maps (split, skill hash,
repeats, item set) to per-item scores and survives resume.
"""

from __future__ import annotations

import hashlib
import threading
from collections import Counter, defaultdict
from pathlib import Path

from skillopt.gates import Evaluation
from skillopt.records import Rollout, Task, skill_hash
from skillopt.engine.rundir import read_json, write_json


def items_fingerprint(tasks: list[Task]) -> str:
    return hashlib.sha256("\n".join(t.id for t in tasks).encode()).hexdigest()[:12]


class ScoreBook:
    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()
        self._data: dict[str, dict] = read_json(path, {}) or {}

    @staticmethod
    def key(split: str, h: str, repeats: int, fp: str) -> str:
        return f"{split}:{h}:r{repeats}:{fp}"

    def get(self, key: str) -> dict | None:
        with self._lock:
            return self._data.get(key)

    def put(self, key: str, entry: dict) -> None:
        with self._lock:
            self._data[key] = entry
            write_json(self.path, self._data)


def to_evaluation(skill: str, split: str, rollouts: list[Rollout]) -> Evaluation:
    items: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for ro in rollouts:
        items[ro.task_id].append((float(ro.score.hard), float(ro.score.soft)))
    return Evaluation(skill=skill, skill_hash=skill_hash(skill), split=split, items=dict(items))


def breakdown(rollouts: list[Rollout]) -> dict[str, dict[str, float]]:
    """Per task type: count, hard and soft means, errors."""
    groups: dict[str, list[Rollout]] = defaultdict(list)
    for ro in rollouts:
        groups[ro.task_type].append(ro)
    out = {}
    for kind, rows in sorted(groups.items()):
        out[kind] = {
            "total": len(rows),
            "hard": sum(r.score.hard for r in rows) / len(rows),
            "soft": sum(r.score.soft for r in rows) / len(rows),
            "errors": sum(1 for r in rows if r.status != "ok"),
        }
    return out


class Evaluator:
    def __init__(self, runner, book: ScoreBook, *, seed: int):
        self.runner = runner
        self.book = book
        self.seed = seed

    def load_rollouts(self, skill: str, tasks: list[Task], *, split: str, repeats: int = 1) -> list[Rollout]:
        """The rollouts behind a memoised evaluation (re-read from its folder)."""
        entry = self.book.get(ScoreBook.key(split, skill_hash(skill), repeats, items_fingerprint(tasks)))
        if entry is None:
            raise KeyError(f"no {split} evaluation recorded for this skill")
        return self.runner.run(tasks, skill, Path(entry["dir"]), training=False, seed=self.seed + 7, repeats=repeats, label=f"{split} eval")

    def evaluate(self, skill: str, tasks: list[Task], out_dir: Path, *, split: str, repeats: int = 1, label: str = "") -> tuple[Evaluation, list[Rollout] | None]:
        """Score ``skill`` on ``tasks``; returns the evaluation and the rollouts when run now."""
        h = skill_hash(skill)
        key = ScoreBook.key(split, h, repeats, items_fingerprint(tasks))
        entry = self.book.get(key)
        if entry is not None:
            items = {k: [tuple(x) for x in v] for k, v in entry["items"].items()}
            return Evaluation(skill=skill, skill_hash=h, split=split, items=items), None
        rollouts = self.runner.run(
            tasks, skill, out_dir, training=False, seed=self.seed + 7, repeats=repeats, label=label or f"{split} eval"
        )
        evaluation = to_evaluation(skill, split, rollouts)
        statuses = Counter(r.status for r in rollouts)
        self.book.put(
            key,
            {
                "items": {k: [list(x) for x in v] for k, v in evaluation.items.items()},
                "dir": str(out_dir),
                "hard": evaluation.hard,
                "soft": evaluation.soft,
                "errors": sum(n for s, n in statuses.items() if s != "ok"),
            },
        )
        return evaluation, rollouts
