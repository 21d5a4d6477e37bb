"""Loading SpreadsheetBench tasks: the bundled sample and the real Verified-400 release.

Sources (the core's split-source chain, see :class:`SpreadsheetEnv`), first match wins:

* ``env.data_path``: the extracted ``spreadsheetbench_verified_400`` folder (a
  ``dataset.json`` plus ``spreadsheet/<id>/``), split by the upstream ID manifest shipped
  in this package (``env.split_manifest`` may name another manifest), or by the id items
  of ``env.split_dir`` when that is set too; spreadsheets resolve under the release.
* ``env.split_dir``: ``train/ val/ test/`` files of full items; spreadsheets resolve
  under the split dir. The bundled sample uses this layout.
* nothing: the bundled, generated sample.

Test cases in a task folder: ``{no}_{id}_init.xlsx``/``{no}_{id}_golden.xlsx`` (Verified),
``{no}_{id}_input.xlsx``/``{no}_{id}_answer.xlsx`` (original release), or one bare
``initial.xlsx``/``golden.xlsx`` pair.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

from skillopt.api import ConfigError, Task, read_items, read_rows, split_file
from skillopt_envs_spreadsheet.ranges import AnswerPositionError, parse_answer_position

_NUMBERED = re.compile(r"^(\d+)_(.+)_(init|golden|input|answer)\.xlsx$", re.IGNORECASE)
_PARTNER = {"init": "golden", "input": "answer"}
TYPE_NAMES = {"cell-level manipulation": "cell-level", "sheet-level manipulation": "sheet-level"}


def package_path(*parts: str) -> Path:
    return Path(str(resources.files("skillopt_envs_spreadsheet").joinpath(*parts)))


def sample_dir() -> Path:
    return package_path("sample")


def normalize_type(text: str) -> str:
    """``Cell-Level Manipulation`` -> ``cell-level``; other labels slugified."""
    raw = (text or "").strip()
    if not raw:
        return "default"
    return TYPE_NAMES.get(raw.lower(), re.sub(r"[^a-z0-9]+", "-", raw.lower()).strip("-"))


def discover_cases(folder: Path) -> list[tuple[Path, Path]]:
    """(input, golden) pairs of a task folder, ordered by case number."""
    if not folder.is_dir():
        raise ConfigError(f"task folder not found: {folder}")
    numbered: dict[tuple[int, str], dict[str, Path]] = {}
    for path in sorted(folder.iterdir()):
        m = _NUMBERED.match(path.name)
        if m:
            role = m.group(3).lower()
            family = "init" if role in ("init", "golden") else "input"
            numbered.setdefault((int(m.group(1)), family), {})[role] = path
    pairs: list[tuple[int, Path, Path]] = []
    for (no, family), roles in sorted(numbered.items()):
        partner = _PARTNER[family]
        if family not in roles or partner not in roles:
            have = next(iter(roles.values()))
            missing = partner if family in roles else family
            raise ConfigError(f"{have}: test case {no} has no matching '_{missing}.xlsx' file in {folder}")
        pairs.append((no, roles[family], roles[partner]))
    if pairs:
        families = {fam for (_no, fam) in numbered}
        if len(families) > 1:  # both naming styles present: prefer the Verified one
            pairs = [p for p in pairs if p[1].stem.lower().endswith("_init")]
        return [(a, b) for _no, a, b in pairs]
    bare_in, bare_gold = folder / "initial.xlsx", folder / "golden.xlsx"
    if bare_in.is_file() and bare_gold.is_file():
        return [(bare_in, bare_gold)]
    raise ConfigError(
        f"no test cases in {folder}: expected '{{no}}_{{id}}_init.xlsx' + '_golden.xlsx', "
        f"'{{no}}_{{id}}_input.xlsx' + '_answer.xlsx', or 'initial.xlsx' + 'golden.xlsx'"
    )


def build_task(item: dict[str, Any], root: Path, split: str) -> Task:
    """A Task from one item; every problem is an error naming the item and the field (the
    core adds the file and the item number)."""
    task_id = str(item.get("id", "")).strip()
    if not task_id:
        raise ConfigError("an item has no 'id'")
    missing = [k for k in ("instruction", "answer_position") if not str(item.get(k, "")).strip()]
    if missing:
        raise ConfigError(f"item {task_id!r} has no {', '.join(repr(m) for m in missing)}")
    position = str(item["answer_position"]).strip()
    try:
        parse_answer_position(position)
    except AnswerPositionError as exc:
        raise ConfigError(f"item {task_id!r}: bad answer_position: {exc}") from None
    rel = str(item.get("spreadsheet_path") or f"spreadsheet/{task_id}")
    folder = Path(rel) if Path(rel).is_absolute() else root / rel
    cases = discover_cases(folder)
    kind = str(item.get("instruction_type", ""))
    return Task(
        id=task_id,
        inputs={
            "instruction": str(item["instruction"]).strip(),
            "instruction_type": kind or "Cell-Level Manipulation",
            "answer_position": position,
            "input_file": str(cases[0][0]),
        },
        gold={"answer_position": position, "cases": [[str(a), str(b)] for a, b in cases]},
        task_type=normalize_type(kind),
        split=split,
    )


def load_manifest(path: Path | None = None) -> dict[str, list[dict[str, Any]]]:
    """Split -> id items, from the shipped upstream manifest or a user manifest (a JSON
    file with ``splits``, or a folder of ``train/ val/ test/`` item files)."""
    path = Path(path) if path else package_path("data", "verified400_split.json")
    if path.is_dir():
        return {s: read_items(split_file(path, s)) for s in ("train", "val", "test")}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"env.split_manifest: no such file: {path}") from None
    splits = data.get("splits") if isinstance(data, dict) else None
    if not isinstance(splits, dict) or not all(isinstance(splits.get(s), list) for s in ("train", "val", "test")):
        raise ConfigError(f"{path}: a split manifest needs 'splits' with 'train', 'val' and 'test' lists")
    return splits


def find_dataset_file(root: Path) -> Path:
    """The items file of an extracted release: ``dataset.json`` or the only JSON at the top."""
    if root.is_file():
        return root
    if not root.is_dir():
        raise ConfigError(f"env.data_path: no such file or folder: {root}")
    preferred = root / "dataset.json"
    if preferred.is_file():
        return preferred
    found = sorted(p for p in root.iterdir() if p.suffix in (".json", ".jsonl") and p.is_file())
    if len(found) == 1:
        return found[0]
    listed = ", ".join(p.name for p in found) or "none"
    raise ConfigError(f"env.data_path={root}: expected dataset.json (or exactly one .json/.jsonl file), found: {listed}")


class TaskSource:
    """The configured paths; the release's items are read once and joined with split ids."""

    def __init__(self, *, data_path: str = "", split_dir: str = "", split_manifest: str = ""):
        self.data_path = Path(data_path).expanduser() if data_path else None
        self.split_dir = Path(split_dir).expanduser() if split_dir else None
        self.split_manifest = Path(split_manifest).expanduser() if split_manifest else None
        self._dataset: dict[str, dict[str, Any]] | None = None

    def describe(self) -> str:
        split = f"split dir {self.split_dir}" if self.split_dir else f"manifest {self.split_manifest or 'verified400, shipped'}"
        return f"SpreadsheetBench data {self.data_path} ({split})"

    @property
    def root(self) -> Path:
        """Where an item's ``spreadsheet_path`` resolves: the release, else the split dir, else the sample."""
        if self.data_path is not None:
            return self.data_path if self.data_path.is_dir() else self.data_path.parent
        return self.split_dir or sample_dir()

    def dataset(self) -> dict[str, dict[str, Any]]:
        if self._dataset is None:
            assert self.data_path is not None
            items = read_items(find_dataset_file(self.data_path))
            self._dataset = {str(it.get("id")): it for it in items if isinstance(it, dict)}
        return self._dataset

    def rows(self, split: str) -> tuple[list[dict[str, Any]], str]:
        """(the items of ``split``, where their ids come from): the id items of
        ``env.split_dir`` or of the manifest, completed from the dataset file, in their order."""
        if self.split_dir is not None:
            path = split_file(self.split_dir, split)
            items, where = read_rows(path), str(path)
        else:
            items, where = load_manifest(self.split_manifest)[split], f"manifest split '{split}'"
        data = self.dataset()
        missing = [str(it.get("id")) for it in items if str(it.get("id")) not in data]
        if missing:
            raise ConfigError(
                f"{len(missing)} of the {len(items)} ids of {where} are not in {find_dataset_file(self.data_path)} "
                f"(e.g. {', '.join(missing[:5])}); point env.data_path at the extracted spreadsheetbench_verified_400 "
                "folder, or give env.split_dir / env.split_manifest for your own split"
            )
        return [{**it, **data[str(it.get("id"))]} for it in items], where  # the release's own fields win
