"""The real-data loader, on tiny fake SpreadsheetBench folders of each layout built in tmp."""

from __future__ import annotations

import json

import pytest
from sheet_helpers import SIMPLE_GOLD, SIMPLE_INPUT, write_xlsx

from skillopt.api import ConfigError
from skillopt_envs_spreadsheet import SpreadsheetConfig, SpreadsheetEnv
from skillopt_envs_spreadsheet.loader import discover_cases, load_manifest, normalize_type


def item(task_id: str, kind: str = "Cell-Level Manipulation", position: str = "'Sheet1'!D2:D3") -> dict:
    return {"id": task_id, "instruction": f"Fill the totals ({task_id}).", "instruction_type": kind,
            "answer_position": position, "spreadsheet_path": f"spreadsheet/{task_id}"}


def make_case_files(folder, task_id: str, style: str, n: int = 3) -> None:
    if style == "bare":
        write_xlsx(folder / "initial.xlsx", SIMPLE_INPUT)
        write_xlsx(folder / "golden.xlsx", SIMPLE_GOLD)
        return
    a, b = {"verified": ("init", "golden"), "original": ("input", "answer")}[style]
    for no in range(1, n + 1):
        write_xlsx(folder / f"{no}_{task_id}_{a}.xlsx", SIMPLE_INPUT)
        write_xlsx(folder / f"{no}_{task_id}_{b}.xlsx", SIMPLE_GOLD)


@pytest.mark.parametrize(("style", "count"), [("verified", 3), ("original", 3), ("bare", 1)])
def test_discover_each_layout(tmp_path, style, count):
    make_case_files(tmp_path, "123-4", style)
    cases = discover_cases(tmp_path)
    assert len(cases) == count
    assert all(a.exists() and b.exists() for a, b in cases)
    if style != "bare":
        assert [a.name.split("_")[0] for a, _ in cases] == ["1", "2", "3"]


def test_cases_sort_numerically(tmp_path):
    make_case_files(tmp_path, "t", "verified", n=11)
    assert [a.name.split("_")[0] for a, _ in discover_cases(tmp_path)] == [str(i) for i in range(1, 12)]


def test_unpaired_case_file_is_an_error(tmp_path):
    write_xlsx(tmp_path / "1_t_init.xlsx", SIMPLE_INPUT)
    with pytest.raises(ConfigError, match="no matching '_golden.xlsx'"):
        discover_cases(tmp_path)


def test_empty_folder_names_the_layouts(tmp_path):
    with pytest.raises(ConfigError, match="initial.xlsx"):
        discover_cases(tmp_path)


def test_type_names():
    assert normalize_type("Cell-Level Manipulation") == "cell-level"
    assert normalize_type("Sheet-Level Manipulation") == "sheet-level"
    assert normalize_type("Odd Type!") == "odd-type"


def test_shipped_manifest_is_the_upstream_split():
    splits = load_manifest()
    assert {s: len(v) for s, v in splits.items()} == {"train": 80, "val": 40, "test": 280}
    ids = [i["id"] for v in splits.values() for i in v]
    assert len(ids) == len(set(ids)) == 400


def fake_release(root, manifest_splits, style="verified"):
    """A Verified-400-shaped folder holding just the tasks named in a small manifest."""
    items = []
    for _split, entries in manifest_splits.items():
        for e in entries:
            items.append(item(e["id"], e["instruction_type"]))
            make_case_files(root / "spreadsheet" / e["id"], e["id"], style)
    (root / "dataset.json").write_text(json.dumps(items))


def small_manifest(tmp_path):
    splits = {
        "train": [{"id": "11", "instruction_type": "Cell-Level Manipulation"}, {"id": "22-1", "instruction_type": "Sheet-Level Manipulation"}],
        "val": [{"id": "33", "instruction_type": "Cell-Level Manipulation"}],
        "test": [{"id": "44", "instruction_type": "Sheet-Level Manipulation"}],
    }
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"splits": splits}))
    return path, splits


@pytest.mark.parametrize("style", ["verified", "original", "bare"])
def test_release_loaded_by_manifest(tmp_path, style):
    manifest, splits = small_manifest(tmp_path)
    release = tmp_path / "spreadsheetbench_verified_400"
    fake_release(release, splits, style)
    env = SpreadsheetEnv(SpreadsheetConfig(data_path=str(release), split_manifest=str(manifest)))
    train = env.tasks("train")
    assert [t.id for t in train] == ["11", "22-1"]
    assert [t.task_type for t in train] == ["cell-level", "sheet-level"]
    task = train[0]
    assert task.inputs["answer_position"] == "'Sheet1'!D2:D3"
    assert len(task.gold["cases"]) == (1 if style == "bare" else 3)
    assert task.inputs["input_file"] == task.gold["cases"][0][0]
    assert [t.id for t in env.tasks("test")] == ["44"]


def test_missing_ids_are_reported(tmp_path):
    manifest, splits = small_manifest(tmp_path)
    release = tmp_path / "rel"
    fake_release(release, {"train": splits["train"][:1]})
    env = SpreadsheetEnv(SpreadsheetConfig(data_path=str(release), split_manifest=str(manifest)))
    with pytest.raises(ConfigError, match=r"1 of the 2 ids .* \(e.g. 22-1\)"):
        env.tasks("train")


def test_shipped_manifest_against_a_partial_release_fails_clearly(tmp_path):
    release = tmp_path / "rel"
    fake_release(release, {"train": [{"id": "32438", "instruction_type": "Cell-Level Manipulation"}]})
    env = SpreadsheetEnv(SpreadsheetConfig(data_path=str(release)))
    with pytest.raises(ConfigError, match="79 of the 80 ids"):
        env.tasks("train")


def test_split_dir_with_full_items(tmp_path):
    root = tmp_path / "mysplit"
    for split, tid in (("train", "a"), ("val", "b"), ("test", "c")):
        (root / split).mkdir(parents=True)
        (root / split / "items.json").write_text(json.dumps([item(tid)]))
        make_case_files(root / "spreadsheet" / tid, tid, "verified")
    env = SpreadsheetEnv(SpreadsheetConfig(split_dir=str(root)))
    assert [t.id for t in env.tasks("val")] == ["b"]


def test_bad_items_name_the_field(tmp_path):
    root = tmp_path / "s"
    (root / "train").mkdir(parents=True)
    (root / "train" / "items.json").write_text(json.dumps([{**item("x"), "answer_position": "Sheet1!?"}]))
    make_case_files(root / "spreadsheet" / "x", "x", "verified")
    with pytest.raises(ConfigError, match="bad answer_position"):
        SpreadsheetEnv(SpreadsheetConfig(split_dir=str(root))).tasks("train")
    (root / "train" / "items.json").write_text(json.dumps([{"id": "x", "answer_position": "A1"}]))
    with pytest.raises(ConfigError, match="'instruction'"):
        SpreadsheetEnv(SpreadsheetConfig(split_dir=str(root))).tasks("train")


def test_data_path_without_dataset_file(tmp_path):
    (tmp_path / "a.json").write_text("[]")
    (tmp_path / "b.json").write_text("[]")
    with pytest.raises(ConfigError, match="dataset.json"):
        SpreadsheetEnv(SpreadsheetConfig(data_path=str(tmp_path))).tasks("train")
