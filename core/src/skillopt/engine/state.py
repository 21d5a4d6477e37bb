"""Run state persisted in ``runtime_state.json``; only the trainer writes it."""

from __future__ import annotations

import attrs

from skillopt.results import ConfigChange, RunStatus
from skillopt.strategies import PoolMember
from skillopt.engine.buffer import BufferEntry


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
