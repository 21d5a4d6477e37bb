"""The bundled sample: reproducible from the generator, well formed, and independently spot-checked."""

import json
import math
import re
from collections import Counter
from importlib import resources

import pytest

from skillopt.testing import check_sample_regenerates
from skillopt_envs_math import LiveMathEnv
from skillopt_envs_math.generator import rendered
from skillopt_envs_math.items import item_from_row

SAMPLE = resources.files("skillopt_envs_math").joinpath("data", "sample")


def shipped(split: str) -> list[dict]:
    return json.loads(SAMPLE.joinpath(split, "items.json").read_text(encoding="utf-8"))


def test_rerunning_the_generator_reproduces_the_shipped_files():
    check_sample_regenerates(LiveMathEnv)
    for rel, text in rendered().items():  # and byte for byte, not only as equal JSON
        assert SAMPLE.joinpath(*rel.split("/")).read_text(encoding="utf-8") == text, f"{rel} differs from the generator output"


def test_sample_size_splits_and_task_types():
    splits = {s: shipped(s) for s in ("train", "val", "test")}
    assert sum(len(v) for v in splits.values()) >= 120
    ids = [row["id"] for rows in splits.values() for row in rows]
    assert len(ids) == len(set(ids))
    for split, rows in splits.items():
        types = Counter(row["theorem_type"][0] for row in rows)
        assert len(types) >= 4, f"{split} covers only {sorted(types)}"
    manifest = json.loads(SAMPLE.joinpath("split_manifest.json").read_text())
    assert manifest["counts"] == {s: len(v) for s, v in splits.items()}
    assert manifest["licence"] == "CC0-1.0"


@pytest.mark.parametrize("split", ["train", "val", "test"])
def test_every_item_is_well_formed(split):
    for row in shipped(split):
        item = item_from_row(row, item_id=row["id"])
        assert 4 <= len(item.choices) <= 7
        assert len({c.text for c in item.choices}) == len(item.choices)
        assert item.theorem and item.sketch
        assert f'"{item.correct.text}" holds' in item.sketch  # the generator's own check of the right answer


# Independent spot checks: closed formulas here, brute force in the generator.


def rows_matching(pattern: str) -> list[tuple[re.Match, dict]]:
    found = []
    for split in ("train", "val", "test"):
        for row in shipped(split):
            match = re.fullmatch(pattern, row["question"])
            if match:
                found.append((match, row))
    return found


def correct(row) -> str:
    return row["correct_choice"]["text"]


def test_divisor_counts_match_the_product_formula():
    hits = rows_matching(r"How many positive divisors does (\d+) have\?")
    assert hits
    for match, row in hits:
        n, count, p = int(match.group(1)), 1, 2
        while n > 1:
            e = 0
            while n % p == 0:
                n, e = n // p, e + 1
            count *= e + 1
            p += 1
        assert correct(row) == str(count)


def test_power_remainders_match_pow():
    hits = rows_matching(r"What is the remainder when (\d+)\^(\d+) is divided by (\d+)\?")
    assert hits
    for match, row in hits:
        a, k, m = map(int, match.groups())
        assert correct(row) == str(pow(a, k, m))


def test_stars_and_bars_and_lattice_paths_match_binomials():
    bars = rows_matching(r"How many solutions in (positive|nonnegative) integers does (.*) = (\d+) have\?")
    paths = rows_matching(r"How many lattice paths go from \(0, 0\) to \((\d+), (\d+)\).*")
    assert bars and paths
    for match, row in bars:
        k, n = int(re.findall(r"x(\d+)", match.group(2))[-1]), int(match.group(3))
        expected = math.comb(n - 1, k - 1) if match.group(1) == "positive" else math.comb(n + k - 1, k - 1)
        assert correct(row) == str(expected)
    for match, row in paths:
        a, b = map(int, match.groups())
        assert correct(row) == str(math.comb(a + b, a))


def test_trailing_zeros_match_legendre():
    hits = rows_matching(r"How many zeros does the decimal expansion of (\d+)! end with\?")
    assert hits
    for match, row in hits:
        n = int(match.group(1))
        assert correct(row) == str(sum(n // 5**j for j in range(1, 6)))


def test_am_gm_minimum_matches_two_sqrt_ab():
    hits = rows_matching(r"Let f\(x\) = (\d*)x \+ (\d+)/x for real x > 0\..*")
    assert hits
    for match, row in hits:
        a, b = int(match.group(1) or 1), int(match.group(2))
        root = math.isqrt(b // a)
        assert correct(row) == f"The minimum value of f on x > 0 is {2 * math.isqrt(a * b)}, attained only at x = {root}."
