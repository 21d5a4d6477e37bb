"""The OfficeQA env: questions over Treasury Bulletins, answered with local document tools."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, ClassVar

import attrs
from attrs import validators as v

from skillopt.config.schema import EnvConfig
from skillopt.envs import ChatModel, Env, RolloutContext
from skillopt.hookspecs import hookimpl
from skillopt.records import Rollout, Score, Task

from skillopt_envs_officeqa import loader, scoring
from skillopt_envs_officeqa.presets import PRESETS

MODES = ("tools", "oracle")


def _dirs(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(p.strip() for p in value.split(",") if p.strip())
    return tuple(str(p) for p in value)


@attrs.frozen(kw_only=True)
class OfficeQAConfig(EnvConfig):
    """``env.*`` keys of OfficeQA, on top of the ones every env has."""

    #: folders holding ``treasury_bulletin_*.txt`` (and ``jsons/``); then $OFFICEQA_DOCS_DIR
    data_dirs: tuple[str, ...] = attrs.field(default=(), converter=_dirs)
    #: ID manifest used to split a single items file (default: upstream's, bundled)
    manifest_dir: str = ""
    split_ratio: str = "2:1:7"
    split_seed: int = 42
    #: ``tools``: the multi-turn glob/grep/read loop; ``oracle``: one call over the gold pages
    mode: str = attrs.field(default="tools", validator=v.in_(MODES))
    #: model calls per item in tools mode (upstream: 24)
    max_tool_turns: int = attrs.field(default=24, validator=v.ge(1))
    #: in tools mode, also give the gold pages in the prompt (upstream's default)
    oracle_pages: bool = False
    #: tools may open only the item's ``source_files`` when it lists any (upstream's rule)
    restrict_to_source_files: bool = True
    oracle_page_chars: int = attrs.field(default=24000, validator=v.ge(200))
    oracle_total_chars: int = attrs.field(default=80000, validator=v.ge(200))
    #: a numeric match (same quantity, see scoring.py) counts as a pass
    numeric_match: bool = True
    numeric_rel_tol: float = attrs.field(default=0.0, validator=v.ge(0.0))
    temperature: float | None = None


class OfficeQAEnv(Env):
    """OfficeQA: questions over long Treasury Bulletin documents, read with glob/grep/read tools."""

    name: ClassVar[str] = "officeqa"
    summary: ClassVar[str] = "OfficeQA: Treasury Bulletin questions answered with local document tools (EM / F1 / numeric)"
    Config: ClassVar[type[EnvConfig]] = OfficeQAConfig
    presets: ClassVar[dict[str, dict[str, Any]]] = PRESETS
    config: OfficeQAConfig

    def __init__(self, config: OfficeQAConfig | None = None):
        super().__init__(config)
        self._cache: dict[str, list[Task]] = {}
        self._index = None
        self._lock = threading.Lock()

    @staticmethod
    def auto_preset(target_backend: str) -> str:
        """Small settings (oracle mode) on the embedded local model, the paper's everywhere else."""
        return "small" if target_backend in ("local", "scripted") else "full"

    def load_split(self, split: str) -> list[Task]:
        if split not in self._cache:
            self._cache[split] = loader.load_tasks(self.config, split)
        return list(self._cache[split])

    def docs_roots(self) -> tuple[Path, ...]:
        from skillopt_envs_officeqa.docs import roots_from

        if loader.uses_bundled_sample(self.config):
            # the synthetic files share upstream's names: never mix them with a real corpus
            return roots_from((), environ={}, bundled=loader.bundled_dir("sample", "docs"))
        return roots_from(self.config.data_dirs)

    def docs_index(self):
        """The document index, built once per env (rollouts run in threads)."""
        from skillopt_envs_officeqa.docs import DocsIndex

        with self._lock:
            if self._index is None:
                self._index = DocsIndex.build(self.docs_roots())
            return self._index

    def rollout(self, task: Task, skill: str, model: ChatModel, ctx: RolloutContext) -> Rollout:
        from skillopt_envs_officeqa.agent import solve

        return solve(self, task, skill, model, ctx)

    def score(self, task: Task, prediction: str) -> Score:
        cfg = self.config
        gold = str(task.gold)
        g = scoring.grade(prediction, gold, task.inputs.get("question", ""), numeric=cfg.numeric_match, rel_tol=cfg.numeric_rel_tol)
        return Score(
            hard=g.hard,
            soft=g.soft,
            feedback=scoring.explain(prediction, gold, g, cfg.numeric_match),
            metrics={"em": g.em, "f1": g.f1, "numeric": g.numeric},
        )


@hookimpl
def skillopt_register_envs(register) -> None:
    register(OfficeQAEnv, aliases=("treasury",))
