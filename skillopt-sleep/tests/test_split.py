"""Splits by session (stable, never leaking) and the same rule on every path (bug §6.6)."""

import json

import pytest

from skillopt.errors import ConfigError
from skillopt_sleep.mine.split import session_splits


def test_splits_are_deterministic_and_seeded():
    ids = [f"s{i}" for i in range(40)]
    a = session_splits(ids, val_fraction=0.3, test_fraction=0.2, seed=1)
    assert a == session_splits(list(reversed(ids)), val_fraction=0.3, test_fraction=0.2, seed=1)
    assert a != session_splits(ids, val_fraction=0.3, test_fraction=0.2, seed=2)
    counts = {s: list(a.values()).count(s) for s in ("train", "val", "test")}
    assert all(counts[s] > 0 for s in counts)


def test_small_sets_still_have_train_and_val():
    for n in range(2, 6):
        splits = session_splits([f"x{i}" for i in range(n)], val_fraction=0.34, test_fraction=0.25)
        assert "train" in splits.values() and "val" in splits.values()


def test_bad_fractions_are_an_error():
    with pytest.raises(ConfigError):
        session_splits(["a"], val_fraction=0.7, test_fraction=0.5)


def test_tasks_never_mix_sessions_of_two_splits(fixture_home):
    from skillopt_sleep.harvest import HarvestRequest, harvest
    from skillopt_sleep.mine.heuristic import mine

    _home, project = fixture_home
    sessions = harvest(HarvestRequest(project=project)).sessions
    splits = session_splits([s.id for s in sessions], val_fraction=0.4, test_fraction=0.2)
    for task in mine(sessions, splits).tasks:
        assert {splits[s] for s in task.sessions} == {task.split}


def test_split_fractions_apply_on_every_path(fixture_home, tmp_path, run_cli):
    """Bug §6.6: harvest, tasks files and the nightly run assign splits identically."""
    from skillopt_sleep.harvest import HarvestRequest, harvest

    _home, project = fixture_home
    out = tmp_path / "tasks.json"
    res = run_cli(
        "sleep",
        "harvest",
        "--project",
        str(project),
        "--lookback-hours",
        "0",
        "--val-fraction",
        "0.3",
        "--test-fraction",
        "0.3",
        "--seed",
        "7",
        "--output",
        str(out),
        "--json",
    )
    assert res.exit_code == 0, res.output
    payload = json.loads(out.read_text())
    sessions = harvest(HarvestRequest(project=project)).sessions
    expected = session_splits([s.id for s in sessions], val_fraction=0.3, test_fraction=0.3, seed=7)
    assert payload["session_splits"] == expected
    assert "test" in {t["split"] for t in payload["tasks"]}
    for task in payload["tasks"]:
        assert {expected[s] for s in task["sessions"]} == {task["split"]}
