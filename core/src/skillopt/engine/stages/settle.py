"""When a gate's decision is settled before its last val answer arrives.

A gate's look waits for every val answer of the candidate: its verdict records the
candidate's score on every item, and the next step's analysts are shown that score. But
the *decision* (accept or reject) is often fixed earlier: once the answers in hand give
the same action with every answer still out filled in as the candidate's best case and
as its worst case, no remaining answer can change it (the engine's gates are monotone
in the candidate's per-item scores: a better answer never turns an accept into a
reject; the gate stage relies on the same bound for items the provider left
unanswered). The next step's train rollouts need only the decided skill, so the trainer
starts them then, beside the answers still out (:mod:`skillopt.engine.lookahead`); the
verdict itself is still taken from every answer, exactly as before. Should the full
verdict ever differ from the settled action, nothing is lost but calls: the chain rolls
out under the skill it really has (rollouts are memoised by skill).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from skillopt.engine.evaluation import to_evaluation
from skillopt.engine.stages.verdict import decide
from skillopt.gates import Evaluation, Look
from skillopt.records import GateAction

if TYPE_CHECKING:
    from skillopt.engine.context import RunContext
    from skillopt.records import Rollout

#: called once with the settled decision (True = accepted)
OnSettled = Callable[[bool], None]


def settled_action(run: RunContext, current: Evaluation, answered: Evaluation, repeats: int, look: Look,
                   sequential: bool) -> GateAction | None:
    """The action every completion of ``answered`` (the candidate's answers so far) leads
    to, or None while the answers still out could change it. Only decided on a complete,
    gap-free current side and no missing candidate answer (a gap is left to the full look,
    which retries it)."""
    val = [t.id for t in run.data.val]
    if current.missing or answered.missing or any(len(current.items.get(i, ())) < repeats for i in val):
        return None
    actions = set()
    for case in ((1.0, 1.0), (0.0, 0.0)):  # the candidate's best case, then its worst, on every answer still out
        items = {i: [*answered.items.get(i, ())][:repeats] + [case] * max(0, repeats - len(answered.items.get(i, ())))
                 for i in val}
        filled = Evaluation(skill=answered.skill, skill_hash=answered.skill_hash, split=answered.split, items=items,
                            task_types=answered.task_types)
        actions.add(decide(run, current.only(val), filled, look, sequential).action)
    action = actions.pop() if len(actions) == 1 else None
    return None if action is GateAction.MORE else action


class Settlement:
    """A watch on the candidate's val answers (:meth:`RolloutRunner.run`'s ``watch``) that
    calls ``on_settled`` once, as soon as the decision can no longer change."""

    def __init__(self, run: RunContext, current: Evaluation, candidate: str, repeats: int, look: Look, sequential: bool,
                 on_settled: OnSettled) -> None:
        self.run, self.current, self.candidate, self.repeats = run, current, candidate, repeats
        self.look, self.sequential, self.on_settled = look, sequential, on_settled
        #: the settled action (None until then)
        self.action: GateAction | None = None

    def __call__(self, results: dict[str, Rollout]) -> None:
        if self.action is not None:
            return
        answered = to_evaluation(self.candidate, "val", list(results.values()))
        action = settled_action(self.run, self.current, answered, self.repeats, self.look, self.sequential)
        if action is not None:
            self.action = action
            self.on_settled(action is GateAction.ACCEPT or action is GateAction.FORCE_ACCEPT)
