"""The SpreadsheetBench env: config, presets, splits, rollout and score.

Splits follow the core's chain, with ``env.data_path`` (a SpreadsheetBench release, split
by the shipped manifest or by the id items of ``env.split_dir``) first, then
``env.split_dir`` (full items), then the bundled sample under ``sample/`` (see :mod:`.loader`).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, ClassVar

import attrs
from attrs import validators as v

from skillopt.api import DataSource, Env, EnvConfig, Rollout, Score, Task, hookimpl
from skillopt_envs_spreadsheet.loader import TaskSource, build_task
from skillopt_envs_spreadsheet.presets import PRESETS

MODES = ("single", "multi")


@attrs.frozen(kw_only=True)
class SpreadsheetConfig(EnvConfig):
    """Defaults are upstream's paper settings (multi-turn, 30 turns, 600 s per rollout)."""

    exec_timeout: float = attrs.field(default=600.0, validator=v.gt(0))
    mode: str = attrs.field(default="multi", validator=v.in_(MODES))
    max_turns: int = attrs.field(default=30, validator=v.ge(1))
    split_manifest: str = ""
    #: auto/strict: Linux namespaces, else refuse; process: the weaker isolation where they are unavailable
    isolation: str = attrs.field(default="auto", validator=v.in_(("auto", "strict", "process", "basic")))
    case_wall_s: float = attrs.field(default=30.0, validator=v.gt(0))
    case_cpu_s: int = attrs.field(default=20, validator=v.ge(1))
    case_memory_mb: int = attrs.field(default=1024, validator=v.ge(128))
    case_file_mb: int = attrs.field(default=32, validator=v.ge(1))
    preview_rows: int = attrs.field(default=5, validator=v.ge(1))
    preview_cols: int = attrs.field(default=20, validator=v.ge(1))
    preview_value_chars: int = attrs.field(default=40, validator=v.ge(4))
    feedback_chars: int = attrs.field(default=3000, validator=v.ge(200))


class SpreadsheetEnv(Env):
    """SpreadsheetBench: write openpyxl code that edits a workbook; graded cell by cell
    on several test cases."""

    name = "spreadsheetbench"
    upstream_keys: ClassVar[dict[str, str | tuple[Any, ...] | None]] = {"data_root": "data_path"}  # the Verified-400 folder
    summary = "SpreadsheetBench: Python/openpyxl code edits workbooks, graded by the official cell comparator"
    Config = SpreadsheetConfig
    presets = PRESETS
    sample_dir = "sample"
    sample_description = "bundled generated sample"

    def __init__(self, config: SpreadsheetConfig | None = None):
        super().__init__(config)
        self.source = TaskSource(
            data_path=self.config.data_path, split_dir=self.config.split_dir, split_manifest=self.config.split_manifest
        )
        self._sandbox = None
        self._lock = threading.Lock()
        self._previews: dict[str, str] = {}

    # ------------------------------------------------------------------ contract

    def data_source(self) -> DataSource:
        """``env.data_path`` is a release: it wins, and ``env.split_dir`` then holds split ids."""
        if self.source.data_path is None:
            return super().data_source()
        return DataSource(kind="data_path", path=self.source.data_path, description=self.source.describe())

    def load_data_path(self, path: Path, split: str) -> list[Task]:
        rows, where = self.source.rows(split)
        return self.tasks_from_rows(rows, split, where)

    def to_task(self, row: dict[str, Any], split: str) -> Task:
        return build_task(row, self.source.root, split)

    def rollout(self, task: Task, skill: str, model, ctx) -> Rollout:
        from skillopt_envs_spreadsheet.agent import solve

        return solve(self, task, skill, model, ctx)

    def score(self, task: Task, prediction: str) -> Score:
        """Run ``prediction`` (bare code, or a reply holding a fenced block) on every case."""
        from skillopt_envs_spreadsheet.agent import extract_code
        from skillopt_envs_spreadsheet.grading import grade, to_score

        code = extract_code(prediction) if "```" in prediction else prediction
        cases = [tuple(c) for c in task.gold["cases"]]
        results = grade(self.sandbox, code, cases, task.gold["answer_position"])
        return to_score(results, feedback_chars=self.config.feedback_chars)

    # ------------------------------------------------------------------ shared resources

    @property
    def sandbox(self):
        """The code executor, built on first use (probing namespaces costs a subprocess)."""
        with self._lock:
            if self._sandbox is None:
                from skillopt_envs_spreadsheet.sandbox import Limits, Sandbox

                c = self.config
                limits = Limits(wall_s=c.case_wall_s, cpu_s=c.case_cpu_s, memory_mb=c.case_memory_mb, file_mb=c.case_file_mb,
                                output_chars=c.feedback_chars)
                self._sandbox = Sandbox(limits, isolation=c.isolation)
                from skillopt.api import say

                say(f"spreadsheet sandbox (env.isolation={c.isolation}): [bold]{self._sandbox.describe()}[/bold]")
            return self._sandbox

    def preview(self, task: Task) -> str:
        """Case 1's workbook preview (cached: every rollout of a task shows the same)."""
        from skillopt_envs_spreadsheet.preview import workbook_preview

        path = task.inputs["input_file"]
        with self._lock:
            cached = self._previews.get(path)
        if cached is None:
            c = self.config
            cached = workbook_preview(Path(path), rows=c.preview_rows, cols=c.preview_cols, value_chars=c.preview_value_chars)
            with self._lock:
                self._previews[path] = cached
        return cached


@hookimpl
def skillopt_register_envs(register) -> None:
    register(SpreadsheetEnv, aliases=("spreadsheet",))
