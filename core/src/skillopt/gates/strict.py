"""``strict``: the paper's gate. Accept only when the candidate's mean is strictly higher."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillopt.gates import Evaluation, Gate
from skillopt.hookspecs import hookimpl
from skillopt.records import Verdict

if TYPE_CHECKING:
    from skillopt.hookspecs import Register


class StrictGate(Gate):
    """Candidate mean > current mean on the validation items; ties reject."""

    name = "strict"
    summary = "paper default: strictly higher mean on val (ties reject)"

    def decide(self, current: Evaluation, candidate: Evaluation) -> Verdict:
        cur, cand = self.score(current), self.score(candidate)
        accepted = cand > cur + self.config.gate_min_margin
        reason = (
            f"{self.config.gate_metric} {cand:.4f} > {cur:.4f}" if accepted
            else f"{self.config.gate_metric} {cand:.4f} does not beat {cur:.4f}" + (" (tie)" if cand == cur else "")
        )
        return Verdict(
            accepted=accepted,
            action="accept" if accepted else "reject",
            metric=self.config.gate_metric,
            current_score=cur,
            candidate_score=cand,
            reason=reason,
            n_items=candidate.n,
        )


@hookimpl
def skillopt_register_gates(register: Register[type[Gate]]) -> None:
    register(StrictGate)
