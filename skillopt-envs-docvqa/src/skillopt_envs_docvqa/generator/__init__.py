"""The synthetic DocVQA page set: rendered pages, their layouts, and questions per split.

``python -m skillopt_envs_docvqa.generator [OUT_DIR]`` rebuilds ``data/sample``
(:func:`generate_sample` is the same for the core's sample check). Everything
is seeded (one ``random.Random`` per document, keyed by seed, kind and index), so the
items are identical on every machine. The pixels and word boxes depend on the font
rasteriser as well, so the manifest records the Pillow and FreeType versions that drew
them; a test regenerates the set and compares items always, pixels when those match.
Splits are by document: every question about a page lands in the page's split.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from skillopt_envs_docvqa.generator.core import Document

SEED = 20260101
DOCS_PER_KIND = 10
#: document index within its kind -> split (3 train / 2 val / 5 test pages per kind)
SPLIT_OF_INDEX = ("train",) * 3 + ("val",) * 2 + ("test",) * 5
LICENSE = "CC0-1.0"


def kinds() -> dict[str, Callable[[random.Random, str], Document]]:
    from skillopt_envs_docvqa.generator import tabular, textual

    return {
        "invoice": tabular.invoice,
        "receipt": tabular.receipt,
        "table": tabular.report_table,
        "form": textual.employee_form,
        "letter": textual.letter,
        "memo": textual.memo,
    }


def generate(seed: int = SEED, docs_per_kind: int = DOCS_PER_KIND) -> list[tuple[str, Document]]:
    """``(split, document)`` pairs, interleaved by kind so any prefix mixes kinds."""
    out = []
    makers = kinds()
    for index in range(docs_per_kind):
        for kind, make in makers.items():
            rng = random.Random(f"skillopt-docvqa:{seed}:{kind}:{index}")
            out.append((SPLIT_OF_INDEX[index % len(SPLIT_OF_INDEX)], make(rng, f"{kind}-{index:02d}")))
    return out


def renderer() -> dict[str, str]:
    """What decides the exact pixels and boxes (besides this code)."""
    import PIL
    from PIL import features

    return {"pillow": PIL.__version__, "freetype": str(features.version("freetype2"))}


def pixels_sha256(image) -> str:
    return hashlib.sha256(f"{image.mode}:{image.size}:".encode() + image.tobytes()).hexdigest()


def item_rows(split: str, doc: Document) -> list[dict[str, Any]]:
    return [
        {
            "id": f"{doc.doc_id}-q{n}",
            "doc_id": doc.doc_id,
            "question": q.text,
            "answers": list(q.answers),
            "topic": q.topic,
            "image": f"../pages/{doc.doc_id}.png",
            "layout": f"../pages/{doc.doc_id}.layout.json",
        }
        for n, q in enumerate(doc.questions, 1)
    ]


def build(out_dir: Path, seed: int = SEED, docs_per_kind: int = DOCS_PER_KIND) -> dict[str, Any]:
    """Write pages, layouts, per-split items and the manifest under ``out_dir``."""
    out_dir = Path(out_dir)
    (out_dir / "pages").mkdir(parents=True, exist_ok=True)
    splits: dict[str, list[dict[str, Any]]] = {"train": [], "val": [], "test": []}
    pages: dict[str, dict[str, Any]] = {}
    for split, doc in generate(seed, docs_per_kind):
        png = out_dir / "pages" / f"{doc.doc_id}.png"
        doc.page.image.save(png, format="PNG", optimize=True)
        layout = {"doc_id": doc.doc_id, **doc.page.layout()}
        (out_dir / "pages" / f"{doc.doc_id}.layout.json").write_text(_dump(layout), encoding="utf-8")
        splits[split].extend(item_rows(split, doc))
        pages[doc.doc_id] = {"kind": doc.kind, "split": split, "pixels_sha256": pixels_sha256(doc.page.image), "questions": len(doc.questions)}
    for split, rows in splits.items():
        (out_dir / split).mkdir(exist_ok=True)
        (out_dir / split / "items.json").write_text(_dump(rows), encoding="utf-8")
    manifest = {
        "name": "skillopt-docvqa synthetic sample",
        "license": LICENSE,
        "seed": seed,
        "docs_per_kind": docs_per_kind,
        "counts": {s: {"documents": sum(1 for p in pages.values() if p["split"] == s), "questions": len(r)} for s, r in splits.items()},
        "renderer": renderer(),
        "pages": pages,
    }
    (out_dir / "manifest.json").write_text(_dump(manifest), encoding="utf-8")
    return manifest


def generate_sample(out: Path) -> None:
    """The sample-generator convention: write the bundled sample tree to ``out``."""
    build(out)


def _dump(data: Any) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"
