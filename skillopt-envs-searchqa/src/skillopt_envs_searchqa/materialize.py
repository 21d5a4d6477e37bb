"""Materialise the paper's SearchQA split from the Hugging Face dataset.

The package ships upstream's ID manifests (``data/manifests/searchqa_id_split``: 400 /
200 / 1400 ids, MIT, from microsoft/SkillOpt). Each id is the ``key`` of a row of
``lucadiliello/searchqa``. We scan every split of the source, keep the manifest's rows,
and write ``<out>/{train,val,test}/items.json`` in manifest order, plus a
``split_manifest.json`` with counts and content hashes. Missing ids, ids in two splits,
and a key that occurs twice in the source are errors, never silently skipped.

The source is either a dataset on the Hub (needs ``pip install datasets`` and network)
or a local directory / file of JSON or JSONL rows in the same format (no extra
dependency), e.g. a copy of the dataset exported elsewhere.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import attrs

from skillopt.api import ConfigError

DATASET = "lucadiliello/searchqa"
SPLITS = ("train", "val", "test")


@attrs.frozen(kw_only=True)
class Report:
    out_dir: Path
    counts: dict[str, int]
    source: str
    revision: str
    scanned: int


def manifest_root() -> Path:
    return Path(str(resources.files("skillopt_envs_searchqa").joinpath("data", "manifests", "searchqa_id_split")))


def manifest_ids(root: Path | None = None) -> dict[str, list[str]]:
    """The id lists of the three splits; an id in two splits (or twice in one) is an error."""
    root = root or manifest_root()
    ids: dict[str, list[str]] = {}
    owner: dict[str, str] = {}
    for split in SPLITS:
        path = root / split / "items.json"
        try:
            rows = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"SearchQA id manifest missing: {path}") from None
        ids[split] = []
        for row in rows:
            key = str(row["id"] if isinstance(row, dict) else row)
            if key in owner:
                raise ConfigError(f"id manifest: id {key} is listed in both '{owner[key]}' and '{split}'")
            owner[key] = split
            ids[split].append(key)
    return ids


# --------------------------------------------------------------------------- sources


def rows_from_local(path: Path) -> Iterator[Mapping[str, Any]]:
    """Rows from a JSON array / JSONL file, or every such file under a directory (sorted)."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file())
    if not files:
        raise ConfigError(f"{path}: no .json or .jsonl files with SearchQA rows")
    for file in files:
        text = file.read_text(encoding="utf-8")
        try:
            if file.suffix == ".jsonl":
                for _n, line in enumerate(text.splitlines(), 1):
                    if line.strip():
                        yield json.loads(line)
            else:
                data = json.loads(text)
                yield from (data if isinstance(data, list) else data.get("data", data.get("rows", [])))
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{file}: not valid JSON ({exc})") from None


def rows_from_hub(dataset: str, revision: str | None) -> Iterator[Mapping[str, Any]]:
    """Every row of every split of a Hub dataset, via ``datasets`` (imported only here)."""
    try:
        import datasets  # type: ignore[import-not-found]
    except ImportError:
        raise ConfigError(
            "materializing from the Hugging Face Hub needs the `datasets` package: "
            "pip install 'skillopt-envs-searchqa[materialize]' (or pip install datasets), "
            "or pass --source DIR with the dataset's rows as JSON/JSONL files"
        ) from None
    try:
        loaded = datasets.load_dataset(dataset, revision=revision) if revision else datasets.load_dataset(dataset)
    except Exception as exc:  # noqa: BLE001 - network, auth and not-found errors all end here
        raise ConfigError(f"could not load {dataset} from the Hugging Face Hub: {type(exc).__name__}: {exc}") from None
    splits = loaded.values() if hasattr(loaded, "values") else [loaded]
    for split in splits:
        yield from split


def open_source(source: str, revision: str | None = None) -> Iterable[Mapping[str, Any]]:
    """A local path if it exists, else a Hub dataset id (``owner/name``)."""
    path = Path(source).expanduser()
    if path.exists():
        return rows_from_local(path)
    parts = source.split("/")
    if len(parts) != 2 or not all(parts) or source.startswith((".", "~")) or path.suffix in (".json", ".jsonl"):
        raise ConfigError(f"--source {source}: no such file or directory (and not a Hub dataset id like {DATASET})")
    return rows_from_hub(source, revision)


# --------------------------------------------------------------------------- rows -> items


def row_key(row: Mapping[str, Any]) -> str:
    for field in ("key", "id", "qid"):
        if row.get(field) not in (None, ""):
            return str(row[field])
    raise ConfigError(f"a source row has no 'key' field (fields: {', '.join(sorted(row))})")


def row_answers(row: Mapping[str, Any]) -> list[str]:
    answers = row.get("answers", row.get("answer"))
    if isinstance(answers, Mapping):  # SQuAD style {"text": [...], "answer_start": [...]}
        answers = answers.get("text", [])
    if isinstance(answers, str):
        answers = [answers]
    out = [str(a) for a in (answers or []) if str(a).strip()]
    if not out:
        raise ConfigError(f"source row {row_key(row)} has no answers")
    return out


def to_item(row: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": row_key(row),
        "question": str(row.get("question", "")),
        "context": str(row.get("context", "")),
        "answers": row_answers(row),
    }


def collect(rows: Iterable[Mapping[str, Any]], wanted: dict[str, list[str]]) -> tuple[dict[str, dict], int]:
    """Keep the rows whose key is wanted; a wanted key seen twice is an error."""
    owner = {key: split for split, keys in wanted.items() for key in keys}
    found: dict[str, dict] = {}
    scanned = 0
    for row in rows:
        scanned += 1
        key = row_key(row)
        if key not in owner:
            continue
        if key in found:
            raise ConfigError(f"the source has two rows with key {key}; refusing to guess which one the split means")
        found[key] = to_item(row)
    missing = [key for split in SPLITS for key in wanted[split] if key not in found]
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise ConfigError(f"{len(missing)} manifest id(s) are not in the source ({shown}); is it the right dataset and revision?")
    return found, scanned


# --------------------------------------------------------------------------- writing


def materialize(
    out_dir: Path,
    rows: Iterable[Mapping[str, Any]],
    *,
    source: str = DATASET,
    revision: str = "",
    force: bool = False,
    manifest: Path | None = None,
) -> Report:
    """Write the three splits under ``out_dir``; all-or-nothing (a failure leaves no partial split)."""
    out_dir = Path(out_dir).expanduser()
    if (out_dir / "split_manifest.json").exists() and not force:
        raise ConfigError(f"{out_dir} already holds a materialized split; pass --force to overwrite it")
    wanted = manifest_ids(manifest)
    found, scanned = collect(rows, wanted)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".searchqa-", dir=out_dir.parent))
    try:
        meta = _write_staging(staging, found, wanted, source, revision, scanned)
        _swap_in(staging, out_dir)
    except BaseException:
        import shutil

        shutil.rmtree(staging, ignore_errors=True)
        raise
    return Report(out_dir=out_dir, counts=meta["counts"], source=source, revision=meta["revision"], scanned=scanned)


def _write_staging(staging: Path, found: dict, wanted: dict[str, list[str]], source: str, revision: str, scanned: int) -> dict:
    files: dict[str, dict[str, Any]] = {}
    for split in SPLITS:
        text = json.dumps([found[key] for key in wanted[split]], ensure_ascii=False, indent=1) + "\n"
        (staging / split).mkdir()
        (staging / split / "items.json").write_text(text, encoding="utf-8")
        files[split] = {"count": len(wanted[split]), "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}
    meta = {
        "benchmark": "SearchQA",
        "source": source,
        "revision": revision or "(default branch)",
        "id_manifest": "microsoft/SkillOpt data/searchqa_id_split (MIT)",
        "counts": {split: files[split]["count"] for split in SPLITS},
        "files": {f"{split}/items.json": files[split]["sha256"] for split in SPLITS},
        "scanned_rows": scanned,
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "notes": ["Rows of the source dataset; its licence and terms apply to this folder."],
    }
    (staging / "split_manifest.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return meta


def _swap_in(staging: Path, out_dir: Path) -> None:
    """Replace ``out_dir`` by the staged folder (old contents are removed only after success)."""
    from skillopt.api import replace_dir

    replace_dir(staging, out_dir)
