"""Hook specifications: the whole plugin surface of SkillOpt.

Each ``skillopt_register_*`` hook receives a ``register`` callback. Calling it records
a component under a user-facing name together with the distribution that provided it:

    register(obj, name=None, aliases=(), summary=None)

``name`` defaults to ``obj.name``. A name that another distribution already registered
is an error naming both. Every hook is documented in ``docs/plugin-hooks.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import pluggy

if TYPE_CHECKING:
    import typer

    from skillopt.backends import Backend
    from skillopt.engine.observers import RunInfo
    from skillopt.envs import Env
    from skillopt.executors import Executor
    from skillopt.gates import Gate
    from skillopt.harvesters import Harvester
    from skillopt.policies import EditPolicy
    from skillopt.records import StepRecord
    from skillopt.results import RunSummary
    from skillopt.strategies import Sampler, Strategy

hookspec = pluggy.HookspecMarker("skillopt")
hookimpl = pluggy.HookimplMarker("skillopt")

_Component = TypeVar("_Component", contravariant=True)


class Register(Protocol[_Component]):
    """The ``register`` callback of a ``skillopt_register_*`` hook, for the component kind
    it registers (``Register[type[Env]]`` takes env classes)."""

    def __call__(self, obj: _Component, /, *, name: str | None = None, aliases: Sequence[str] = (),
                 summary: str | None = None) -> None: ...


@hookspec
def skillopt_register_envs(register: Register[type[Env]]) -> None:
    """Register benchmark environments (subclasses of :class:`skillopt.envs.Env`).

    :param register: call ``register(EnvClass, aliases=("short",))`` once per env.
    """


@hookspec
def skillopt_register_backends(register: Register[type[Backend]]) -> None:
    """Register model backends (subclasses of :class:`skillopt.backends.Backend`).

    :param register: call ``register(BackendClass)`` once per backend.
    """


@hookspec
def skillopt_register_edit_policies(register: Register[type[EditPolicy]]) -> None:
    """Register edit policies (subclasses of :class:`skillopt.policies.EditPolicy`),
    selected by ``optimizer.skill_update_mode``.

    :param register: call ``register(PolicyClass)`` once per policy.
    """


@hookspec
def skillopt_register_gates(register: Register[type[Gate]]) -> None:
    """Register validation gates (subclasses of :class:`skillopt.gates.Gate`),
    selected by ``evaluation.gate``.

    :param register: call ``register(GateClass)`` once per gate.
    """


@hookspec
def skillopt_register_harvesters(register: Register[type[Harvester]]) -> None:
    """Register transcript harvesters for ``skillopt sleep``
    (subclasses of :class:`skillopt.harvesters.Harvester`).

    :param register: call ``register(HarvesterClass)`` once per agent source.
    """


@hookspec
def skillopt_register_executors(register: Register[type[Executor]]) -> None:
    """Register executors (subclasses of :class:`skillopt.executors.Executor`), selected
    by ``engine.executor``: where the engine runs rollouts (``threads``, built in: threads
    of this process; a plugin: other processes or machines).

    :param register: call ``register(ExecutorClass)`` once per executor.
    """


@hookspec
def skillopt_register_strategies(register: Register[type[Strategy] | type[Sampler]]) -> None:
    """Register search strategies (subclasses of :class:`skillopt.strategies.Strategy`),
    selected by ``search.strategy``: which skill each step branches from and which gated
    skills are kept (``hill``: one current skill, the default; ``pareto``: a pool), and
    proposal samplers (subclasses of :class:`skillopt.strategies.Sampler`), selected by
    ``search.sampler``.

    :param register: call ``register(StrategyClass)`` once per strategy or sampler.
    """


@hookspec
def skillopt_register_commands(app: typer.Typer) -> None:
    """Attach CLI commands to the root ``skillopt`` typer app.

    Called at every CLI start, so the implementing module must import nothing heavy
    at module level; import inside the command functions instead.

    :param app: the root :class:`typer.Typer`; call ``app.add_typer(sub, name=...)``.
    """


@hookspec
def skillopt_run_started(run: RunInfo, config: Any) -> None:
    """Observer: a training run (``skillopt run``, ``run.mode == "train"``) or an
    evaluation (``skillopt eval``, ``"eval"``) starts, or an interrupted run resumes
    (``run.resumed``; its finished steps are then fired again with ``step_finished``).

    :param run: a :class:`skillopt.api.RunInfo` (out_dir, env, mode, redacted config).
    :param config: this observer's ``[observers.NAME]`` settings: an instance of the
        ``Config`` attrs class its module declares, or None. Take only the arguments
        you need: an implementation may declare ``run`` alone.
    """


@hookspec
def skillopt_step_finished(run: RunInfo, step: StepRecord, config: Any) -> None:
    """Observer: one training step finished and its files are written (on a resume,
    also each step finished before the interruption; key on ``step.step``).

    :param run: the :class:`~skillopt.api.RunInfo` of the run.
    :param step: the :class:`skillopt.api.StepRecord` just appended to history.json
        (``step.action`` is a :class:`skillopt.api.StepAction`).
    :param config: this observer's settings (see ``skillopt_run_started``).
    """


@hookspec
def skillopt_run_finished(run: RunInfo, summary: RunSummary | dict[str, Any], config: Any) -> None:
    """Observer: the run ended (finished, or stopped by a budget, an outage, an
    optimizer that could not reflect, truncated target replies).

    :param run: the :class:`~skillopt.api.RunInfo` of the run.
    :param summary: for ``train``, the :class:`skillopt.api.RunSummary` written to
        ``summary.json`` (``summary.status`` is a :class:`skillopt.api.RunStatus`); for
        ``eval``, the dict written to ``eval_summary.json``.
    :param config: this observer's settings (see ``skillopt_run_started``).
    """


__all__ = [
    "Register",
    "hookimpl",
    "hookspec",
    "skillopt_register_backends",
    "skillopt_register_commands",
    "skillopt_register_edit_policies",
    "skillopt_register_envs",
    "skillopt_register_executors",
    "skillopt_register_gates",
    "skillopt_register_harvesters",
    "skillopt_register_strategies",
    "skillopt_run_finished",
    "skillopt_run_started",
    "skillopt_step_finished",
]
