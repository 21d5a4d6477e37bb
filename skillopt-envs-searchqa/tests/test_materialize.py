"""The materializer, against fake datasets: local JSONL folders standing in for
``lucadiliello/searchqa``, and a stand-in ``datasets`` module for the Hub path."""

from __future__ import annotations

import hashlib
import json
import sys
import types

import pytest

from skillopt.api import ConfigError
from skillopt_envs_searchqa import materialize as m
from skillopt_envs_searchqa.env import SearchQAConfig, SearchQAEnv


def row(key: str, **extra) -> dict:
    """A row shaped like the MRQA-style release (key, question, context, answers, labels)."""
    return {
        "key": key,
        "question": f"clue for {key}",
        "context": f"[DOC] [TLE] title {key} [PAR] text {key}",
        "answers": [f"answer {key}"],
        "labels": [{"start": [0], "end": [3]}],
        **extra,
    }


def small_manifest(root, splits: dict[str, list[str]]):
    for split, ids in splits.items():
        (root / split).mkdir(parents=True)
        (root / split / "items.json").write_text(json.dumps([{"id": i} for i in ids]), encoding="utf-8")
    return root


def fake_dataset(folder, rows_by_split: dict[str, list[dict]]):
    """A local copy of a dataset: one JSONL file per source split."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in rows_by_split.items():
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return folder


@pytest.fixture
def manifest(tmp_path):
    return small_manifest(tmp_path / "manifest", {"train": ["t2", "t1"], "val": ["v1"], "test": ["x1", "x3", "x2"]})


def test_writes_items_in_manifest_order_with_a_hashed_manifest(tmp_path, manifest):
    source = fake_dataset(tmp_path / "ds", {
        "train": [row("t1"), row("x2"), row("noise1"), row("t2")],
        "validation": [row("x3"), row("v1"), row("x1"), row("noise2")],
    })
    report = m.materialize(tmp_path / "out", m.open_source(str(source)), source=str(source), manifest=manifest)
    assert report.counts == {"train": 2, "val": 1, "test": 3} and report.scanned == 8
    items = {s: json.loads((tmp_path / "out" / s / "items.json").read_text()) for s in ("train", "val", "test")}
    assert [i["id"] for i in items["train"]] == ["t2", "t1"]
    assert [i["id"] for i in items["test"]] == ["x1", "x3", "x2"]
    assert items["val"][0] == {"id": "v1", "question": "clue for v1", "context": "[DOC] [TLE] title v1 [PAR] text v1", "answers": ["answer v1"]}
    meta = json.loads((tmp_path / "out" / "split_manifest.json").read_text())
    assert meta["counts"] == report.counts
    for name, digest in meta["files"].items():
        assert hashlib.sha256((tmp_path / "out" / name).read_bytes()).hexdigest() == digest
    env = SearchQAEnv(SearchQAConfig(split_dir=str(tmp_path / "out")))
    assert [t.gold for t in env.tasks("val")] == [["answer v1"]]


def test_missing_ids_are_an_error_and_nothing_is_written(tmp_path, manifest):
    source = fake_dataset(tmp_path / "ds", {"train": [row("t1"), row("t2"), row("v1"), row("x1")]})
    with pytest.raises(ConfigError, match=r"2 manifest id\(s\) are not in the source \(x3, x2\)"):
        m.materialize(tmp_path / "out", m.open_source(str(source)), manifest=manifest)
    assert not (tmp_path / "out").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".searchqa-")]


def test_a_key_twice_in_the_source_is_an_error(tmp_path, manifest):
    rows = [row(k) for k in ("t1", "t2", "v1", "x1", "x2", "x3")] + [row("v1", question="other")]
    with pytest.raises(ConfigError, match="two rows with key v1"):
        m.materialize(tmp_path / "out", rows, manifest=manifest)


def test_an_id_in_two_manifest_splits_is_an_error(tmp_path):
    bad = small_manifest(tmp_path / "bad", {"train": ["a"], "val": ["b"], "test": ["a"]})
    with pytest.raises(ConfigError, match="id a is listed in both 'train' and 'test'"):
        m.manifest_ids(bad)


def test_existing_output_needs_force(tmp_path, manifest):
    rows = [row(k) for k in ("t1", "t2", "v1", "x1", "x2", "x3")]
    m.materialize(tmp_path / "out", rows, manifest=manifest)
    with pytest.raises(ConfigError, match="--force"):
        m.materialize(tmp_path / "out", rows, manifest=manifest)
    changed = [row(k, answers=["new"]) for k in ("t1", "t2", "v1", "x1", "x2", "x3")]
    m.materialize(tmp_path / "out", changed, manifest=manifest, force=True)
    assert json.loads((tmp_path / "out" / "val" / "items.json").read_text())[0]["answers"] == ["new"]
    assert not (tmp_path / "out.old").exists()


def test_answer_shapes_are_normalised():
    assert m.row_answers({"key": "k", "answers": "Paris"}) == ["Paris"]
    assert m.row_answers({"key": "k", "answers": {"text": ["Paris", "paris"], "answer_start": [0, 4]}}) == ["Paris", "paris"]
    with pytest.raises(ConfigError, match="no answers"):
        m.row_answers({"key": "k", "answers": [" "]})
    with pytest.raises(ConfigError, match="no 'key' field"):
        m.row_key({"question": "q"})


def test_shipped_manifests_are_the_papers_split():
    ids = m.manifest_ids()
    assert {k: len(v) for k, v in ids.items()} == {"train": 400, "val": 200, "test": 1400}


def test_cli_materializes_the_shipped_manifest_from_a_local_copy(tmp_path, run_cli):
    ids = m.manifest_ids()
    everything = [row(k) for split in ("test", "val", "train") for k in ids[split]] + [row(f"extra{i}") for i in range(50)]
    source = fake_dataset(tmp_path / "ds", {"train": everything[:1000], "validation": everything[1000:]})
    result = run_cli("searchqa", "materialize", "--source", str(source))
    assert result.exit_code == 0, result.output
    from skillopt_envs_searchqa.data import default_materialized_dir

    out = default_materialized_dir()
    assert json.loads((out / "split_manifest.json").read_text())["counts"] == {"train": 400, "val": 200, "test": 1400}
    env = SearchQAEnv(SearchQAConfig(data="real"))
    assert env.data_source().kind == "real"
    assert [t.id for t in env.tasks("train")][:3] == ids["train"][:3]
    status = run_cli("searchqa", "data")
    assert status.exit_code == 0 and "materialized at" in status.output and "train 400" in status.output


def test_cli_reports_a_missing_source_clearly(tmp_path, run_cli):
    result = run_cli("searchqa", "materialize", "--source", str(tmp_path / "nope"), "--out", str(tmp_path / "o"))
    assert result.exit_code == 2
    assert "no such file or directory" in result.output


def test_hub_source_goes_through_datasets_load_dataset(tmp_path, manifest, monkeypatch):
    calls = []

    def load_dataset(name, revision=None):
        calls.append((name, revision))
        return {"train": [row(k) for k in ("t1", "t2", "v1")], "validation": [row(k) for k in ("x1", "x2", "x3")]}

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    rows = m.open_source("lucadiliello/searchqa", "abc123")
    report = m.materialize(tmp_path / "out", rows, source="lucadiliello/searchqa", revision="abc123", manifest=manifest)
    assert calls == [("lucadiliello/searchqa", "abc123")]
    assert report.revision == "abc123"


def test_hub_errors_become_config_errors(monkeypatch):
    def load_dataset(name, revision=None):
        raise ConnectionError("offline")

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    with pytest.raises(ConfigError, match="could not load lucadiliello/searchqa .*ConnectionError: offline"):
        list(m.open_source("lucadiliello/searchqa"))
    monkeypatch.setitem(sys.modules, "datasets", None)  # import fails
    with pytest.raises(ConfigError, match="pip install"):
        list(m.open_source("lucadiliello/searchqa"))
