"""One look of the gate plugin, as the gate stage and the settlement watch both ask it.

Kept apart from :mod:`skillopt.engine.stages.gate` so that
:mod:`skillopt.engine.stages.settle` (which the gate stage uses) can ask the same
question without importing the stage back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from skillopt.records import GateAction, Verdict

if TYPE_CHECKING:
    from skillopt.engine.context import RunContext
    from skillopt.gates import Evaluation, Look


def decide(run: RunContext, cur: Evaluation, cand: Evaluation, look: Look, sequential: bool) -> Verdict:
    """The plugin's verdict on one look; an undecided last look is a reject."""
    verdict = run.gate.decide(cur, cand, look) if sequential else run.gate.decide(cur, cand)  # type: ignore[call-arg]  # a sequential gate's decide takes the look (see Gate.decide)
    if verdict.action is GateAction.MORE and look.last:
        verdict = attrs.evolve(verdict, action=GateAction.REJECT, accepted=False)
    return verdict
