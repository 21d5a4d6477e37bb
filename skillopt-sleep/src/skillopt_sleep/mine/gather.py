"""Tonight's task list: mined from harvested sessions or read from a reviewed file,
recalled from earlier nights, dreamed, and pinned while a handoff night is pending.

Split discipline lives here: real tasks keep the split of their sessions, recalled
and dreamed tasks only ever join train, and ``max_tasks`` interleaves splits so val is
never starved by train.
"""

from __future__ import annotations

from collections import Counter

import attrs

from skillopt.api import to_data
from skillopt_sleep import skills
from skillopt_sleep.mine import heuristic
from skillopt_sleep.mine.dream import dream
from skillopt_sleep.mine.llm import mine_session
from skillopt_sleep.mine.memory import read_memory
from skillopt_sleep.mine.recall import recall
from skillopt_sleep.mine.split import session_splits
from skillopt_sleep.mine.tasks import SleepTask
from skillopt_sleep.replay import pin
from skillopt_sleep.report import DreamSummary, MiningSummary, TaskRow


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


def tonight(night, sessions, given: list[SleepTask] | None, pinned: pin.Pinned | None) -> list[SleepTask]:
    """The night's tasks; with a handoff backend, pinned as soon as they are known so a
    re-run resumes on the same ones (dreams are pinned once made)."""
    directory = night.handoff_dir
    if pinned is not None:
        tasks = list(pinned.tasks)
        for row in night.gathered.tasks:  # tonight's evidence chain names the tasks it replays
            night.evidence.add("dream" if row.origin == "dream" else "mine", "task", pinned=str(pinned.path), **to_data(row))
    else:
        tasks = mine(night, sessions) if given is None else use_tasks(night, given)
        if directory is not None:
            pin.save(directory, night.opts, given, tasks, night.gathered, dreamed=False)
    if pinned is None or not pinned.dreamed:
        tasks = add_dreams(night, tasks)
        if directory is not None and night.opts.dream_factor > 0:
            pin.save(directory, night.opts, given, tasks, night.gathered, dreamed=True)
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
