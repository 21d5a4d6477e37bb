"""``hill``: one current skill, replaced by a child that passes the gate (the paper's)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillopt.hookspecs import hookimpl
from skillopt.strategies import PoolMember, Strategy

if TYPE_CHECKING:
    from skillopt.hookspecs import Register
    from skillopt.strategies import PoolMember


class HillClimb(Strategy):
    """The paper's hill climber: every step branches from the current skill."""

    name = "hill"
    summary = "default: one current skill, replaced by a child the gate accepts (the paper's loop)"
    single = True

    def parent(self, pool: tuple[PoolMember, ...], lead: PoolMember, seed: int) -> PoolMember:
        return lead

    def admit(self, pool: tuple[PoolMember, ...], child: PoolMember) -> tuple[PoolMember, ...]:
        return (child,)


@hookimpl
def skillopt_register_strategies(register: Register[type[Strategy]]) -> None:
    register(HillClimb)
