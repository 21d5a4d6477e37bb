"""The bundled page set: deterministic, equal to a regeneration, answers really drawn, split by page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("PIL")

from skillopt.testing import check_sample_regenerates
from skillopt_envs_docvqa import data, generator
from skillopt_envs_docvqa.env import DocVQAEnv
from skillopt_envs_docvqa.layout import ocr_text, read_layout
from skillopt_envs_docvqa.scoring import normalize

BUNDLED = data.bundled_root()
SPLITS = ("train", "val", "test")


def bundled_rows(split: str) -> list[dict]:
    return json.loads((BUNDLED / split / "items.json").read_text())


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("regen")
    generator.build(out)
    return out


def test_generation_is_deterministic():
    first = [(split, doc.doc_id, doc.questions, doc.page.layout()) for split, doc in generator.generate(docs_per_kind=2)]
    second = [(split, doc.doc_id, doc.questions, doc.page.layout()) for split, doc in generator.generate(docs_per_kind=2)]
    assert first == second
    other_seed = [(d.doc_id, d.questions) for _, d in generator.generate(seed=7, docs_per_kind=2)]
    assert other_seed != [(d, q) for _, d, q, _ in first]


def test_bundled_items_equal_a_regeneration(regenerated):
    for split in SPLITS:
        assert json.loads((regenerated / split / "items.json").read_text()) == bundled_rows(split), split
    ours, theirs = json.loads((BUNDLED / "manifest.json").read_text()), json.loads((regenerated / "manifest.json").read_text())
    assert ours["counts"] == theirs["counts"] and ours["seed"] == theirs["seed"] and ours["license"] == "CC0-1.0"
    assert {d: p["split"] for d, p in ours["pages"].items()} == {d: p["split"] for d, p in theirs["pages"].items()}


def test_bundled_pixels_and_layouts_equal_a_regeneration(regenerated):
    """Pixels and word boxes depend on the font rasteriser: compared when it is the one that drew them."""
    from PIL import Image

    ours = json.loads((BUNDLED / "manifest.json").read_text())
    if ours["renderer"] != generator.renderer():
        pytest.skip(f"bundled pages were drawn by {ours['renderer']}, this machine has {generator.renderer()}")
    for doc_id, page in ours["pages"].items():
        with Image.open(BUNDLED / "pages" / f"{doc_id}.png") as image:
            assert generator.pixels_sha256(image) == page["pixels_sha256"], doc_id
        with Image.open(regenerated / "pages" / f"{doc_id}.png") as image:
            assert generator.pixels_sha256(image) == page["pixels_sha256"], doc_id
        layout = f"{doc_id}.layout.json"
        assert (regenerated / "pages" / layout).read_bytes() == (BUNDLED / "pages" / layout).read_bytes(), doc_id


def test_the_generator_convention_regenerates_the_whole_sample():
    """Every file, pixels included, so only where the font rasteriser is the one that drew them."""
    ours = json.loads((BUNDLED / "manifest.json").read_text())
    if ours["renderer"] != generator.renderer():
        pytest.skip(f"bundled pages were drawn by {ours['renderer']}, this machine has {generator.renderer()}")
    check_sample_regenerates(DocVQAEnv)


def test_every_answer_is_drawn_on_its_page():
    """The first answer of every item is whole words of one line of its layout (trailing punctuation aside)."""
    for split in SPLITS:
        for row in bundled_rows(split):
            layout = read_layout(BUNDLED / split / row["layout"])
            pattern = re.compile(r"(?<!\S)" + re.escape(row["answers"][0]) + r"(?=[,.;:]?(?:\s|$))")
            lines = [" ".join(w["text"] for w in line["words"]) for line in layout["lines"]]
            assert all(line["text"] == text for line, text in zip(layout["lines"], lines, strict=True))
            assert any(pattern.search(text) for text in lines), f"{row['id']}: {row['answers'][0]!r} not drawn"
            assert normalize(row["answers"][0]) in normalize(ocr_text(layout)), row["id"]


def test_layout_boxes_hold_ink():
    """Each recorded word box covers dark pixels: the layout describes the image, not a wish."""
    from PIL import Image

    for doc_id in ("invoice-00", "letter-04", "table-09"):
        layout = read_layout(BUNDLED / "pages" / f"{doc_id}.layout.json")
        with Image.open(BUNDLED / "pages" / f"{doc_id}.png") as image:
            gray = image.convert("L")
            assert gray.size == (layout["width"], layout["height"])
            for line in layout["lines"]:
                for word in line["words"]:
                    if word["text"].strip("_") == "":
                        continue
                    assert gray.crop(tuple(word["box"])).getextrema()[0] < 128, (doc_id, word)
            blank = gray.crop((0, layout["height"] - 30, 40, layout["height"]))  # bottom-left margin
            assert blank.getextrema() == (255, 255)


def test_splits_share_no_document_and_sizes_hold():
    docs = {split: {row["doc_id"] for row in bundled_rows(split)} for split in SPLITS}
    assert not (docs["train"] & docs["val"]) and not (docs["train"] & docs["test"]) and not (docs["val"] & docs["test"])
    rows = [row for split in SPLITS for row in bundled_rows(split)]
    assert len(rows) >= 150 and len({r["id"] for r in rows}) == len(rows)
    assert {r["topic"] for r in rows} >= {"form", "table/list", "layout", "free_text", "form|layout"}
    kinds = {r["doc_id"].split("-")[0] for r in rows}
    assert kinds == {"invoice", "receipt", "table", "form", "letter", "memo"}
    assert all(len(r["answers"]) >= 1 for r in rows) and sum(len(r["answers"]) > 1 for r in rows) > len(rows) // 3
    size = sum(f.stat().st_size for f in BUNDLED.rglob("*") if f.is_file())
    assert size < 5 * 1024 * 1024, size


def test_aliases_cover_amounts_and_dates():
    rows = [row for split in SPLITS for row in bundled_rows(split)]
    amount = next(r for r in rows if r["answers"][0].startswith("$") and "," in r["answers"][0])
    assert amount["answers"][0].replace("$", "").replace(",", "") in amount["answers"]
    date = next(r for r in rows if "/" in r["answers"][0] and r["topic"] == "form")
    month, day, year = date["answers"][0].split("/")
    assert f"{year}-{month}-{day}" in date["answers"] and any("," in a for a in date["answers"][1:])
