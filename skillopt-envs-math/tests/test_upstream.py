"""The real-data loader, against fake monthly files written in the upstream layout."""

import json
from pathlib import Path

import pytest

from skillopt.api import ConfigError
from skillopt.testing import check_env_contract
from skillopt_envs_math import LiveMathConfig, LiveMathEnv
from skillopt_envs_math.upstream import bundled_manifest_dir, read_manifest


def manifest_ids() -> dict[str, list[str]]:
    root = bundled_manifest_dir()
    return {split: [e["id"] for e in read_manifest(root, split)] for split in ("train", "val", "test")}


def fake_row(month: str, no: int, *, nested: bool) -> dict:
    """One upstream-shaped row; its own 'month' field is deliberately unreliable."""
    mcq = {
        "question": f"Question {month}:{no}?",
        "choices": [{"label": lab, "text": f"choice {lab} of {month}:{no}"} for lab in "ABCDE"],
        "correct_choice": {"label": "C", "text": f"choice C of {month}:{no}"},
    }
    row = {
        "no": no,
        "month": "" if no % 2 else "199901",
        "paper_link": f"http://arxiv.org/abs/{month}.{no:05d}",
        "theorem_type": ["Analysis", "Existence"] if no % 3 else "Algebra",
        "theorem": f"Theorem {month}:{no}",
        "sketch": f"Sketch {month}:{no}",
    }
    return {**row, "mcq": mcq} if nested else {**row, **mcq}


def write_months(root: Path, *, flat: bool = False, skip: set[str] = frozenset(), nested_months=("202512",)) -> Path:
    wanted: dict[str, int] = {}
    for ids in manifest_ids().values():
        for item_id in ids:
            month, no = item_id.split(":")
            wanted[month] = max(wanted.get(month, 0), int(no))
    for month, top in wanted.items():
        rows = [fake_row(month, no, nested=month in nested_months) for no in range(1, top + 1) if f"{month}:{no}" not in skip]
        path = root / f"qa_{month}_final.json" if flat else root / "data" / month / f"qa_{month}_final.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(rows), encoding="utf-8")
    return root


def env_for(data_path: Path, **kw) -> LiveMathEnv:
    return LiveMathEnv(LiveMathConfig(data_path=str(data_path), **kw))


def test_bundled_manifest_matches_its_declared_counts_and_is_disjoint():
    ids = manifest_ids()
    declared = json.loads(bundled_manifest_dir().joinpath("split_manifest.json").read_text())["counts"]
    assert {s: len(v) for s, v in ids.items()} == declared == {"train": 35, "val": 17, "test": 125}
    assert (
        not set(ids["train"]) & set(ids["val"])
        and not set(ids["train"]) & set(ids["test"])
        and not set(ids["val"]) & set(ids["test"])
    )


@pytest.mark.parametrize("flat", [False, True])
def test_loads_every_split_in_manifest_order_with_ids_from_the_file_name(tmp_path, flat):
    env = env_for(write_months(tmp_path, flat=flat), shuffle_choices=False)
    for split, ids in manifest_ids().items():
        tasks = env.tasks(split)
        assert [t.id for t in tasks] == ids
        for task in tasks:
            assert task.inputs["question"] == f"Question {task.id}?"  # month came from the file, not the row
            assert task.gold == {"label": "C", "text": f"choice C of {task.id}"}
            assert task.task_type in ("Analysis", "Algebra")
            assert f"Theorem {task.id}" in task.reference and f"Sketch {task.id}" in task.reference


def test_mcq_nesting_is_read(tmp_path):
    env = env_for(write_months(tmp_path, nested_months=("202511", "202512", "202601", "202602")), shuffle_choices=False)
    task = env.tasks("val")[0]
    assert task.inputs["question"] == f"Question {task.id}?"
    assert len(task.inputs["choices"]) == 5


def test_a_missing_id_is_a_clear_error(tmp_path):
    gone = manifest_ids()["test"][3]
    env = env_for(write_months(tmp_path, skip={gone}))
    assert env.tasks("train")  # other splits still load
    with pytest.raises(ConfigError) as info:
        env.tasks("test")
    message = str(info.value)
    assert gone in message and "'test'" in message and "1 id(s)" in message


def test_a_missing_month_file_names_the_month(tmp_path):
    root = write_months(tmp_path)
    (root / "data" / "202601" / "qa_202601_final.json").unlink()
    with pytest.raises(ConfigError, match="202601"):
        env_for(root).tasks("train")


def test_a_single_file_data_path_and_a_duplicate_month_are_reported(tmp_path):
    root = write_months(tmp_path / "a")
    with pytest.raises(ConfigError, match="no qa_<month>_final.json for month"):
        env_for(root / "data" / "202511" / "qa_202511_final.json").tasks("train")
    copy = tmp_path / "a" / "extra" / "qa_202511_final.json"
    copy.parent.mkdir()
    copy.write_text("[]")
    with pytest.raises(ConfigError, match="appears twice"):
        env_for(root).tasks("train")


def test_bad_rows_and_bad_paths_are_errors(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        env_for(tmp_path / "nowhere").tasks("train")
    root = write_months(tmp_path / "b")
    path = root / "data" / "202511" / "qa_202511_final.json"
    rows = json.loads(path.read_text())
    rows[0]["correct_choice"] = {"label": "G"}
    path.write_text(json.dumps(rows))
    with pytest.raises(ConfigError, match="202511:1"):
        env_for(root).tasks("train")


def test_a_custom_manifest_dir_passes_the_env_contract(tmp_path):
    data = write_months(tmp_path / "data_root")
    manifest = tmp_path / "manifest"
    picks = {"train": ["202511:1", "202511:2"], "val": ["202512:3", "202601:4"], "test": ["202602:5"]}
    for split, ids in picks.items():
        (manifest / split).mkdir(parents=True)
        (manifest / split / "items.json").write_text(json.dumps([{"id": i} for i in ids]))
    cfg = LiveMathConfig(data_path=str(data), manifest_dir=str(manifest))
    env = check_env_contract(LiveMathEnv, config=cfg)
    assert [t.id for t in env.tasks("val")] == picks["val"]
