"""An agent target's steps in the trajectory the optimizer reads.

A target that runs an agent (Claude Code, Codex in agent mode) answers after reading
files and running tools; its reply alone hides what it did. Such a backend returns the
steps as ``Completion.trace`` (tool calls and their results, clipped; upstream's
``*_trace_to_optimizer``, on by default, off with ``model.target.options.trace_to_optimizer
= false``). The engine records the traces of an item's calls and puts each before the
assistant turn that holds its reply, so reflection sees what the agent did, whatever
the env's rollout code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from skillopt.records import CompletionRequest, Rollout, Turn

if TYPE_CHECKING:
    from skillopt.records import Completion


class TraceRecorder:
    """The target's client, remembering the agent steps of each reply."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.traces: list[tuple[str, tuple[Turn, ...]]] = []

    def complete(self, request: CompletionRequest) -> Completion:
        completion: Completion = self.model.complete(request)
        trace = getattr(completion, "trace", ())
        if trace:
            self.traces.append((completion.text, tuple(trace)))
        return completion

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)

    def into(self, rollout: Rollout) -> Rollout:
        """``rollout`` with each recorded trace before the turn of its reply (else before
        the evaluation, else at the end)."""
        if not self.traces or not isinstance(rollout, Rollout):
            return rollout
        turns = list(rollout.turns)
        used: set[int] = set()
        for text, trace in self.traces:
            at = next((i for i, t in enumerate(turns) if i not in used and t.role == "assistant" and t.kind == "message"
                       and t.content.strip() == text.strip()), None)
            if at is None:
                at = next((i for i, t in enumerate(turns) if t.kind == "evaluation"), len(turns))
            turns[at:at] = trace
            used = {i + len(trace) if i >= at else i for i in used} | {at + len(trace)}
        return attrs.evolve(rollout, turns=tuple(turns))
