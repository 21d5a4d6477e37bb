"""What a night's engine run directory holds, read back; and the little the night adds to it.

The engine writes every step's stages (``steps/step_NNNN/{rollout,merge,select,apply,gate}``),
``history.json``, the baseline, the fresh re-check and the final test evaluation. A
night reads them (to resume its reflection, to write its report) instead of keeping a
second copy. What the engine has no field for — a proposal's document, origin and
evidence, the contrast a reflection drew, edits aimed at a read-only document — the
``sleep-rules`` policy keeps in ``sleep/proposals.json`` beside them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from skillopt.api import Edit, Rollout, from_data, skill_hash, to_data
from skillopt_sleep.documents import DocEdit
from skillopt_sleep.fsutil import read_json, write_json

PROPOSALS = Path("sleep") / "proposals.json"
ACCEPTED = ("accept", "accept_new_best", "force_accept")


def _steps(run_dir: Path) -> list[Path]:
    return sorted((Path(run_dir) / "steps").glob("step_[0-9][0-9][0-9][0-9]"))


def _complete(path: Path) -> dict[str, Any] | None:
    data = read_json(path)
    return data.get("result") if isinstance(data, dict) and data.get("complete") else None


def rollouts_in(folder: Path) -> list[Rollout]:
    """The rollouts an engine evaluation folder holds (its ``results.jsonl``; the last of each item)."""
    files = [folder / "results.jsonl"] if (folder / "results.jsonl").is_file() else sorted(folder.glob("batch_*/results.jsonl"))
    found: dict[str, Rollout] = {}
    for file in files:
        for line in file.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                found[f"{file.parent.name}/{row['key']}"] = from_data(row["rollout"], Rollout)
    return list(found.values())


def train_rollouts(run_dir: Path, skill: str) -> list[Rollout]:
    """The latest step's train rollouts under ``skill`` (every attempt: a reflection wants the passing ones too)."""
    wanted = skill_hash(skill)
    for step in reversed(_steps(run_dir)):
        got = [r for r in rollouts_in(step / "rollout") if r.skill_hash == wanted]
        if got:
            return got
    return []


def selected_by_step(run_dir: Path) -> dict[int, list[Edit]]:
    """The edits each finished ``select`` put to the gate, by step."""
    out = {}
    for step in _steps(run_dir):
        result = _complete(step / "select" / "result.json")
        if result is not None:
            out[int(step.name[5:])] = [from_data(e, Edit) for e in result["selected"].get("edits", [])]
    return out


def selected_edits(run_dir: Path) -> list[Edit]:
    return [e for edits in selected_by_step(run_dir).values() for e in edits]


def merged_edits(run_dir: Path) -> list[Edit]:
    """Every step's merged proposals, in step order (a night's first-proposed order)."""
    out: dict[tuple[str, str, str, str], Edit] = {}
    for step in _steps(run_dir):
        result = _complete(step / "merge" / "result.json")
        for raw in (result.get("merged") or {}).get("edits", []) if result is not None else ():
            edit = from_data(raw, Edit)
            out.setdefault((edit.op, edit.target_file, edit.target, edit.content), edit)
    return list(out.values())


def history(run_dir: Path) -> list[dict[str, Any]]:
    """``history.json``'s step records."""
    data = read_json(Path(run_dir) / "history.json", [])
    return [h for h in data if isinstance(h, dict) and h.get("step")] if isinstance(data, list) else []


def accepted_steps(run_dir: Path) -> list[int]:
    return [h["step"] for h in history(run_dir) if h.get("action") in ACCEPTED]


def apply_results(run_dir: Path, step: int) -> list[dict[str, Any]]:
    result = _complete(Path(run_dir) / "steps" / f"step_{step:04d}" / "apply" / "result.json")
    return list(result.get("results", [])) if result else []


# ---------------------------------------------------------------------- the night's own record


def _key(doc: str, content: str) -> str:
    return f"{doc}\x1f{content}"


def _load(run_dir: Path) -> dict[str, Any]:
    data = read_json(Path(run_dir) / PROPOSALS, {})
    return data if isinstance(data, dict) else {}


def add_proposals(run_dir: Path, proposed: Sequence[DocEdit], *, readonly: Iterable[DocEdit] = ()) -> None:
    """Keep each proposal's document, origin and evidence (the first time it is proposed)."""
    data = _load(run_dir)
    for field, edits in (("proposals", proposed), ("readonly", readonly)):
        rows = data.setdefault(field, [])
        known = {_key(r["doc"], r["edit"]["content"]) for r in rows}
        rows += [to_data(e) for e in edits if _key(e.doc, e.edit.content) not in known]
    write_json(Path(run_dir) / PROPOSALS, data)


def add_notes(run_dir: Path, notes: Sequence[str], *, reflected: bool = False) -> None:
    """A reflection's notes (a one-off lesson left alone, a failed model call): the engine
    keeps none of a reflect stage's; ``reflected``: the night's reflection is done."""
    data = _load(run_dir)
    rows = data.setdefault("notes", [])
    rows += [n for n in notes if n not in rows]
    data["reflected"] = data.get("reflected", False) or reflected
    write_json(Path(run_dir) / PROPOSALS, data)


def reflected(run_dir: Path) -> bool:
    return bool(_load(run_dir).get("reflected"))


def notes(run_dir: Path) -> list[str]:
    return list(_load(run_dir).get("notes", []))


def set_contrast(run_dir: Path, summary) -> None:
    data = _load(run_dir)
    data["contrast"] = to_data(summary)
    write_json(Path(run_dir) / PROPOSALS, data)


def proposals(run_dir: Path) -> tuple[list[DocEdit], list[DocEdit], Any]:
    """(every proposal in the order first made, the ones aimed at a read-only document, the contrast or None)."""
    from skillopt_sleep.report import ContrastSummary

    data = _load(run_dir)
    contrast = data.get("contrast")
    return ([from_data(r, DocEdit) for r in data.get("proposals", [])], [from_data(r, DocEdit) for r in data.get("readonly", [])],
            from_data(contrast, ContrastSummary) if contrast else None)
