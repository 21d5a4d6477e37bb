"""``rollout``: the current skill on the step's train batch (per micro-batch).

Items whose provider failed are missing data: they are retried once within the stage,
reported in the step record, and left out of reflection, never shown to an analyst as
a wrong answer.
"""

from __future__ import annotations

from skillopt.engine.context import Current, RunContext, StepPlan
from skillopt.engine.stages.records import RolloutGroup, RolloutResult

STAGE = "rollout"


def rollout(run: RunContext, plan: StepPlan, current: Current) -> RolloutResult:
    step_dir = run.step_dir(plan)
    client = run.target.for_stage(STAGE)
    groups = []
    for a, batch in enumerate(plan.micro):
        folder = STAGE if len(plan.micro) == 1 else f"{STAGE}/batch_{a}"
        got = run.runner.run(
            list(batch), current.skill, step_dir / folder, training=True, seed=run.step_seed(plan, STAGE, a),
            label=STAGE, client=client,
        )
        groups.append(RolloutGroup(folder=folder, rollouts=tuple(got)))
    return RolloutResult(groups=tuple(groups))
