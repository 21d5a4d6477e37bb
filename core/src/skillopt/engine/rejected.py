"""Rejected edits remembered across runs (the cross-run rejected-edit ledger).

Runs on the same env from the same initial skill keep proposing the same losing edits:
each run pays for their val rollouts again, and analysts never learn that the edit was
tried. Every gate rejection is appended, with its measured effect, to a ledger under the
user data dir. A rejection only says something about runs whose outcome is decided by
the same things, so the ledger is kept per *outcome key*: the env and its settings, the
target model (backend identity and sampling settings) and the initial skill; within it,
each entry carries the gate's items and settings (its *gate context*). A run on another
target model starts from a ledger of its own (a weak model rejecting an edit says
nothing about a strong one). A new run takes a snapshot of its ledger into its run
directory (``rejected_before.json``), so a resume sees exactly what the interrupted run
saw; analysts are shown the most recent rejections, and a candidate identical to one
rejected before, from the same skill under the same gate, is not scored again. The run
says so in its first lines; ``optimizer.ignore_rejected`` (``--ignore-rejected``) starts
a run without them (its own rejections are still recorded).
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from skillopt.records import Edit
from skillopt.serde import from_data, to_data

if TYPE_CHECKING:
    from skillopt.calls import ModelClient
    from skillopt.config.schema import RunConfig
    from skillopt.engine.context import RunContext
    from skillopt.engine.step import StepOutcome
    from skillopt.envs import Env

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


@attrs.frozen(kw_only=True)
class RunLedger:
    """What a run works with: the earlier rejections it starts with, the gate context its
    own entries carry, the ledger file it appends to ('' = off), and how many earlier
    rejections it was told to ignore."""

    entries: tuple[Rejection, ...] = ()
    context: str = ""
    path: str = ""
    ignored: int = 0


#: env keys that do not change a rollout's outcome
_NOT_OUTCOME = ("workers",)


def _digest(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def outcome_key(cfg: RunConfig, env_name: str, initial_hash: str, target: ModelClient) -> str:
    """What decides a candidate's val scores besides the gate: the env and its settings,
    the target model (its backend's identity, as the call cache keys it, and the sampling
    settings the role adds) and the initial skill."""
    settings = getattr(getattr(target, "backend", None), "settings", None)
    model = {
        "identity": dict(getattr(target, "identity", None) or {}),
        "temperature": getattr(settings, "temperature", None),
        "max_tokens": getattr(settings, "max_tokens", None),
        "reasoning_effort": getattr(settings, "reasoning_effort", ""),
    }
    env_settings = {k: v for k, v in to_data(cfg.env).items() if k not in _NOT_OUTCOME}
    return _digest({"env": env_name, "env_settings": env_settings, "target": model, "initial": initial_hash})


def lineage_path(env: str, key: str) -> Path:
    """The ledger file of an env and outcome key (see :func:`outcome_key`)."""
    from skillopt import paths

    return paths.data_dir() / "rejected" / f"{env}-{key[:16]}.jsonl"


def gate_context(cfg: RunConfig, val_ids: list[str]) -> str:
    """The gate's items and every setting that changes its decision (its plugin settings
    included): a rejection under another gate context proves nothing here. The gate stage
    keys its saved verdicts by the same fingerprint (:func:`skillopt.gates.settings_fingerprint`)."""
    from skillopt.gates import settings_fingerprint

    return settings_fingerprint(cfg, val_ids)


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


def snapshot(run_dir: Path, ledger: Path, *, fresh: bool, ignore: bool = False) -> tuple[tuple[Rejection, ...], int]:
    """(the rejections this run works with, how many earlier ones it ignores): its saved
    snapshot, or for a fresh run the ledger as it stands now (other runs' entries), saved
    first; ``ignore`` saves an empty snapshot, so a resume ignores them too."""
    from skillopt.engine.rundir import RunFileError, read_json, write_json

    saved = run_dir / SNAPSHOT
    try:
        data = read_json(saved, None, expect=list)
    except RunFileError:
        data = None
    if data is not None:
        return tuple(from_data(row, Rejection) for row in data if isinstance(row, dict)), 0
    if not fresh:
        return (), 0  # a run started before the ledger existed: it resumes exactly as it began
    entries = tuple(r for r in read_ledger(ledger) if r.run != run_dir.name)
    write_json(saved, [] if ignore else [to_data(r) for r in entries])
    return ((), len(entries)) if ignore else (entries, 0)


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


def for_run(cfg: RunConfig, env: Env, target: ModelClient, run_dir: Path, val_ids: list[str], *, fresh: bool) -> RunLedger:
    """The run's ledger: its snapshot of earlier rejections, its gate context and the
    ledger file (the ledger off gives no entries and no file)."""
    from skillopt.records import skill_hash

    context = gate_context(cfg, val_ids)
    if not cfg.optimizer.rejected_ledger:
        return RunLedger(context=context)
    ledger = lineage_path(env.name, outcome_key(cfg, env.name, skill_hash(env.initial_skill()), target))
    entries, ignored = snapshot(run_dir, ledger, fresh=fresh, ignore=cfg.optimizer.ignore_rejected)
    return RunLedger(entries=entries, context=context, path=str(ledger), ignored=ignored)


def start_line(found: RunLedger) -> str:
    """What the run says in its first lines when earlier runs' rejections shape it ('' when
    none do)."""
    if found.ignored:
        return (f"rejected before: ignoring {found.ignored} rejection(s) of earlier runs on this env, target model and "
                "initial skill (optimizer.ignore_rejected); this run's own rejections are still recorded")
    if not found.entries:
        return ""
    runs = len({r.run for r in found.entries})
    return (f"rejected before: {len(found.entries)} candidate(s) rejected by {runs} earlier run(s) on this env, target model "
            "and initial skill (rejected_before.json): analysts see their edits, and an identical candidate under the same "
            "gate is refused without scoring it; --ignore-rejected (optimizer.ignore_rejected=true) starts without them")


def remember(run: RunContext, step: int, current_hash: str, outcome: StepOutcome) -> None:
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
