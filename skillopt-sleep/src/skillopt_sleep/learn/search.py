"""``one-edit``: a night's search as a search strategy of the engine.

A night keeps one current version of the documents and puts one edit at a time to the
gate, strongest evidence first: an accepted edit stays, a rejected one is left out and
the next is tried on top of what was kept. As a strategy that is the hill climber with
an edit budget of one per step, whatever the learning-rate schedule; which edit comes
next is the edit policy's (``sleep-rules`` proposes the strongest one not tried yet).
"""

from __future__ import annotations

from skillopt.api import Strategy, hookimpl


class OneEdit(Strategy):
    """One current skill; each step puts one edit to the gate (skillopt sleep's search)."""

    name = "one-edit"
    summary = "one current skill, one gated edit per step (skillopt sleep's search)"
    single = True
    edit_budget = 1

    def parent(self, pool, lead, seed):
        return lead

    def admit(self, pool, child):
        return (child,)


@hookimpl
def skillopt_register_strategies(register):
    register(OneEdit)
