"""Tonight's task list: mined from harvested sessions or read from a reviewed file,
recalled from earlier nights, dreamed, and kept in the night's engine run directory.

Split discipline lives here: real tasks keep the split of their sessions, recalled
and dreamed tasks only ever join train, and ``max_tasks`` interleaves splits so val is
never starved by train.

The run directory is the one home of tonight's tasks (:data:`TASKS_FILE`), written as
soon as they are known and again once dreams are made. A handoff night takes several
rounds, each stopping when prompts wait for answers; harvesting again each round would
see a moved lookback window and the sessions added since, so a later round could replay
tasks the first never asked about. A pending round's tasks file is read back instead,
and the engine then resumes its run in the same directory. Re-running with different
task-shaping options is an error naming the file, never a silent re-mine. When a
handoff night ends its file moves to the handoff directory, archived with the answers
for review (``handoff-done/night-NNNN/tasks.json``), or is removed after a dry run, so
the next run starts afresh; any other night's file stays in its run directory.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import attrs

from skillopt.api import ConfigError, from_data, to_data
from skillopt_sleep import skills
from skillopt_sleep.fsutil import read_json, write_json
from skillopt_sleep.mine import heuristic
from skillopt_sleep.mine.dream import dream
from skillopt_sleep.mine.llm import mine_session
from skillopt_sleep.mine.memory import read_memory
from skillopt_sleep.mine.recall import recall
from skillopt_sleep.mine.split import session_splits
from skillopt_sleep.mine.tasks import SleepTask
from skillopt_sleep.options import SleepOptions
from skillopt_sleep.report import DreamSummary, Gathered, MiningSummary, TaskRow

#: tonight's task list, inside the night's engine run directory
TASKS_FILE = Path("sleep") / "tasks.json"
SCHEMA = "skillopt-sleep-night-tasks"
#: the options that decide which tasks a night replays
SHAPING = ("sources", "roots", "scope", "lookback_hours", "agent", "miner", "max_sessions", "max_tasks", "recall_k",
           "dream_factor", "val_fraction", "test_fraction", "seed")


@attrs.frozen(kw_only=True)
class Kept:
    """A pending handoff round's task list, read back from its run directory."""

    path: Path
    tasks: tuple[SleepTask, ...]
    #: how the tasks were found (harvest and mining summaries, task rows, dreams)
    gathered: Gathered
    dreamed: bool


def shaping(opts: SleepOptions, given: list[SleepTask] | None) -> dict:
    """The options that decide which tasks a night replays (plus a given tasks file)."""
    out = {name: to_data(getattr(opts, name)) for name in SHAPING}
    out["roots"] = {k: [str(p) for p in v] for k, v in sorted(opts.roots.items())}
    out["sources"] = list(opts.sources)
    out["tasks_file"] = (
        hashlib.sha256("\x1f".join(sorted(t.id for t in given)).encode()).hexdigest()[:16] if given is not None else None
    )
    return out


def keep(run_dir: Path, opts: SleepOptions, given, tasks: list[SleepTask], gathered: Gathered, *, dreamed: bool,
         pending: bool) -> Path:
    """Write tonight's tasks to ``run_dir``; ``pending``: a handoff round a re-run resumes."""
    path = Path(run_dir) / TASKS_FILE
    write_json(path, {"schema": SCHEMA, "version": 1, "options": shaping(opts, given), "dreamed": dreamed,
                      "pending": pending, "gathered": to_data(gathered), "tasks": [to_data(t) for t in tasks]})
    return path


def kept(run_dir: Path, opts: SleepOptions, given) -> Kept | None:
    """The pending handoff round's tasks in ``run_dir``, or None when none is pending;
    different options are an error."""
    import json

    path = Path(run_dir) / TASKS_FILE
    if not path.is_file():
        return None
    fix = f"re-run with the options of the first round, or delete {path} to start the night over"
    try:
        data = read_json(path)
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise ValueError("not a night's task list")
        if not data.get("pending"):
            return None
        tasks = tuple(from_data(raw, SleepTask) for raw in data.get("tasks") or [])
        gathered = from_data(data.get("gathered") or {}, Gathered)
    except (OSError, UnicodeError, ValueError, json.JSONDecodeError, TypeError, KeyError) as exc:
        raise ConfigError(f"handoff: {path} is damaged ({exc}); {fix}") from None
    except Exception as exc:  # noqa: BLE001 - cattrs raises several types for a bad task
        raise ConfigError(f"handoff: {path} holds a malformed task ({exc}); {fix}") from None
    now, then = shaping(opts, given), data.get("options") or {}
    changed = sorted(k for k in set(now) | set(then) if now.get(k) != then.get(k))
    if changed:
        raise ConfigError(f"handoff: the pending round in {path.parent.parent} was started with different {', '.join(changed)}; {fix}")
    return Kept(path=path, tasks=tasks, gathered=gathered, dreamed=bool(data.get("dreamed")))


def settle(run_dir: Path, *, into: Path | None) -> None:
    """The night is over: a pending handoff round's task list leaves the run directory,
    moved ``into`` the handoff directory (archived with its answers, for review) or,
    after a dry run, removed, so the next run harvests afresh. Any other night's stays."""
    path = Path(run_dir) / TASKS_FILE
    try:
        data = read_json(path)
    except (OSError, ValueError):  # damaged: a re-run names it
        return
    if not (isinstance(data, dict) and data.get("pending")):
        return
    if into is None:
        path.unlink(missing_ok=True)
    else:
        write_json(Path(into) / TASKS_FILE.name, {**data, "pending": False})
        path.unlink()


def select_tasks(tasks: list[SleepTask], limit: int) -> list[SleepTask]:
    """At most ``limit`` tasks, interleaving splits so val is never starved by train."""
    by_split: dict[str, list[SleepTask]] = {}
    for t in tasks:
        by_split.setdefault(t.split, []).append(t)
    out: list[SleepTask] = []
    while len(out) < limit and any(by_split.values()):
        for split in ("train", "val", "test"):
            if by_split.get(split) and len(out) < limit:
                out.append(by_split[split].pop(0))
    return out


def mine(night, sessions) -> list[SleepTask]:
    from skillopt_sleep.replay.handoff import HandoffPending

    opts = night.opts
    splits = session_splits(
        [s.id for s in sessions], val_fraction=opts.val_fraction, test_fraction=opts.test_fraction, seed=opts.seed
    )
    memory = read_memory(night.project)
    mined = heuristic.mine(sessions, splits, project_name=night.project.name, memory=memory)
    night.say(
        f"mine: {mined.intents} intent(s) in {mined.clusters} cluster(s), {mined.recurring_clusters} recurring; "
        f"{len(mined.tasks)} task(s) with {mined.discriminative_checks} check(s) a generic answer fails"
        + (f"; dropped {mined.dropped_generic_checks} check(s) a generic answer passes" if mined.dropped_generic_checks else "")
        + (f", {mined.dropped_contradicting} contradicting {', '.join(memory.files)}" if mined.dropped_contradicting else "")
        + (f", {mined.dropped_memory_checks} {', '.join(memory.files)} already guarantees" if mined.dropped_memory_checks else "")
    )
    tasks = list(mined.tasks)
    if opts.miner in ("llm", "auto") and night.llm_allowed("miner"):
        if opts.miner == "llm":
            tasks, todo = [], list(sessions)
        else:  # auto: the model only looks at sessions the heuristic could not turn into a task
            covered = {sid for t in tasks for sid in t.sessions}
            todo = [s for s in sessions if s.id not in covered][: opts.max_tasks]
        pending = 0
        for n, session in enumerate(todo, 1):
            night.reporter.items("mine (model)", n - 1, len(todo))
            try:
                extra, problems = mine_session(night.clients.optimizer, session, splits[session.id], memory)
            except HandoffPending:  # collect every waiting prompt of the stage, then stop the round
                pending += 1
                continue
            tasks.extend(extra)
            night.notes.extend(problems[:3])
        if pending:
            night.handoff_stop()
    tasks = select_tasks(skills.attach(tasks, sessions), opts.max_tasks)
    recalled = recall(night.state.task_archive, tasks, opts.recall_k)
    tasks += recalled
    summary = MiningSummary(
        recalled=len(recalled),
        intents=mined.intents,
        clusters=mined.clusters,
        recurring_clusters=mined.recurring_clusters,
        dropped_uncheckable=mined.dropped_uncheckable,
        dropped_generic_checks=mined.dropped_generic_checks,
        dropped_contradicting=mined.dropped_contradicting,
        discriminative_checks=mined.discriminative_checks,
        dropped_memory_checks=mined.dropped_memory_checks,
        tasks=len(tasks),
        by_split=dict(Counter(t.split for t in tasks)),
        session_splits=dict(Counter(splits.values())),
    )
    rows = tuple(TaskRow.of(t) for t in tasks)
    night.gathered = attrs.evolve(night.gathered, mining=summary, tasks=rows)
    for row in rows:
        night.evidence.add("mine", "task", **to_data(row))
    return tasks


def use_tasks(night, tasks: list[SleepTask]) -> list[SleepTask]:
    tasks = select_tasks(list(tasks), night.opts.max_tasks)
    summary = MiningSummary(tasks=len(tasks), by_split=dict(Counter(t.split for t in tasks)), from_file=True)
    rows = tuple(TaskRow.of(t, mined=False) for t in tasks)
    night.gathered = attrs.evolve(night.gathered, mining=summary, tasks=rows)
    return tasks


def add_dreams(night, tasks: list[SleepTask]) -> list[SleepTask]:
    """``dream_factor`` variants per real train task (train only). The optimizer writes
    them when the miner may use a model; otherwise they are deterministic rephrasings."""
    opts = night.opts
    if opts.dream_factor <= 0:
        return tasks
    use_model = opts.miner != "heuristic" and night.llm_allowed("miner")
    train = [t for t in tasks if t.split == "train" and t.origin != "dream"]
    dreams = dream(
        train,
        opts.dream_factor,
        client=night.clients.optimizer if use_model else None,
        seed=opts.seed,
        project_name=night.project.name,
    )
    if dreams.pending:
        night.handoff_stop()
    night.notes.extend(dreams.notes[:3])
    summary = DreamSummary(
        factor=opts.dream_factor,
        path="llm" if use_model else "heuristic",
        variants=len(dreams.tasks),
        from_model=dreams.from_model,
        rephrased=dreams.rephrased,
        rejected=dreams.rejected,
    )
    g = night.gathered
    rows = tuple(TaskRow.of(t, mined=False) for t in dreams.tasks)
    night.gathered = attrs.evolve(g, dreams=summary, mining=attrs.evolve(g.mining, dreams=len(dreams.tasks)), tasks=g.tasks + rows)
    for row in rows:
        night.evidence.add("dream", "task", **to_data(row))
    return tasks + list(dreams.tasks)


def tonight(night, sessions, given: list[SleepTask] | None, resumed: Kept | None = None, out: Path | None = None) -> list[SleepTask]:
    """The night's tasks, kept in the run directory ``out`` as soon as they are known
    (dreams once made), so a handoff round that stops resumes on the same ones."""
    pending = night.handoff_dir is not None
    if resumed is not None:
        tasks = list(resumed.tasks)
        for row in night.gathered.tasks:  # tonight's evidence chain names the tasks it replays
            night.evidence.add("dream" if row.origin == "dream" else "mine", "task", pinned=str(resumed.path), **to_data(row))
    else:
        tasks = mine(night, sessions) if given is None else use_tasks(night, given)
        if out is not None:
            keep(out, night.opts, given, tasks, night.gathered, dreamed=False, pending=pending)
    if resumed is None or not resumed.dreamed:
        tasks = add_dreams(night, tasks)
        if out is not None and night.opts.dream_factor > 0:
            keep(out, night.opts, given, tasks, night.gathered, dreamed=True, pending=pending)
    return tasks


def shortfall(tasks: list[SleepTask], min_val: int, mining) -> str:
    """Why tonight cannot be validated, in plain words ('' when it can): the gate needs
    ``min_val`` val tasks and at least one train task to learn from."""
    val = sum(1 for t in tasks if t.split == "val")
    train = sum(1 for t in tasks if t.split == "train")
    if val >= min_val and train:
        return ""
    if mining.from_file:
        source = f"the tasks file has {train} train and {val} val task(s)"
    else:
        held = mining.session_splits.get("val", 0)
        sessions = sum(mining.session_splits.values())
        source = f"{held} of {sessions} session(s) are held out for validation and gave {val} checkable task(s)"
        lost = []
        if mining.dropped_uncheckable:
            lost.append(f"{mining.dropped_uncheckable} intent(s) had no evidence a check could be made from")
        if mining.dropped_generic_checks:
            lost.append(f"{mining.dropped_generic_checks} check(s) a generic answer would pass were dropped")
        if mining.dropped_memory_checks:
            lost.append(f"{mining.dropped_memory_checks} check(s) the memory files already guarantee were dropped")
        source += f" ({'; '.join(lost)})" if lost else ""
    if val < min_val:
        head = f"{min_val} validation task(s) needed, {val} found"
        fix = "run again once more sessions have accumulated, widen --lookback-hours, or lower --min-val"
    else:
        head = "1 training task needed, 0 found"
        fix = "run again once more sessions have accumulated, or lower --val-fraction"
    return f"{head}: {source}; {fix}"
