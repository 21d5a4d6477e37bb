"""Rejected edits remembered across runs (the cross-run rejected-edit ledger).

Runs on the same env from the same initial skill keep proposing the same losing edits:
each run pays for their val rollouts again, and analysts never learn that the edit was
tried. Every gate rejection is appended, with its measured effect, to a ledger per env
and skill lineage (the initial skill's hash) under the user data dir. A new run takes a
snapshot of it into its run directory (``rejected_before.json``), so a resume sees
exactly what the interrupted run saw; analysts are shown the most recent rejections,
and a candidate identical to one rejected before, from the same skill under the same
gate, is not scored again.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import attrs

from skillopt.records import Edit
from skillopt.serde import from_data, to_data

SNAPSHOT = "rejected_before.json"


@attrs.frozen(kw_only=True)
class Rejection:
    """One rejected candidate: the edits that made it and what the gate measured."""

    #: hash of the skill the candidate was built from, and of the candidate
    parent_hash: str
    candidate_hash: str
    #: the gate's items and settings (a rejection under another gate proves nothing here)
    gate_context: str
    #: candidate minus current gate score on the compared items
    effect: float
    reason: str = ""
    edits: tuple[Edit, ...] = ()
    #: the run directory's name and the step
    run: str = ""
    step: int = 0
    at: str = ""
    #: a step's proposal that lost the race to a sibling: the winner's ``candidate_hash``
    #: ('' = the gate rejected it against the skill it came from)
    lost_to: str = ""


def lineage_path(env: str, initial_hash: str) -> Path:
    from skillopt import paths

    return paths.data_dir() / "rejected" / f"{env}-{initial_hash[:16]}.jsonl"


def gate_context(cfg, val_ids: list[str]) -> str:
    e = cfg.evaluation
    parts = [e.gate, e.gate_metric, str(e.gate_mixed_weight), str(e.gate_repeats), str(e.gate_max_repeats),
             str(e.gate_confidence), str(e.gate_min_margin), str(e.gate_no_regression), str(e.gate_race_rounds),
             str(e.gate_race_futility), *val_ids]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16]


def read_ledger(path: Path) -> list[Rejection]:
    """Every readable entry (a damaged line is skipped: the ledger only ever saves calls)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    out = []
    for line in lines:
        try:
            out.append(from_data(json.loads(line), Rejection))
        except Exception:  # noqa: BLE001 - one damaged line loses one entry, never the run
            continue
    return out


def snapshot(run_dir: Path, ledger: Path, *, fresh: bool) -> tuple[Rejection, ...]:
    """The rejections this run works with: its saved snapshot, or for a fresh run the
    ledger as it stands now (other runs' entries), saved first."""
    from skillopt.engine.rundir import RunFileError, read_json, write_json

    saved = run_dir / SNAPSHOT
    try:
        data = read_json(saved, None, expect=list)
    except RunFileError:
        data = None
    if data is not None:
        return tuple(from_data(row, Rejection) for row in data if isinstance(row, dict))
    if not fresh:
        return ()  # a run started before the ledger existed: it resumes exactly as it began
    entries = tuple(r for r in read_ledger(ledger) if r.run != run_dir.name)
    write_json(saved, [to_data(r) for r in entries])
    return entries


def record(ledger: Path, rejection: Rejection) -> None:
    """Append ``rejection`` once (a resumed commit of the same step adds nothing; a step's
    raced proposals are one entry each)."""
    if any(r.run == rejection.run and r.step == rejection.step and r.candidate_hash == rejection.candidate_hash
           for r in read_ledger(ledger)):
        return
    ledger.parent.mkdir(parents=True, exist_ok=True)
    entry = attrs.evolve(rejection, at=rejection.at or time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    with open(ledger, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(to_data(entry), ensure_ascii=False) + "\n")


def rejected_before(entries: tuple[Rejection, ...], parent_hash: str, candidate_hash: str, context: str) -> Rejection | None:
    """The earlier rejection of this very candidate from this skill under this gate (a
    proposal that only lost a race to a sibling was never compared with its parent)."""
    for r in reversed(entries):
        if not r.lost_to and r.parent_hash == parent_hash and r.candidate_hash == candidate_hash and r.gate_context == context:
            return r
    return None


def analyst_section(entries: tuple[Rejection, ...], shown: int) -> str:
    """The most recent rejected edits with their measured effect, for the analysts."""
    if shown <= 0 or not entries:
        return ""
    lines, seen = [], set()
    for r in reversed(entries):
        for e in r.edits:
            key = (e.op, e.target, e.content)
            if key in seen:
                continue
            seen.add(key)
            target = f" at {e.target[:80]!r}" if e.target else ""
            raced = ", lost a race to a sibling proposal" if r.lost_to else ""
            lines.append(f"- {e.op}{target}: {e.content[:200]!r} -> val {r.effect:+.3f} (run {r.run}, step {r.step}{raced})")
            if len(lines) >= shown:
                break
        if len(lines) >= shown:
            break
    return ("## Edits rejected in earlier runs (measured on val)\nThese did not beat the skill they were tried on; "
            "do not propose them again unless the evidence here is new.\n" + "\n".join(lines))


def for_run(cfg, env, run_dir: Path, val_ids: list[str], *, fresh: bool) -> tuple[tuple[Rejection, ...], str, str]:
    """(the run's snapshot of earlier rejections, its gate context, the ledger file) — the
    ledger off gives no entries and no file."""
    from skillopt.records import skill_hash

    context = gate_context(cfg, val_ids)
    if not cfg.optimizer.rejected_ledger:
        return (), context, ""
    ledger = lineage_path(env.name, skill_hash(env.initial_skill()))
    return snapshot(run_dir, ledger, fresh=fresh), context, str(ledger)


def remember(run, step: int, current_hash: str, outcome) -> None:
    """Append a gate rejection of ``outcome`` to the run's ledger (when it has one)."""
    from skillopt.records import skill_hash

    gated = outcome.gate
    if not run.rejected_path or gated is None or gated.verdict.accepted or gated.verdict.details.get("refused"):
        return
    edits = tuple(res.edit for res in (outcome.apply.results if outcome.apply else ()) if res.status == "applied")
    v = gated.verdict
    record(Path(run.rejected_path), Rejection(
        parent_hash=current_hash, candidate_hash=skill_hash(outcome.candidate), gate_context=run.gate_context,
        effect=round(v.candidate_score - v.current_score, 4), reason=v.reason[:300], edits=edits,
        run=run.rundir.root.name, step=step,
    ))
