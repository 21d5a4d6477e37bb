"""Train / val / test assignment by *session*, identical on every path.

A session's split is a hash of ``seed:session_id``, so it never changes between
nights or between ``run``, ``harvest`` and handoff (upstream let two paths ignore the
val/test fractions). Tasks are built per (intent cluster, split), so a recurring
intent seen in train and in val sessions yields a train task and a separate val task:
lessons are learned from train sessions and checked against val sessions' own
evidence — nothing from one split can leak into another.
"""

from __future__ import annotations

import hashlib

from skillopt.api import ConfigError

SPLITS = ("train", "val", "test")


def _bucket(seed: int, key: str) -> float:
    digest = hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()
    return int(digest[:12], 16) / float(16**12)


def session_splits(
    session_ids: list[str] | tuple[str, ...], *, val_fraction: float = 0.34, test_fraction: float = 0.0, seed: int = 42
) -> dict[str, str]:
    """``{session_id: split}``; with two or more sessions both train and val are non-empty,
    and with three or more and ``test_fraction > 0`` test is non-empty too."""
    if not (0.0 <= val_fraction < 1.0 and 0.0 <= test_fraction < 1.0 and val_fraction + test_fraction < 1.0):
        raise ConfigError(f"val_fraction ({val_fraction}) and test_fraction ({test_fraction}) must be in [0, 1) and sum below 1")
    ids = sorted(set(session_ids))
    buckets = {sid: _bucket(seed, sid) for sid in ids}
    out: dict[str, str] = {}
    for sid, b in buckets.items():
        out[sid] = "val" if b < val_fraction else "test" if b < val_fraction + test_fraction else "train"
    by_bucket = sorted(ids, key=lambda s: buckets[s])

    def count(split: str) -> int:
        return sum(1 for v in out.values() if v == split)

    if len(ids) >= 2 and val_fraction > 0 and count("val") == 0:
        candidates = [s for s in by_bucket if out[s] == "train"] or by_bucket
        out[candidates[0]] = "val"
    if len(ids) >= 3 and test_fraction > 0 and count("test") == 0:
        candidates = [s for s in by_bucket if out[s] == "train"]
        if len(candidates) >= 2:
            out[candidates[0]] = "test"
    if len(ids) >= 2 and count("train") == 0:
        largest = max((s for s in ids if out[s] == "val"), key=lambda s: buckets[s], default=None)
        if largest is not None and count("val") > 1:
            out[largest] = "train"
        elif largest is not None and count("test") > 0:
            out[max((s for s in ids if out[s] == "test"), key=lambda s: buckets[s])] = "train"
    return out
