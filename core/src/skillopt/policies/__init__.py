"""The edit-policy contract: scored trajectories in, a candidate skill out.

The engine drives the stages (minibatching, the k-ary merge tree, persistence,
resume); a policy supplies what each stage means for its payload: bounded edits
(``patch``), revision suggestions applied by a rewrite (``rewrite``), or whole new
skills (``full-rewrite``).
"""

from __future__ import annotations

import abc
import functools
from collections.abc import Callable
from importlib import resources
from typing import Any, ClassVar

import attrs

from skillopt.config.schema import RunConfig
from skillopt.records import EditResult, Patch, Rollout, Task


@functools.cache
def _packaged_prompt(name: str) -> str:
    """A core optimizer prompt (``skillopt/prompts/<name>.md``), read once per process."""
    return resources.files("skillopt.prompts").joinpath(f"{name}.md").read_text(encoding="utf-8")


@attrs.frozen(kw_only=True)
class OptimizerContext:
    """Everything an optimizer stage may use. ``budget`` is the *scheduled* budget."""

    #: the optimizer's client for this stage (calls booked under it in the ledger)
    client: Any
    #: the current skill text
    skill: str
    #: the edit budget the stage works to (the schedule's, ``optimizer.learning_rate`` in autonomous mode, the selected one
    #: in ``apply``); None = no limit
    budget: int | None
    #: the run config
    config: RunConfig
    #: what earlier steps of this epoch tried and how it went (markdown; '' at an epoch's start)
    step_history: str = ""
    #: the optimizer's own guidance from earlier epoch boundaries ('' until then)
    meta_skill: str = ""
    #: the env's ``prompt(name)``: its own prompt text, or None for the packaged default
    prompt_override: Callable[[str], str | None] | None = attrs.field(default=None, eq=False)
    #: seed of this stage's optimizer calls, derived from ``train.seed`` and the step
    seed: int = 0
    #: degraded paths recorded with :meth:`note`; they go to the step record
    notes: list[str] = attrs.field(factory=list, eq=False)
    #: analysts only: edits rejected in earlier runs of this env and initial skill, with their measured effect (markdown)
    rejected_before: str = ""

    @property
    def sar(self) -> bool:
        """``optimizer.use_skill_aware_reflection``: execution lapses go to the protected appendix."""
        return self.config.optimizer.use_skill_aware_reflection

    def prompt(self, name: str) -> str:
        """A prompt by name: the env's override if it has one, else the packaged default."""
        if self.prompt_override is not None:
            text = self.prompt_override(name)
            if text:
                return text
        return _packaged_prompt(name)

    def ask(self, *, stage: str, system: str, user: str, schema: dict[str, Any], max_tokens: int = 4096, reasoning_effort: str | None = None) -> dict[str, Any]:
        """One schema-constrained optimizer call; raises SchemaError after re-asks fail."""
        from skillopt.records import CompletionRequest, Message

        request = CompletionRequest(
            messages=(Message(role="system", content=system), Message(role="user", content=user)),
            max_tokens=max_tokens,
            json_schema=schema,
            role="optimizer",
            stage=stage,
            seed=self.seed,
            temperature=0.0 if self.config.model.temperature is None else self.config.model.temperature,
            reasoning_effort=reasoning_effort or None,
        )
        completion = self.client.complete(request)
        parsed: dict[str, Any] = completion.parsed
        return parsed

    def ask_whole_skill(self, *, stage: str, system: str, user: str, schema: dict[str, Any]) -> dict[str, Any]:
        """A call that writes a whole skill: its own output cap and reasoning effort."""
        o = self.config.optimizer
        return self.ask(stage=stage, system=system, user=user, schema=schema, max_tokens=o.rewrite_max_tokens,
                        reasoning_effort=o.rewrite_reasoning_effort or None)

    def note(self, message: str) -> None:
        """Record a degraded path (fallback) so it shows up in the step record."""
        self.notes.append(message)


class EditPolicy(abc.ABC):
    """Base class of edit-policy plugins."""

    #: the name it is registered and selected under (``optimizer.skill_update_mode``)
    name: ClassVar[str] = ""
    #: one line for ``skillopt list`` (default: the docstring's first line)
    summary: ClassVar[str] = ""
    #: whether the learning-rate budget clips this policy's proposals
    uses_budget: ClassVar[bool] = True
    #: the payload is bounded edits applied to the skill (an empty patch means "no
    #: change"), rather than a rewrite (an empty result means "no rewrite")
    edits_skill: ClassVar[bool] = False
    #: typed ``[edit_policies.NAME]`` keys of this policy (an attrs class), read as ``self.settings``
    Config: ClassVar[type | None] = None

    def __init__(self, settings: Any = None) -> None:
        """``settings``: its ``[edit_policies.NAME]`` keys (None = ``Config()``, or None without one)."""
        self.settings = settings if settings is not None else (self.Config() if self.Config is not None else None)

    @abc.abstractmethod
    def reflect(self, ctx: OptimizerContext, rollouts: list[Rollout], tasks: dict[str, Task], kind: str) -> Patch:
        """One analyst call over a minibatch of ``kind`` ('failure' or 'success') trajectories."""

    @abc.abstractmethod
    def merge(self, ctx: OptimizerContext, patches: list[Patch], kind: str) -> Patch:
        """Merge a group of patches (``kind``: 'failure', 'success' or 'final')."""

    @abc.abstractmethod
    def select(self, ctx: OptimizerContext, patch: Patch, budget: int | None) -> tuple[Patch, dict[str, Any]]:
        """Rank and clip to ``budget`` (None = no clipping); returns the kept patch and details."""

    @abc.abstractmethod
    def apply(self, ctx: OptimizerContext, skill: str, patch: Patch) -> tuple[str, list[EditResult], dict[str, Any]]:
        """Build the candidate skill; report every edit's fate."""
