"""The generator: deterministic, balanced, and the bundled sample is its output."""

import json
from importlib import resources

from skillopt.testing import check_sample_regenerates
from skillopt_envs_alfworld import AlfworldEnv
from skillopt_envs_alfworld.game import TASK_TYPES, game_from_row, game_to_row
from skillopt_envs_alfworld.generator import generate_sample, make_game, sample_rows
from skillopt_envs_alfworld.generator.__main__ import main


def test_same_seed_same_game_and_different_seeds_differ():
    for task_type in TASK_TYPES:
        a, b = make_game("x", task_type, 7), make_game("x", task_type, 7)
        assert game_to_row(a) == game_to_row(b)
        assert game_to_row(make_game("x", task_type, 8)) != game_to_row(a)


def test_rows_round_trip():
    game = make_game("x", "pick_heat_then_place", 3)
    assert game_from_row(json.loads(json.dumps(game_to_row(game)))) == game


def test_bundled_sample_equals_a_regeneration(tmp_path):
    check_sample_regenerates(AlfworldEnv)
    assert main([str(tmp_path)]) == 0  # the command line writes the same text, byte for byte
    bundled = resources.files("skillopt_envs_alfworld").joinpath("data", "sample")
    for name in ("train/items.json", "val/items.json", "test/items.json", "split_manifest.json"):
        assert (tmp_path / name).read_text() == bundled.joinpath(name).read_text(), name


def test_sample_is_balanced_by_type_and_sized_as_documented(tmp_path):
    rows = sample_rows()
    assert {s: len(r) for s, r in rows.items()} == {"train": 60, "val": 30, "test": 60}
    for split, items in rows.items():
        counts = {t: sum(r["task_type"] == t for r in items) for t in TASK_TYPES}
        assert set(counts.values()) == {len(items) // 6}, (split, counts)
        assert [r["task_type"] for r in items[:6]] == list(TASK_TYPES)  # interleaved: a prefix covers every type
    generate_sample(tmp_path)
    manifest = json.loads((tmp_path / "split_manifest.json").read_text())
    assert manifest["license"] == "CC0-1.0" and manifest["splits"]["val"]["n"] == 30


def test_task_sentences_read_like_alfworld():
    sentences = [r["task"] for items in sample_rows().values() for r in items]
    assert any(s.startswith("put a clean ") for s in sentences) or any(s.startswith("clean some ") for s in sentences)
    assert any("desklamp" in s for s in sentences)
    assert all(s.endswith(".") and s == s.lower() for s in sentences)
