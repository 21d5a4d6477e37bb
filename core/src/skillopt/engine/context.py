"""The frozen context every stage function receives.

Stages used to take the whole trainer and mutate it. Now a stage gets a
:class:`RunContext` (the run's services and data, fixed for the run), the
:class:`StepPlan` of the step it serves and the :class:`Current` skill as of the step's
start; it returns a record. Only the trainer changes the run state.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from skillopt.config.schema import RunConfig
from skillopt.engine.rundir import RunDir
from skillopt.engine.seeds import derive_seed
from skillopt.gates import Evaluation
from skillopt.policies import OptimizerContext
from skillopt.records import Task

if TYPE_CHECKING:  # the services' modules import the engine's; only the checker needs them here
    from skillopt.calls import Ledger, ModelClient
    from skillopt.engine.evaluation import Evaluator
    from skillopt.engine.progress import NullReporter
    from skillopt.engine.rejected import Rejection
    from skillopt.engine.rollouts import RolloutRunner, Watch
    from skillopt.envs import Env
    from skillopt.gates import Gate
    from skillopt.policies import EditPolicy


@attrs.frozen(kw_only=True)
class RunData:
    """The splits and the plan's sizes."""

    train: tuple[Task, ...]
    val: tuple[Task, ...]
    index: dict[str, Task]
    steps_per_epoch: int
    #: steps the learning-rate schedule spans (``train.max_steps`` is a stop, not a shorter schedule)
    schedule_steps: int
    total_steps: int
    #: the selection split (``evaluation.selection_split``): no gate decision uses it; the final pick does
    selection: tuple[Task, ...] = ()


@attrs.frozen(kw_only=True)
class StepPlan:
    """What one step works on: fixed by the seed before the run starts."""

    step: int
    epoch: int
    #: 0-based position in its epoch
    index: int
    micro: tuple[tuple[Task, ...], ...]
    #: the schedule's edit budget, and the one analysts are told (autonomous mode)
    scheduled: int | None
    told: int | None

    @property
    def name(self) -> str:
        return f"step_{self.step:04d}"


@attrs.frozen(kw_only=True)
class Current:
    """The current skill and what the optimizer is told alongside it."""

    skill: str
    skill_hash: str
    score: float
    step_history: str = ""
    meta_skill: str = ""


@attrs.frozen(kw_only=True)
class RunContext:
    """The run's services and data, fixed for the run (a stage reads them, never replaces them)."""

    cfg: RunConfig
    env: Env
    #: the model under training and the one that reflects and edits (one client per role)
    target: ModelClient
    optimizer: ModelClient
    policy: EditPolicy
    gate: Gate
    rundir: RunDir
    data: RunData
    runner: RolloutRunner
    evaluator: Evaluator
    ledger: Ledger
    #: progress display (:class:`NullReporter` or a subclass: every reporter has its four methods)
    reporter: NullReporter
    #: rejections from earlier runs of this env and initial skill (the run's snapshot)
    rejected: tuple[Rejection, ...] = ()
    #: fingerprint of the gate's items and settings (see :mod:`skillopt.engine.rejected`)
    gate_context: str = ""
    #: the cross-run rejected-edit ledger this run appends to ('' = off)
    rejected_path: str = ""

    @property
    def seed(self) -> int:
        return self.cfg.train.seed

    def in_lane(self, scope: str, priority: Any = 0) -> RunContext:
        """This context with both models' calls booked under ledger scope ``scope`` and
        their rollouts scheduled at ``priority`` (work run beside the current step: see
        :mod:`skillopt.engine.lookahead`)."""

        def lane(client: Any) -> Any:
            return client.in_lane(scope, priority) if hasattr(client, "in_lane") else client

        return attrs.evolve(self, target=lane(self.target), optimizer=lane(self.optimizer))

    def step_dir(self, plan: StepPlan) -> Path:
        return self.rundir.step_dir(plan.step)

    def optimizer_context(self, current: Current, *, stage: str, budget: int | None, seed: int) -> OptimizerContext:
        """A fresh optimizer context for one stage (its notes are that stage's)."""
        from skillopt.engine.rejected import analyst_section

        return OptimizerContext(
            client=self.optimizer.for_stage(stage),
            skill=current.skill,
            budget=budget,
            config=self.cfg,
            step_history=current.step_history,
            meta_skill=current.meta_skill,
            prompt_override=self.env.prompt,
            seed=seed,
            rejected_before=analyst_section(self.rejected, self.cfg.optimizer.rejected_shown) if stage == "reflect" else "",
        )

    def evaluate_val(self, skill: str, folder: Path, label: str, *, repeats: int | None = None, stage: str = "gate",
                     watch: Watch | None = None) -> Evaluation:
        """The skill on the gate's val items (memoised by skill; missing items retried;
        ``watch`` is shown the answers as they arrive)."""
        evaluation, _ = self.evaluator.evaluate(
            skill, list(self.data.val), folder, split="val", repeats=repeats or self.cfg.evaluation.gate_repeats,
            label=label, client=self.target.for_stage(stage), watch=watch,
        )
        return evaluation

    def step_seed(self, plan: StepPlan, stage: str, *parts: object) -> int:
        return derive_seed(self.seed, stage, plan.epoch, plan.index, *parts)
