"""Every random choice of a run derives its seed here.

Seeds used to be sums of offsets (``seed + 1000 * epoch + 10 * step + micro``), and
sums collide: step 1 of one layout drew the same numbers as step 11 of another. A
seed is now a hash of the base seed, the stage that uses it and that use's
coordinates, so two different uses never share one and the same use always gets the
same one, which is what an exact resume needs.
"""

from __future__ import annotations

import hashlib


def derive_seed(base: int, stage: str, *parts: object) -> int:
    """A 31-bit seed for one use: ``stage`` names the consumer, ``parts`` its coordinates."""
    text = "\x1f".join([str(base), stage, *(str(p) for p in parts)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") & 0x7FFFFFFF
