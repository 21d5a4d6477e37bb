"""Upstream's per-split CSV and normalised items under env.split_dir, on files in a tmp dir."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from skillopt.api import ConfigError
from skillopt.testing import check_env_contract
from skillopt_envs_docvqa.env import DocVQAConfig, DocVQAEnv
from skillopt_envs_docvqa.upstream import load_csv, split_question

HEADER = ["questionId", "question", "answer", "image_path", "topic", "docId"]


def write_png(path: Path, shade: int = 200) -> Path:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("L", (40, 30), shade).save(path, format="PNG")
    return path


def write_csv(path: Path, rows: list[list[str]], header: list[str] = HEADER) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


@pytest.fixture
def upstream_dir(tmp_path: Path) -> Path:
    """A miniature upstream layout: CSVs in the split dir, images under data/docvqa_images."""
    root = tmp_path / "docvqa"
    images = root / "images"
    for name in ("q1_d10", "q2_d10", "q3_d11", "q4_d12"):
        write_png(images / f"{name}.png")
    (images / "q1_d10.ocr.txt").write_text("ACME CORP\nTotal: $12.00\n")
    write_csv(root / "train.csv", [
        ["1", "What is the total?", "['$12.00', '12.00']", "images/q1_d10.png", "table/list", "10"],
        ["2", "Who sent it? document_path: images/q2_d10.png", '["ACME CORP"]', "", "layout", "10"],
    ])  # fmt: skip
    write_csv(root / "val.csv", [["3", "What is the date?", "['1 May']", "images/q3_d11.png", "form", "11"]])
    write_csv(root / "test" / "part.csv", [["4", "Name?", "['Rosa']", str(images / "q4_d12.png"), "handwritten|form", "12"]])
    return root


def test_split_question_takes_off_the_document_path_tail():
    assert split_question("What is X? document_path: a/b.png") == ("What is X?", "a/b.png")
    assert split_question("What is X?\nDocument_Path:  /abs/c.png ") == ("What is X?", "/abs/c.png")
    assert split_question("Plain?") == ("Plain?", "")


def test_csv_rows_become_items(upstream_dir):
    items = load_csv(upstream_dir / "train.csv")
    assert [i.id for i in items] == ["1", "2"]
    first, second = items
    assert first.answers == ("$12.00", "12.00") and first.topic == "table/list" and first.doc_id == "10"
    assert first.image == (upstream_dir / "images" / "q1_d10.png").resolve()
    assert first.ocr == "ACME CORP\nTotal: $12.00"  # the sidecar next to the image
    assert second.question == "Who sent it?" and second.image.name == "q2_d10.png" and second.ocr is None


def test_env_reads_csv_splits_in_image_mode(upstream_dir):
    env = check_env_contract(DocVQAEnv, config=DocVQAConfig(split_dir=str(upstream_dir)))
    assert [t.id for t in env.tasks("test")] == ["4"]  # test/part.csv, an absolute image path
    task = env.tasks("train")[0]
    assert task.gold == ["$12.00", "12.00"] and task.task_type == "table/list"
    assert task.inputs["image"].endswith("q1_d10.png") and "ocr" not in task.inputs
    assert "ACME CORP" in task.reference  # the optimizer still sees the page text


def test_ocr_mode_needs_ocr_text_and_says_how_to_give_it(upstream_dir):
    env = DocVQAEnv(DocVQAConfig(split_dir=str(upstream_dir), input="ocr"))
    with pytest.raises(ConfigError, match=r"item 2: env.input='ocr' needs the page's OCR text.*env.input=image"):
        env.tasks("train")


def test_image_paths_resolve_against_data_dir_first(upstream_dir, tmp_path):
    other = tmp_path / "elsewhere"
    write_png(other / "images" / "q3_d11.png", shade=10)
    env = DocVQAEnv(DocVQAConfig(split_dir=str(upstream_dir), data_dir=str(other)))
    assert env.tasks("val")[0].inputs["image"] == str((other / "images" / "q3_d11.png").resolve())


def test_missing_image_is_an_error_naming_the_row_and_the_paths(upstream_dir):
    (upstream_dir / "images" / "q3_d11.png").unlink()
    with pytest.raises(ConfigError) as info:
        DocVQAEnv(DocVQAConfig(split_dir=str(upstream_dir))).tasks("val")
    message = str(info.value)
    assert "val.csv line 2 (id 3): image not found: 'images/q3_d11.png'" in message
    assert str(upstream_dir / "images" / "q3_d11.png") in message and "env.data_dir" in message


@pytest.mark.parametrize(
    ("header", "row", "error"),
    [
        (["id", "answer", "image_path"], ["1", "['x']", "images/q1_d10.png"], r"missing column 'question' \(the CSV has: id, answer, image_path\)"),
        (["id", "question", "image_path"], ["1", "Q?", "images/q1_d10.png"], "missing column 'answer' or 'ground_truth'"),
        (["question", "answer", "image_path"], ["Q?", "['x']", "images/q1_d10.png"], "missing column 'questionId' or 'id'"),
        (["id", "question", "answer", "image_path"], ["1", "Q?", "[]", "images/q1_d10.png"], r"line 2 \(id 1\): no answer"),
        (["id", "question", "answer", "image_path"], ["1", "Q?", "['x']", ""], "no image"),
    ],
)
def test_bad_csv_rows_fail_clearly(upstream_dir, header, row, error):
    path = write_csv(upstream_dir / "bad.csv", [row], header)
    with pytest.raises(ConfigError, match=error):
        load_csv(path)


def test_ground_truth_column_and_no_topic(upstream_dir):
    path = write_csv(upstream_dir / "gt.csv", [["9", "Q?", "['A', 'B']", "images/q1_d10.png"]], ["id", "question", "ground_truth", "image_path"])
    (item,) = load_csv(path)
    assert item.answers == ("A", "B") and item.topic == "default" and item.doc_id == "q1_d10"


def test_normalised_items_with_layout_files(tmp_path):
    from skillopt_envs_docvqa import data

    bundled = data.bundled_root()
    for split in ("train", "val", "test"):
        rows = json.loads((bundled / split / "items.json").read_text())[:2]
        for row in rows:  # absolute paths: the files stay in the package
            row["image"] = str((bundled / split / row["image"]).resolve())
            row["layout"] = str((bundled / split / row["layout"]).resolve())
        (tmp_path / split).mkdir()
        (tmp_path / split / "items.json").write_text(json.dumps(rows))
    env = check_env_contract(DocVQAEnv, config=DocVQAConfig(split_dir=str(tmp_path), input="ocr"))
    task = env.tasks("val")[0]
    assert task.inputs["ocr"].startswith("Bluefield Labs | INVOICE")
    (tmp_path / "val" / "items.json").write_text(json.dumps([{"id": "x", "question": "Q?", "answers": ["a"]}]))
    with pytest.raises(ConfigError, match=r"items.json item 1: id x: no 'image'"):
        DocVQAEnv(DocVQAConfig(split_dir=str(tmp_path))).tasks("val")


def test_data_path_is_refused_with_a_pointer_to_split_dir(tmp_path):
    with pytest.raises(ConfigError, match="env.split_dir"):
        DocVQAEnv(DocVQAConfig(data_path=str(tmp_path)))
    with pytest.raises(ConfigError, match="no such directory"):
        DocVQAEnv(DocVQAConfig(split_dir=str(tmp_path / "nope"))).tasks("val")
