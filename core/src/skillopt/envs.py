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
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from skillopt.config.schema import EnvConfig
from skillopt.errors import ConfigError
from skillopt.records import CompletionRequest, Message, Rollout, Score, Task
from skillopt.skillfolder import SkillFolder, render_inline, render_installed, skill_of

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from skillopt.records import Completion

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

    #: per-item seed, derived from ``train.seed``, the item and the repeat: pass it on to requests
    seed: int = 0
    #: a train-step rollout (True) or an evaluation on val / test / slow-update items (False)
    training: bool = False
    #: the split an evaluation scores (``val``; ``val_recheck`` for the fresh re-check's samples; ``test``); '' for a
    #: train step
    split: str = ""
    #: a per-item folder for files the env keeps (``predictions/ITEM`` of the stage); may not exist yet
    workdir: Path | None = None
    #: seconds the env should give one item (``env.exec_timeout``); the engine abandons it somewhat later
    timeout_s: float = 120.0
    #: 0-based repeat of this item (the gate's repeats per item)
    repeat: int = 0
    #: set when the run is cancelled: a long rollout should check it and stop
    cancel: threading.Event | None = attrs.field(default=None, eq=False)


class ChatModel(abc.ABC):
    """What an env's ``rollout`` receives: something that completes requests."""

    @abc.abstractmethod
    def complete(self, request: CompletionRequest) -> Completion:
        """Answer one request with a :class:`~skillopt.records.Completion` (raise on provider errors)."""


@attrs.frozen(kw_only=True)
class DataSource:
    """Where an env's items come from; ``description`` is what a run prints once.

    ``kind``: ``split_dir`` (``env.split_dir``), ``data_path`` (``env.data_path``),
    ``real`` (the env's own real-data loader) or ``sample`` (the bundled sample)."""

    #: one of ``split_dir``, ``data_path``, ``real``, ``sample`` (see above)
    kind: str
    #: the directory or file the items are read from; None for the bundled sample
    path: Path | None = None
    #: what a run prints once (``split directory ...``, ``bundled sample`` ...)
    description: str = ""


class Env(abc.ABC):
    """Base class of benchmark plugins.

    Subclasses set ``name``, optionally a ``Config`` (subclass of
    :class:`~skillopt.api.EnvConfig`) and ``presets``, and implement :meth:`to_task`
    (one item row -> a :class:`~skillopt.api.Task`), :meth:`rollout` and :meth:`score`.
    The core finds the rows (:meth:`load_split`: ``env.split_dir`` -> ``env.data_path``
    -> :meth:`load_real` -> the bundled sample under :attr:`sample_dir`); an env with
    data that are not item rows overrides :meth:`load_split` itself. Put ``initial.md``
    (the starting skill) and an optional ``prompts/`` folder of optimizer-prompt
    overrides next to the module.
    """

    #: the name it is registered and selected under (``skillopt run --env NAME``)
    name: ClassVar[str] = ""
    #: one line for ``skillopt list`` (default: the docstring's first line)
    summary: ClassVar[str] = ""
    #: its ``[env]`` keys: :class:`~skillopt.api.EnvConfig` or a subclass, read as ``self.config``
    Config: ClassVar[type[EnvConfig]] = EnvConfig
    #: named partial run configs (see :mod:`skillopt.config.presets`); build ``small``
    #: with :func:`~skillopt.api.small_preset`
    presets: ClassVar[dict[str, dict[str, Any]]] = {}
    #: package folder of the bundled sample split (``train.json`` or ``train/items.json`` ...)
    sample_dir: ClassVar[str] = "data/sample"
    #: what the bundled sample is, for the data line a run prints
    sample_description: ClassVar[str] = "bundled sample"
    #: ``env:`` keys of microsoft/SkillOpt's YAML configs that this env reads under another
    #: name (the value), does without (None), or does without at these values only (a
    #: tuple; another value is refused by name); see ``docs/upstream-configs.md``
    upstream_keys: ClassVar[dict[str, str | tuple[Any, ...] | None]] = {}

    def __init__(self, config: EnvConfig | None = None) -> None:
        """``config``: the ``[env]`` section (an instance of ``Config``); None = its defaults."""
        self.config = config if config is not None else self.Config()
        self._tasks: dict[str, list[Task]] = {}
        self._tasks_lock = threading.Lock()
        self._announced = False

    @classmethod
    def auto_preset(cls, target_backend: type | None) -> str:
        """The preset used when none is named: ``small`` on a backend that declares
        ``small_model`` (a model on this machine's CPU), ``full`` elsewhere; ''
        when the env ships neither."""
        names = set(cls.presets)
        if target_backend is not None and getattr(target_backend, "small_model", False) and "small" in names:
            return "small"
        return "full" if names & {"full", "paper"} else ""

    # ------------------------------------------------------------------ what an env implements

    def to_task(self, row: dict[str, Any], split: str) -> Task:
        """One item row of a split file -> a Task. Raise ConfigError (or KeyError for a
        missing field) for a bad row; the core adds the file and the item number."""
        raise NotImplementedError(f"{type(self).__name__} must implement to_task() or override load_split()")

    @abc.abstractmethod
    def rollout(self, task: Task, skill: str, model: ChatModel, ctx: RolloutContext) -> Rollout:
        """Run ``task`` with ``skill`` in the target's prompt and return the scored result."""

    @abc.abstractmethod
    def score(self, task: Task, prediction: str) -> Score:
        """Score a prediction; a pure function of its arguments."""

    # ------------------------------------------------------------------ the split-source chain

    def data_source(self) -> DataSource:
        """The source the chain picks; override :meth:`real_source` to add real data."""
        cfg = self.config
        if cfg.split_dir and cfg.data_path:
            raise ConfigError("set env.split_dir or env.data_path, not both")
        if cfg.split_dir:
            path = Path(cfg.split_dir).expanduser()
            if not path.is_dir():
                raise ConfigError(f"env.split_dir: no such directory: {path}")
            return DataSource(kind="split_dir", path=path, description=f"split directory {path}")
        if cfg.data_path:
            path = Path(cfg.data_path).expanduser()
            if not path.exists():
                raise ConfigError(f"env.data_path: no such file or directory: {path}")
            return DataSource(kind="data_path", path=path, description=f"{path}")
        real = self.real_source()
        if real is not None:
            return real
        return DataSource(kind="sample", path=None, description=self.sample_description)

    def real_source(self) -> DataSource | None:
        """The env's real data when no path is configured (a materialised download), or
        None for the bundled sample. May raise ConfigError saying how to get the data."""
        return None

    def load_split(self, split: str) -> list[Task]:
        """All tasks of ``split``, in a stable order, from :meth:`data_source`."""
        source = self.data_source()
        if source.kind == "split_dir":
            assert source.path is not None, "a split_dir source has a path"
            path = split_file(source.path, split)
            return self.tasks_from_rows(read_rows(path), split, str(path))
        if source.kind == "data_path":
            assert source.path is not None, "a data_path source has a path"
            return self.load_data_path(source.path, split)
        if source.kind == "real":
            return self.load_real(source, split)
        root = self.package_files().joinpath(*self.sample_dir.split("/"))
        path = split_file(Path(str(root)), split)
        return self.tasks_from_rows(read_rows(path), split, f"bundled sample {split}")

    def load_data_path(self, path: Path, split: str) -> list[Task]:
        """``env.data_path``: a split directory, or one items file whose rows carry a
        ``split`` field. Envs whose real benchmark has another layout override this."""
        if path.is_dir():
            file = split_file(path, split)
            return self.tasks_from_rows(read_rows(file), split, str(file))
        rows = read_rows(path)
        if not all(isinstance(r, dict) and "split" in r for r in rows):
            raise ConfigError(f"{path}: every item needs a 'split' field (train/val/test), or use env.split_dir")
        chosen = [r for r in rows if canonical_split(str(r["split"])) == split]
        return self.tasks_from_rows(chosen, split, str(path))

    def load_real(self, source: DataSource, split: str) -> list[Task]:
        """Tasks of ``split`` from the source :meth:`real_source` returned."""
        raise NotImplementedError(f"{type(self).__name__}.real_source() returned a source but load_real() is missing")

    def tasks_from_rows(self, rows: list[Any], split: str, origin: str) -> list[Task]:
        """:meth:`to_task` over ``rows``, errors naming the file and item, ids unique."""
        tasks: list[Task] = []
        seen: set[str] = set()
        for i, row in enumerate(rows):
            where = f"{origin} item {i + 1}"
            if not isinstance(row, dict):
                raise ConfigError(f"{where}: expected a JSON object, got {type(row).__name__}")
            try:
                task = self.to_task(row, split)
            except KeyError as exc:
                raise ConfigError(f"{where}: missing field {exc}") from None
            except ConfigError as exc:
                raise ConfigError(f"{where}: {exc}") from None
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"{where}: {exc}") from None
            if task.id in seen:
                raise ConfigError(f"{origin}: duplicate item id {task.id!r}")
            seen.add(task.id)
            tasks.append(task if task.split else attrs.evolve(task, split=split))
        return tasks

    def tasks(self, split: str) -> list[Task]:
        """The tasks of ``split`` (memoised per env instance) with ``env.limit`` applied.

        Prints the data source once per env instance: sample and real data are easy
        to mix up."""
        split = canonical_split(split)
        with self._tasks_lock:
            if split not in self._tasks:
                if not self._announced:
                    from skillopt.report import say

                    description = self.data_source().description  # may raise: say how to get the data
                    self._announced = True
                    say(f"{self.name or type(self).__name__} data: [bold]{description}[/bold]")
                self._tasks[split] = list(self.load_split(split))
            items = list(self._tasks[split])
        if self.config.limit:
            items = items[: self.config.limit]
        return items

    def package_files(self) -> Traversable:
        """The folder holding the env's module: its package data (``initial.md``, ``prompts/``)."""
        module = type(self).__module__
        try:
            return resources.files(module)
        except (TypeError, AttributeError, ModuleNotFoundError):
            import sys

            return Path(getattr(sys.modules.get(module), "__file__", "") or ".").resolve().parent

    def initial_skill(self) -> str:
        """The starting skill: ``env.skill_init`` if set (a file, or an Agent Skills folder:
        its canonical text, see :mod:`skillopt.skillfolder`), else the packaged ``initial.md``."""
        if self.config.skill_init:
            return read_skill(Path(self.config.skill_init).expanduser(), "env.skill_init")
        try:
            return str(self.package_files().joinpath("initial.md").read_text(encoding="utf-8"))
        except (FileNotFoundError, NotADirectoryError):
            return ""

    def render_skill(self, folder: SkillFolder, *, installed: bool) -> str:
        """The text :meth:`rollout` receives as ``skill`` when the skill is a folder.

        ``installed``: the target's harness writes the folder's other files into its
        workspace (an agent CLI in agent mode), so the text is ``SKILL.md``'s body and a
        line naming those files (:func:`~skillopt.skillfolder.render_installed`).
        Otherwise the whole folder is inlined for a chat target: ``SKILL.md``'s body, then
        each ``references/NAME.md`` under a ``## Reference: references/NAME.md`` heading;
        scripts are left out (:func:`~skillopt.skillfolder.render_inline`). Override to
        show the target something else (another heading style, scripts as code blocks)."""
        return render_installed(folder) if installed else render_inline(folder)

    def prompt(self, name: str) -> str | None:
        """An env-specific optimizer prompt (``prompts/<name>.md``), if the env ships one.

        Package data does not change during a run: each prompt is read once per env, not
        once per optimizer call."""
        read: dict[str, str | None] = self.__dict__.setdefault("_prompts_read", {})
        if name not in read:
            try:
                node = self.package_files().joinpath("prompts", f"{name}.md")
                read[name] = node.read_text(encoding="utf-8") if node.is_file() else None
            except (FileNotFoundError, NotADirectoryError):
                read[name] = None
        return read[name]

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
    """Items from a JSON array file (or ``{"items": [...]}``) or a JSONL file."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    data = json.loads(text)
    if isinstance(data, dict) and "items" in data:
        data = data["items"]
    if not isinstance(data, list):
        raise ConfigError(f"{path}: expected a JSON array of items")
    return data


#: the largest skill file read (characters): a skill is instructions in a prompt; a bigger
#: file is almost certainly the wrong file, and would be paid for on every call
MAX_SKILL_CHARS = 200_000


def read_skill(path: Path, what: str = "skill") -> str:
    """A skill's text, with a clear error for a missing, non-UTF-8 or oversized file. A
    folder (Agent Skills layout) is read whole, as its canonical text; so is a file that
    holds one (a folder run's ``best_skill.md``), checked."""
    if path.is_dir():
        from skillopt.skillfolder.disk import load_folder

        return load_folder(path, what).text()
    if not path.is_file():
        raise ConfigError(f"{what}: no such file: {path}")
    if path.stat().st_size > 4 * MAX_SKILL_CHARS:
        raise ConfigError(f"{what}: {path} is {path.stat().st_size:,} bytes; a skill may hold at most {MAX_SKILL_CHARS:,} characters")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{what}: {path} is not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    if len(text) > MAX_SKILL_CHARS:
        raise ConfigError(f"{what}: {path} holds {len(text):,} characters; a skill may hold at most {MAX_SKILL_CHARS:,}")
    folder = skill_of(text, f"{what}: {path}")
    if isinstance(folder, SkillFolder):
        from skillopt.skillfolder import check_front_matter

        check_front_matter(folder.main, f"{what}: {path} (SKILL.md)")
    return text


def read_rows(path: Path) -> list[Any]:
    """:func:`read_items` with unreadable files turned into ConfigErrors naming the file."""
    try:
        return read_items(path)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not valid JSON/JSONL ({exc})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror or exc})") from None


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
