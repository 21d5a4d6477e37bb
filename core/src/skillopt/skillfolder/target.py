"""What a target gets of a folder skill: the text its env renders, plus the files when
its harness installs them.

The engine keeps a folder skill as its canonical text; an env's ``rollout`` receives the
text the target should read instead (``Env.render_skill``: the env decides). A target
whose backend declares ``installs_skill_files`` (an agent CLI in agent mode) also gets
the folder's other files on each request, which it writes into its workspace as an
installed skill would sit; every other target reads the inline rendering only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from skillopt.records import CompletionRequest, SkillFile
from skillopt.skillfolder import SkillFolder, skill_of

if TYPE_CHECKING:
    from skillopt.records import Completion


def installs_skill_files(model: Any) -> bool:
    """Does the backend behind ``model`` (a client, or a stage view of one) install a
    folder skill's files in its workspace?"""
    return bool(getattr(getattr(model, "backend", None), "installs_skill_files", False))


class SkillFilesClient:
    """The target's client with a folder skill's files attached to every request."""

    def __init__(self, model: Any, files: tuple[SkillFile, ...]) -> None:
        self.model, self.files = model, files

    def complete(self, request: CompletionRequest) -> Completion:
        reply: Completion = self.model.complete(attrs.evolve(request, skill_files=self.files))
        return reply

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)


def for_target(env: Any, skill: str, model: Any) -> tuple[str, Any]:
    """(the skill text ``env.rollout`` receives, the model it calls). A single-file skill
    and its model pass through unchanged."""
    folder = skill_of(skill)
    if not isinstance(folder, SkillFolder):
        return skill, model
    installs = installs_skill_files(model)
    text = env.render_skill(folder, installed=installs)
    if installs and folder.others:
        model = SkillFilesClient(model, folder.others)
    return text, model
