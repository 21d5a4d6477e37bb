"""The env contract: what a benchmark plugin implements.

An env loads its splits as :class:`~skillopt.records.Task` records, runs one task with a
skill and a backend, and scores a prediction with a pure function. Everything else
(threads, timeouts, resume, files) is the engine's job, so an env stays small.
"""

from __future__ import annotations

import abc
import json
import threading
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar

import attrs

from skillopt.config.schema import EnvConfig
from skillopt.errors import ConfigError
from skillopt.records import CompletionRequest, Message, Rollout, Score, Task

SPLITS = ("train", "val", "test")
SPLIT_ALIASES = {"valid_seen": "val", "selection": "val", "validation": "val", "valid_unseen": "test"}


def canonical_split(name: str) -> str:
    """``val`` for ``valid_seen``/``selection``; an unknown name is an error, not ``val``."""
    split = SPLIT_ALIASES.get(name, name)
    if split not in SPLITS:
        raise ConfigError(f"unknown split {name!r}; use one of {', '.join(SPLITS)}")
    return split


@attrs.frozen(kw_only=True)
class RolloutContext:
    """Per-rollout facts an env may use."""

    seed: int = 0
    training: bool = False
    workdir: Path | None = None
    timeout_s: float = 120.0
    repeat: int = 0
    cancel: threading.Event | None = attrs.field(default=None, eq=False)


class ChatModel(abc.ABC):
    """What an env's ``rollout`` receives: something that completes requests."""

    @abc.abstractmethod
    def complete(self, request: CompletionRequest): ...


class Env(abc.ABC):
    """Base class of benchmark plugins.

    Subclasses set ``name``, optionally a ``Config`` (subclass of
    :class:`~skillopt.config.EnvConfig`), and implement :meth:`load_split`,
    :meth:`rollout` and :meth:`score`. Put ``initial.md`` (the starting skill) and an
    optional ``prompts/`` folder of optimizer-prompt overrides next to the module.
    """

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    Config: ClassVar[type[EnvConfig]] = EnvConfig
    presets: ClassVar[dict[str, dict[str, Any]]] = {}

    def __init__(self, config: EnvConfig | None = None):
        self.config = config if config is not None else self.Config()

    @abc.abstractmethod
    def load_split(self, split: str) -> list[Task]:
        """All tasks of ``split`` (``train``, ``val`` or ``test``), in a stable order."""

    @abc.abstractmethod
    def rollout(self, task: Task, skill: str, model: ChatModel, ctx: RolloutContext) -> Rollout:
        """Run ``task`` with ``skill`` in the target's prompt and return the scored result."""

    @abc.abstractmethod
    def score(self, task: Task, prediction: str) -> Score:
        """Score a prediction; a pure function of its arguments."""

    # ------------------------------------------------------------------ defaults

    def tasks(self, split: str) -> list[Task]:
        """``load_split`` with the split name checked and ``limit`` applied."""
        split = canonical_split(split)
        items = self.load_split(split)
        if self.config.limit:
            items = items[: self.config.limit]
        return items

    def package_files(self):
        """The folder holding the env's module: its package data (``initial.md``, ``prompts/``)."""
        module = type(self).__module__
        try:
            return resources.files(module)
        except (TypeError, AttributeError, ModuleNotFoundError):
            import sys

            return Path(getattr(sys.modules.get(module), "__file__", "") or ".").resolve().parent

    def initial_skill(self) -> str:
        """The starting skill: ``env.skill_init`` if set, else the packaged ``initial.md``."""
        if self.config.skill_init:
            path = Path(self.config.skill_init).expanduser()
            if not path.is_file():
                raise ConfigError(f"env.skill_init: no such file: {path}")
            return path.read_text(encoding="utf-8")
        try:
            return self.package_files().joinpath("initial.md").read_text(encoding="utf-8")
        except (FileNotFoundError, NotADirectoryError):
            return ""

    def prompt(self, name: str) -> str | None:
        """An env-specific optimizer prompt (``prompts/<name>.md``), if the env ships one."""
        try:
            node = self.package_files().joinpath("prompts", f"{name}.md")
            return node.read_text(encoding="utf-8") if node.is_file() else None
        except (FileNotFoundError, NotADirectoryError):
            return None

    def close(self) -> None:
        """Release resources (simulators, temp dirs)."""


# ---------------------------------------------------------------------- helpers for env authors


def chat_request(
    system: str,
    user: str,
    *,
    max_tokens: int = 512,
    temperature: float | None = None,
    seed: int | None = None,
    stage: str = "rollout",
) -> CompletionRequest:
    """A two-message target request, the shape most single-call envs need."""
    return CompletionRequest(
        messages=(Message(role="system", content=system), Message(role="user", content=user)),
        max_tokens=max_tokens,
        temperature=temperature,
        seed=seed,
        role="target",
        stage=stage,
    )


def read_items(path: Path) -> list[dict[str, Any]]:
    """Items from a JSON array file or a JSONL file."""
    text = Path(path).read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    data = json.loads(text)
    if isinstance(data, dict) and "items" in data:
        data = data["items"]
    if not isinstance(data, list):
        raise ConfigError(f"{path}: expected a JSON array of items")
    return data


def split_file(root: Path, split: str) -> Path:
    """The items file of ``split`` under a split directory (``val/items.json``, ``val.jsonl``...)."""
    candidates = [root / split / "items.json", root / split / "items.jsonl", root / f"{split}.jsonl", root / f"{split}.json"]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    folder = root / split
    if folder.is_dir():
        found = sorted(folder.glob("*.json")) + sorted(folder.glob("*.jsonl"))
        if found:
            return found[0]
    raise ConfigError(f"no items for split '{split}' under {root} (looked for {', '.join(str(c) for c in candidates)})")
