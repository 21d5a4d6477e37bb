"""The SearchQA env: one chat call per clue, answer extracted from a tagged final line."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, ClassVar

import attrs
from attrs import validators as v

from skillopt.api import (
    ChatModel,
    CompletionRequest,
    ConfigError,
    DataSource,
    Env,
    EnvConfig,
    Message,
    Rollout,
    RolloutContext,
    Score,
    Task,
    Turn,
    canonical_split,
    hookimpl,
    read_rows,
    split_file,
)
from skillopt_envs_searchqa import data, prompting, scoring
from skillopt_envs_searchqa.presets import PRESETS

#: upstream's ``max_completion_tokens`` (room for reasoning models); the small preset sets 64
DEFAULT_MAX_TOKENS = 16384


@attrs.frozen(kw_only=True)
class SearchQAConfig(EnvConfig):
    """``env.*`` keys of SearchQA, on top of the ones every env has."""

    #: implicit data source when no data_path/split_dir is set: auto, sample or real
    data: str = attrs.field(default="auto", validator=v.in_(data.DATA_CHOICES))
    #: train:val:test cut of a single items file without a ``split`` field
    split_ratio: str = "2:1:7"
    split_seed: int = 42
    #: snippets are kept whole up to this many characters (upstream: 6000)
    max_context_chars: int = attrs.field(default=6000, validator=v.ge(200))
    temperature: float | None = None
    #: show one worked exchange (an invented clue and a bare ``Answer:`` reply) before the item
    demo: bool = True


class SearchQAEnv(Env):
    """SearchQA: answer a Jeopardy-style clue from retrieved search snippets (reading comprehension, no tools)."""

    name: ClassVar[str] = "searchqa"
    upstream_keys: ClassVar[dict[str, str | None]] = {"max_turns": None}  # one call per item
    summary: ClassVar[str] = "SearchQA: Jeopardy clues answered from search snippets (EM / token F1)"
    Config: ClassVar[type[EnvConfig]] = SearchQAConfig
    presets: ClassVar[dict[str, dict[str, Any]]] = PRESETS
    sample_description: ClassVar[str] = "bundled synthetic sample (CC0-1.0, not the real SearchQA benchmark)"
    config: SearchQAConfig

    # ------------------------------------------------------------------ data (the core's chain)

    def data_source(self) -> DataSource:
        cfg = self.config
        if cfg.split_dir and not cfg.data_path and Path(cfg.split_dir).expanduser().is_file():
            raise ConfigError(f"env.split_dir={Path(cfg.split_dir).expanduser()} is a file; use env.data_path for one items file")
        source = super().data_source()
        if source.kind in ("split_dir", "data_path") and source.path.is_dir() and not data.is_split_dir(source.path):
            raise ConfigError(
                f"env.{source.kind}={source.path} is a directory without train/val/test items "
                "(expected train/items.json, val/items.json, test/items.json or train.jsonl ...)"
            )
        if source.kind == "data_path":
            what = "split directory" if source.path.is_dir() else "items file"
            return attrs.evolve(source, description=f"{what} {source.path}")
        return source

    def real_source(self) -> DataSource | None:
        """The materialised split (``skillopt searchqa materialize``); required by ``env.data=real``."""
        if self.config.data == "sample":
            return None
        root = data.default_materialized_dir()
        if data.is_split_dir(root):
            return DataSource(kind="real", path=root, description=f"real SearchQA, materialized at {root}")
        if self.config.data == "real":
            raise ConfigError(
                "env.data=real (the paper preset) needs the real SearchQA data, and none is materialized at "
                f"{root}. Run `skillopt searchqa materialize` (needs `pip install datasets` and network), "
                "or point --set env.data_path=FILE.jsonl at your own items; or use the bundled sample with "
                "--preset small (or --set env.data=sample)."
            )
        return None

    def load_real(self, source: DataSource, split: str) -> list[Task]:
        path = split_file(source.path, split)
        return self.tasks_from_rows(read_rows(path), split, str(path))

    def load_data_path(self, path: Path, split: str) -> list[Task]:
        """One items file: by each item's ``split`` field, or without one cut by ``env.split_ratio``."""
        if path.is_dir():
            return super().load_data_path(path, split)
        rows = read_rows(path)
        if rows and all(isinstance(r, dict) and "split" in r for r in rows):
            chosen = [r for r in rows if canonical_split(str(r["split"])) == split]
        else:
            chosen = data.split_by_ratio(rows, data.parse_ratio(self.config.split_ratio), self.config.split_seed)[split]
        return self.tasks_from_rows(chosen, split, str(path))

    def to_task(self, row: dict[str, Any], split: str) -> Task:
        return data.item_to_task(row, split)

    # ------------------------------------------------------------------ rollout and score

    def rollout(self, task: Task, skill: str, model: ChatModel, ctx: RolloutContext) -> Rollout:
        cfg = self.config
        system = prompting.system_prompt(skill)
        user = prompting.user_prompt(task.inputs["question"], task.inputs.get("context", ""), cfg.max_context_chars)
        messages = [Message(role="system", content=system)]
        shown_system = system
        if cfg.demo:
            example_user, example_reply = prompting.demo_exchange(cfg.max_context_chars)
            messages += [Message(role="user", content=example_user), Message(role="assistant", content=example_reply)]
            # Recorded with the system turn: the optimizer renders the first user turn as
            # "the task", which must be the item, not the fixed example.
            shown_system = f"{system}\n\n[worked example, sent as a user/assistant exchange before the item]\n{example_user}\n{example_reply}"
        messages.append(Message(role="user", content=user))
        request = CompletionRequest(
            messages=tuple(messages),
            max_tokens=cfg.max_completion_tokens or DEFAULT_MAX_TOKENS,
            temperature=cfg.temperature,
            seed=ctx.seed,
            role="target",
            stage="rollout",
        )
        started = time.monotonic()
        completion = model.complete(request)
        extracted = scoring.extract_answer(completion.text)
        score = self.score(task, extracted.answer)
        if extracted.method in ("last-line", "empty"):
            note = "The reply had no `Answer:` line or <answer> tag; its last line was taken as the answer."
            score = attrs.evolve(score, feedback=f"{score.feedback} {note}")
        if completion.finish_reason == "length":
            score = attrs.evolve(score, feedback=f"{score.feedback} The reply was cut off at the token limit.")
        turns = (
            Turn(role="system", content=shown_system),
            Turn(role="user", content=user),
            Turn(role="assistant", content=completion.text),
            Turn(role="system", kind="evaluation", content=f"extracted answer ({extracted.method}): {extracted.answer!r}. {score.feedback}"),
        )
        return Rollout(
            task_id=task.id,
            task_type=task.task_type,
            turns=turns,
            prediction=extracted.answer,
            score=score,
            usage=completion.usage,
            duration_s=time.monotonic() - started,
        )

    def score(self, task: Task, prediction: str) -> Score:
        golds = scoring.gold_list(task.gold)
        em = scoring.exact_match(prediction, golds)
        f1 = scoring.token_f1(prediction, golds)
        return Score(
            hard=em,
            soft=f1,
            feedback=scoring.explain(prediction, golds, em, f1),
            metrics={"em": em, "f1": f1, "sub_em": scoring.substring_match(prediction, golds)},
        )


@hookimpl
def skillopt_register_envs(register) -> None:
    register(SearchQAEnv)
