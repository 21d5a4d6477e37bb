"""Generator of the bundled sample: multiple-choice theorem questions with a computed truth.

``python -m skillopt_envs_math.generator [OUT]`` rewrites ``data/sample`` (or ``OUT``) from
scratch; :func:`generate_sample` is the same for the core's sample check. The
output depends only on :data:`SEED` and this code (string-seeded RNGs, exact
arithmetic, sorted JSON), so a test re-runs it and compares with the shipped files.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from skillopt_envs_math.generator import combinatorics, inequalities, number_theory, sequences
from skillopt_envs_math.generator.core import assemble

SEED = 20250601
VERSION = 1
SPLITS = ("train", "val", "test")
# Every block of ten items of a family goes 4 train / 2 val / 4 test.
PATTERN = ("train", "test", "val", "train", "test", "train", "test", "val", "train", "test")
FAMILIES = [*number_theory.FAMILIES, *inequalities.FAMILIES, *combinatorics.FAMILIES, *sequences.FAMILIES]


def family_items(name: str, count: int, make, seed: int = SEED) -> list[dict]:
    """``count`` distinct items of one family (distinct question + choice set)."""
    rng = random.Random(f"{seed}:{name}")
    items: list[dict] = []
    seen: set[tuple] = set()
    attempt = 0
    while len(items) < count:
        if attempt >= 40 * count:
            raise AssertionError(f"{name}: only {len(items)} distinct items after {attempt} attempts")
        draft = make(rng, attempt)
        attempt += 1
        key = (draft.question, tuple(sorted(c.text for c in draft.claims)))
        if key in seen:
            continue
        seen.add(key)
        items.append(assemble(draft, f"{name}-{len(items) + 1:02d}", rng))
    return items


def interleave(groups: list[list[dict]]) -> list[dict]:
    """Round-robin merge, so any prefix of a split (``env.limit``) mixes the groups."""
    out: list[dict] = []
    for i in range(max((len(g) for g in groups), default=0)):
        out += [g[i] for g in groups if i < len(g)]
    return out


def generate(seed: int = SEED) -> dict[str, list[dict]]:
    """The sample, split: ``{"train": [...], "val": [...], "test": [...]}``.

    Within a split, items alternate between theorem types (and, within a type, between
    families), so the first few items of every split already cover every type.
    """
    by_type: dict[str, dict[str, list[list[dict]]]] = {s: {} for s in SPLITS}
    for name, count, make in FAMILIES:
        per_split: dict[str, list[dict]] = {s: [] for s in SPLITS}
        for i, item in enumerate(family_items(name, count, make, seed)):
            per_split[PATTERN[i % len(PATTERN)]].append(item)
        for split, items in per_split.items():
            kind = items[0]["theorem_type"][0]
            by_type[split].setdefault(kind, []).append(items)
    return {split: interleave([interleave(families) for families in kinds.values()]) for split, kinds in by_type.items()}


def manifest(splits: dict[str, list[dict]], seed: int = SEED) -> dict:
    types: dict[str, dict[str, int]] = {}
    for split, items in splits.items():
        for item in items:
            kind = item["theorem_type"][0]
            types.setdefault(kind, {s: 0 for s in SPLITS})[split] += 1
    return {
        "benchmark": "LiveMathematicianBench-style generated sample",
        "generator": "skillopt_envs_math.generator",
        "generator_version": VERSION,
        "seed": seed,
        "licence": "CC0-1.0",
        "counts": {s: len(items) for s, items in splits.items()},
        "task_types": dict(sorted(types.items())),
        "families": [{"name": name, "items": count} for name, count, _ in FAMILIES],
    }


def dumps(data) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def rendered(seed: int = SEED) -> dict[str, str]:
    """Relative path -> file text of the whole sample directory."""
    splits = generate(seed)
    files = {f"{split}/items.json": dumps(items) for split, items in splits.items()}
    files["split_manifest.json"] = dumps(manifest(splits, seed))
    return files


def write(out_dir: Path, seed: int = SEED) -> list[Path]:
    written = []
    for rel, text in rendered(seed).items():
        path = Path(out_dir) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def generate_sample(out: Path) -> None:
    """The sample-generator convention: write the bundled sample tree to ``out``."""
    write(out)


def default_out_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "data" / "sample"
