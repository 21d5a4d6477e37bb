"""Upstream's CSV/JSON rows, split by column, manifest or ratio; docs roots from config then env var."""

import csv
import json

import pytest

from skillopt.api import ConfigError, RolloutContext
from skillopt_envs_officeqa.env import OfficeQAConfig, OfficeQAEnv
from skillopt_envs_officeqa.loader import parse_list, row_to_task


def test_parse_list_reads_upstreams_three_spellings():
    assert parse_list('["a.txt", "b.txt"]') == ["a.txt", "b.txt"]
    assert parse_list("a.txt\nb.txt\n") == ["a.txt", "b.txt"]
    assert parse_list("a.txt, b.txt") == ["a.txt", "b.txt"]
    assert parse_list(["a.txt"]) == ["a.txt"] and parse_list("") == [] and parse_list(None) == []


def test_row_fields_and_their_alternatives():
    task = row_to_task({"id": "7", "question": " Q? ", "answer": "12", "difficulty": "Hard",
                        "source_files": "x.txt", "source_docs": "https://h/x?page=3"}, "val")  # fmt: skip
    assert (task.id, task.gold, task.task_type, task.inputs["source_files"]) == ("7", "12", "hard", ["x.txt"])
    assert "x.txt" in task.reference
    with pytest.raises(ConfigError, match="missing ground_truth"):
        row_to_task({"uid": "1", "question": "q"}, "val")


def write_csv(path, rows):
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def make_corpus(root):
    root.mkdir()
    (root / "treasury_bulletin_1950_01.txt").write_text("=== Page 1 ===\nCustoms receipts were 41 million.\n", encoding="utf-8")


def test_csv_with_split_column_and_docs_from_data_dirs(tmp_path, scripted_client):
    docs = tmp_path / "corpus"
    make_corpus(docs)
    rows = [{"uid": f"U{i}", "question": "Customs receipts?", "ground_truth": "41", "category": c,
             "source_files": '["treasury_bulletin_1950_01.txt"]', "source_docs": "https://h/x?page=1", "split": s}
            for i, (c, s) in enumerate([("easy", "train"), ("hard", "val"), ("easy", "test"), ("hard", "test")])]  # fmt: skip
    write_csv(tmp_path / "officeqa.csv", rows)
    env = OfficeQAEnv(OfficeQAConfig(data_path=str(tmp_path / "officeqa.csv"), data_dirs=(str(docs),)))
    assert [t.id for t in env.tasks("test")] == ["U2", "U3"]
    task = env.tasks("val")[0]

    def agent(request):
        if len(request.messages) == 2:
            return '<tool>{"name": "grep", "args": {"pattern": "customs", "path": "treasury_bulletin_1950_01.txt"}}</tool>'
        return "<answer>" + request.messages[-1].content.split("were ")[1].split(" ")[0] + "</answer>"

    assert env.rollout(task, "", scripted_client(agent), RolloutContext()).score.hard == 1.0
    oracle = OfficeQAEnv(OfficeQAConfig(data_path=str(tmp_path / "officeqa.csv"), data_dirs=(str(docs),), mode="oracle"))
    seen = []
    oracle.rollout(task, "", scripted_client(lambda r: seen.append(r.messages[1].content) or "<answer>41</answer>"), RolloutContext())
    assert "Customs receipts were 41 million." in seen[0]  # page cut from the text file (no JSON twin here)


def test_docs_root_from_the_environment_variable(tmp_path, monkeypatch):
    docs = tmp_path / "corpus"
    make_corpus(docs)
    rows = [{"uid": "U1", "question": "q", "answer": "1", "source_files": "treasury_bulletin_1950_01.txt", "split": "val"}]
    (tmp_path / "items.json").write_text(json.dumps(rows), encoding="utf-8")
    monkeypatch.setenv("OFFICEQA_DOCS_DIR", str(docs))
    env = OfficeQAEnv(OfficeQAConfig(data_path=str(tmp_path / "items.json")))
    assert env.docs_roots() == (docs.resolve(),)
    monkeypatch.delenv("OFFICEQA_DOCS_DIR")
    assert OfficeQAEnv(OfficeQAConfig(data_path=str(tmp_path / "items.json"))).docs_roots() == ()


def test_rows_without_split_follow_the_upstream_manifest(tmp_path):
    manifest = tmp_path / "manifest"
    for split, ids in {"train": ["A"], "val": ["B"], "test": ["C", "D"]}.items():
        (manifest / split).mkdir(parents=True)
        (manifest / split / "items.json").write_text(json.dumps([{"id": i} for i in ids]), encoding="utf-8")
    rows = [{"uid": i, "question": "q", "answer": "1"} for i in "DCBA"]
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    env = OfficeQAEnv(OfficeQAConfig(data_path=str(tmp_path / "rows.jsonl"), manifest_dir=str(manifest)))
    assert [t.id for t in env.tasks("test")] == ["C", "D"]
    (tmp_path / "short.json").write_text(json.dumps(rows[1:]), encoding="utf-8")
    with pytest.raises(ConfigError, match="missing, e.g. D"):
        OfficeQAEnv(OfficeQAConfig(data_path=str(tmp_path / "short.json"), manifest_dir=str(manifest))).tasks("test")


def test_bundled_upstream_manifest_is_used_for_upstream_ids(tmp_path):
    manifest_rows = json.loads((__import__("skillopt_envs_officeqa.loader", fromlist=["x"]).bundled_dir("officeqa_id_split", "val", "items.json")).read_text())
    rows = [{"uid": r["uid"], "question": "q", "ground_truth": "1", "source_files": r["source_files"]} for r in manifest_rows]
    (tmp_path / "partial.json").write_text(json.dumps(rows), encoding="utf-8")
    env = OfficeQAEnv(OfficeQAConfig(data_path=str(tmp_path / "partial.json")))
    assert [t.id for t in env.tasks("val")] == [r["uid"] for r in manifest_rows]
    with pytest.raises(ConfigError, match="of the 'train' manifest are missing"):
        env.tasks("train")


def test_rows_without_split_or_manifest_ids_are_cut_by_ratio(tmp_path):
    rows = [{"uid": f"R{i}", "question": "q", "answer": "1"} for i in range(10)]
    (tmp_path / "rows.json").write_text(json.dumps({"items": rows}), encoding="utf-8")
    env = OfficeQAEnv(OfficeQAConfig(data_path=str(tmp_path / "rows.json")))
    sizes = [len(env.tasks(s)) for s in ("train", "val", "test")]
    assert sizes == [2, 1, 7]
    assert len({t.id for s in ("train", "val", "test") for t in env.tasks(s)}) == 10


def test_split_dir_with_csv_and_clear_errors(tmp_path):
    for split in ("train", "val", "test"):
        write_csv(tmp_path / f"{split}.csv", [{"uid": f"{split}1", "question": "q", "ground_truth": "1"}])
    env = OfficeQAEnv(OfficeQAConfig(split_dir=str(tmp_path)))
    assert env.tasks("val")[0].id == "val1"
    with pytest.raises(ConfigError, match="no such file or directory"):
        OfficeQAEnv(OfficeQAConfig(data_path=str(tmp_path / "nope.csv"))).tasks("val")
    with pytest.raises(ConfigError, match="no items for split"):
        OfficeQAEnv(OfficeQAConfig(split_dir=str(tmp_path / "empty"))).tasks("val")
    (tmp_path / "bad.json").write_text("{oops", encoding="utf-8")
    with pytest.raises(ConfigError, match="cannot read items"):
        OfficeQAEnv(OfficeQAConfig(data_path=str(tmp_path / "bad.json"))).tasks("val")
