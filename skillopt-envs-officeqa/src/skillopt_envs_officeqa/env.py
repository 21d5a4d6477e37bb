"""The OfficeQA env: questions over Treasury Bulletins, answered with local document tools."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, ClassVar

import attrs
from attrs import validators as v

from skillopt.api import ChatModel, DataSource, Env, EnvConfig, Rollout, RolloutContext, Score, Task, hookimpl
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
    sample_description: ClassVar[str] = "bundled synthetic sample (its Treasury-Bulletin-style documents too)"
    #: upstream's web-search variant: its settings are read only in ``search_mode: online``, which is not offered here
    upstream_keys: ClassVar[dict[str, str | tuple | None]] = {
        "search_mode": ("offline",),
        **dict.fromkeys(("max_queries_per_turn", "search_api_url", "search_auth_env", "search_provider",
                         "search_max_num_results", "search_timeout_seconds")),
    }
    config: OfficeQAConfig

    def __init__(self, config: OfficeQAConfig | None = None):
        super().__init__(config)
        self._index = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ data: the core's chain, CSV files too

    def data_source(self) -> DataSource:
        cfg = self.config
        if cfg.split_dir and not cfg.data_path:  # a missing split names every file looked for
            path = Path(cfg.split_dir).expanduser()
            return DataSource(kind="split_dir", path=path, description=f"split directory {path}")
        return super().data_source()

    def load_split(self, split: str) -> list[Task]:
        source = self.data_source()
        if source.kind != "split_dir":
            return super().load_split(split)
        path = loader.split_dir_file(source.path, split)
        return self.tasks_from_rows(loader.read_rows(path), split, str(path))

    def load_data_path(self, path: Path, split: str) -> list[Task]:
        rows, origin = loader.data_path_rows(self.config, path, split)
        return self.tasks_from_rows(rows, split, origin)

    def to_task(self, row: dict[str, Any], split: str) -> Task:
        return loader.row_to_task(row, split)

    def docs_roots(self) -> tuple[Path, ...]:
        from skillopt_envs_officeqa.docs import roots_from

        if self.data_source().kind == "sample":
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
