"""Recall: yesterday's train tasks that resemble tonight's, from *this project's* archive.

Each night archives its mined tasks in the per-project state. With ``--recall-k K``
the K archived **train** tasks most similar to tonight's train intents (the same
similarity the miner clusters with) join tonight's train split. Val and test tasks
are never recalled, and the archive is per project (upstream recalled from one global
archive shared by every project, by bag-of-words overlap).
"""

from __future__ import annotations

from skillopt.api import from_data
from skillopt_sleep.mine.cluster import features, similarity
from skillopt_sleep.mine.tasks import Check, Lesson, SleepTask


def _task(row: dict) -> SleepTask | None:
    try:
        checks = tuple(from_data(c, Check) for c in row.get("checks", []))
    except Exception:  # noqa: BLE001 - an old or damaged archive row is skipped
        return None
    lessons = tuple(Lesson(text=t, kind="recalled") for t in row.get("lessons", []) if isinstance(t, str))
    if not checks or not row.get("intent"):
        return None
    return SleepTask(
        id=f"recall:{row['id']}",
        intent=row["intent"],
        checks=checks,
        lessons=lessons,
        split="train",
        origin="recall",
        support=int(row.get("support") or 1),
        sources=tuple(row.get("sources") or ()),
    )


def recall(archive: list[dict], tonight: list[SleepTask], k: int) -> list[SleepTask]:
    if k <= 0:
        return []
    train = [t for t in tonight if t.split == "train"]
    if not train:
        return []
    known = {t.id for t in tonight}
    held_out = {row["id"] for row in archive if row.get("split") in ("val", "test")} | {
        t.id for t in tonight if t.split != "train"
    }
    feats = [features(t.intent) for t in train]
    scored = []
    seen: set[str] = set()
    for row in reversed(archive):  # newest first
        if row.get("split") != "train" or row.get("id") in known or row.get("id") in held_out or row.get("id") in seen:
            continue
        seen.add(row["id"])
        task = _task(row)
        if task is None:
            continue
        f = features(task.intent)
        scored.append((max(similarity(f, g) for g in feats), task))
    scored.sort(key=lambda pair: -pair[0])
    return [task for score, task in scored[:k] if score > 0]
