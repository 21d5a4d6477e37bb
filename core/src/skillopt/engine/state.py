"""Run state persisted in ``runtime_state.json``; only the trainer (and the search it
holds) writes it, through the two adoption helpers below for the current and best skill."""

from __future__ import annotations

from pathlib import Path

import attrs

from skillopt.engine.buffer import BufferEntry, render_buffer
from skillopt.engine.context import Current
from skillopt.engine.rundir import RunDir
from skillopt.records import skill_hash
from skillopt.results import ConfigChange, RunStatus
from skillopt.strategies import PoolMember


@attrs.define(kw_only=True)
class TrainState:
    version: int = 3
    status: RunStatus = attrs.field(default=RunStatus.RUNNING, converter=RunStatus)
    config_fingerprint: str = ""
    last_completed_step: int = 0
    current_skill_path: str = ""
    current_hash: str = ""
    current_score: float = 0.0
    current_origin: str = "initial_skill"
    best_skill_path: str = ""
    best_hash: str = ""
    best_score: float = 0.0
    best_step: int = 0
    best_origin: str = "initial_skill"
    baseline_score: float | None = None
    initial_hash: str = ""
    meta_skill: str = ""
    buffer_epoch: int = 0
    step_buffer: list[BufferEntry] = attrs.field(factory=list)
    epochs_done: list[int] = attrs.field(factory=list)
    epoch_end_skills: dict[str, str] = attrs.field(factory=dict)
    config_changes: list[ConfigChange] = attrs.field(factory=list)
    wall_time_s: float = 0.0
    #: steps this run plans (epochs x steps per epoch, capped by ``train.max_steps``), so a
    #: reader of a live run (the dashboard) can show "step 3 of 12" before summary.json exists
    total_steps: int = 0
    #: the skills a pool strategy keeps (``search.strategy``; empty for ``hill``)
    pool: list[PoolMember] = attrs.field(factory=list)
    #: every skill a single-skill search (``hill``) kept, in order, when the final skill is picked among them
    #: (``search.select`` other than ``best``, or ``evaluation.selection_split``); empty otherwise
    lineage: list[PoolMember] = attrs.field(factory=list)


def adopt_current(rundir: RunDir, state: TrainState, skill: str, score: float, origin: str, path: Path) -> None:
    """``skill`` (saved at ``path``) becomes the run's current skill."""
    rundir.write_skill(path, skill)
    state.current_skill_path = str(path.relative_to(rundir.root))
    state.current_hash, state.current_score, state.current_origin = skill_hash(skill), score, origin


def adopt_best(rundir: RunDir, state: TrainState, skill: str, score: float, step: int, origin: str) -> None:
    """``skill`` becomes the run's best skill (``best_skill.md``)."""
    rundir.write_skill(rundir.best_skill, skill)
    state.best_skill_path = rundir.best_skill.name
    state.best_hash, state.best_score = skill_hash(skill), score
    state.best_step, state.best_origin = step, origin


def current_view(state: TrainState, skill: str) -> Current:
    """``skill`` as a stage sees it: with the run's current score, this epoch's step
    history and the meta skill."""
    return Current(skill=skill, skill_hash=skill_hash(skill), score=state.current_score,
                   step_history=render_buffer(state.step_buffer), meta_skill=state.meta_skill)
