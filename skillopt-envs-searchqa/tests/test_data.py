"""Data sources: bundled sample, split directories, one items file, materialized data."""

from __future__ import annotations

import json

import pytest

from skillopt.api import ConfigError
from skillopt_envs_searchqa import data
from skillopt_envs_searchqa.env import SearchQAConfig, SearchQAEnv


def item(i: int, **extra) -> dict:
    return {"id": f"q{i}", "question": f"This city is number {i}", "context": f"[DOC] [TLE] t{i} [PAR] City{i} is here.", "answers": [f"City{i}"], **extra}


def write_jsonl(path, rows) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def env_for(**kw) -> SearchQAEnv:
    return SearchQAEnv(SearchQAConfig(**kw))


def test_auto_uses_the_bundled_sample_when_nothing_else_exists():
    env = env_for()
    assert env.data_source().kind == "sample"
    tasks = env.tasks("train")
    assert len(tasks) == 60 and tasks[0].id == "sqs-train-001"
    assert isinstance(tasks[0].gold, list) and tasks[0].task_type in ("verbatim", "distractor", "noncanonical")
    assert tasks[0].reference.startswith("Supporting snippet")
    assert set(tasks[0].inputs) == {"question", "context"}  # gold and reference never reach the target


def test_items_file_with_a_split_field(tmp_path):
    path = tmp_path / "items.jsonl"
    rows = [item(1, split="train"), item(2, split="validation"), item(3, split="test"), item(4, split="valid_unseen")]
    write_jsonl(path, rows)
    env = env_for(data_path=str(path))
    assert [t.id for t in env.tasks("train")] == ["q1"]
    assert [t.id for t in env.tasks("val")] == ["q2"]
    assert [t.id for t in env.tasks("test")] == ["q3", "q4"]
    assert env.data_source().description == f"items file {path}"


def test_items_file_without_split_is_cut_by_ratio_deterministically(tmp_path):
    path = tmp_path / "items.json"
    path.write_text(json.dumps([item(i) for i in range(10)]), encoding="utf-8")
    a = {s: [t.id for t in env_for(data_path=str(path)).tasks(s)] for s in ("train", "val", "test")}
    b = {s: [t.id for t in env_for(data_path=str(path)).tasks(s)] for s in ("train", "val", "test")}
    assert a == b
    assert [len(a[s]) for s in ("train", "val", "test")] == [2, 1, 7]
    assert sorted(a["train"] + a["val"] + a["test"]) == sorted(f"q{i}" for i in range(10))
    other = {s: [t.id for t in env_for(data_path=str(path), split_seed=7).tasks(s)] for s in ("train", "val", "test")}
    assert other != a


def test_ratio_counts_use_largest_remainders():
    assert data.ratio_counts(10, (2, 1, 7)) == (2, 1, 7)
    assert data.ratio_counts(2000, (2, 1, 7)) == (400, 200, 1400)
    assert data.ratio_counts(177, (2, 1, 7)) == (35, 18, 124)
    assert sum(data.ratio_counts(11, (1, 1, 1))) == 11


@pytest.mark.parametrize("ratio", ["2:1", "a:b:c", "0:0:0", "-1:1:1"])
def test_bad_split_ratio_is_an_error(tmp_path, ratio):
    path = tmp_path / "items.jsonl"
    write_jsonl(path, [item(i) for i in range(3)])
    with pytest.raises(ConfigError, match="split_ratio"):
        env_for(data_path=str(path), split_ratio=ratio).tasks("train")


def test_split_directory(tmp_path):
    for split, ids in (("train", [1, 2]), ("val", [3]), ("test", [4, 5])):
        (tmp_path / split).mkdir()
        (tmp_path / split / "items.json").write_text(json.dumps([item(i) for i in ids]), encoding="utf-8")
    env = env_for(split_dir=str(tmp_path))
    assert [t.id for t in env.tasks("test")] == ["q4", "q5"]
    assert env.data_source().kind == "split_dir"
    assert [t.id for t in env_for(data_path=str(tmp_path)).tasks("val")] == ["q3"]


def test_bad_items_name_the_problem(tmp_path):
    path = tmp_path / "items.jsonl"
    write_jsonl(path, [item(1, split="train"), {"id": "q2", "question": "x", "split": "train"}])
    with pytest.raises(ConfigError, match=r"item 2: missing field\(s\) context, answers"):
        env_for(data_path=str(path)).tasks("train")
    write_jsonl(path, [item(1, split="train", answers=[])])
    with pytest.raises(ConfigError, match="answers"):
        env_for(data_path=str(path)).tasks("train")
    write_jsonl(path, [item(1, split="train"), item(1, split="train")])
    with pytest.raises(ConfigError, match="duplicate item id 'q1'"):
        env_for(data_path=str(path)).tasks("train")
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid JSON"):
        env_for(data_path=str(path)).tasks("train")


def test_missing_paths_and_conflicts_are_errors(tmp_path):
    with pytest.raises(ConfigError, match="no such file or directory"):
        env_for(data_path=str(tmp_path / "nope.jsonl")).tasks("train")
    with pytest.raises(ConfigError, match="without train/val/test"):
        env_for(split_dir=str(tmp_path)).tasks("train")
    with pytest.raises(ConfigError, match="not both"):
        env_for(data_path="a", split_dir="b").tasks("train")


def test_real_data_is_required_by_env_data_real():
    with pytest.raises(ConfigError, match="skillopt searchqa materialize"):
        env_for(data="real").tasks("train")


def test_materialized_data_is_used_when_present(tmp_path):
    root = data.default_materialized_dir()  # under the test's isolated SKILLOPT_HOME
    for split in ("train", "val", "test"):
        (root / split).mkdir(parents=True)
        (root / split / "items.json").write_text(json.dumps([item(len(split))]), encoding="utf-8")
    assert env_for().data_source().kind == "real"
    assert env_for(data="real").tasks("val")[0].id == "q3"
    assert "real SearchQA" in env_for(data="real").data_source().description
    assert env_for(data="sample").data_source().kind == "sample"  # the small preset stays on the sample


def test_unknown_data_choice_is_rejected():
    with pytest.raises(ValueError):
        SearchQAConfig(data="web")
