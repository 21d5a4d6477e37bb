"""The SearchQA env: one chat call per clue, answer extracted from a tagged final line."""

from __future__ import annotations

import time
from typing import Any, ClassVar

import attrs
from attrs import validators as v

from skillopt.config.schema import EnvConfig
from skillopt.envs import ChatModel, Env, RolloutContext
from skillopt.records import CompletionRequest, Message, Rollout, Score, Task, Turn

from skillopt.hookspecs import hookimpl
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
    summary: ClassVar[str] = "SearchQA: Jeopardy clues answered from search snippets (EM / token F1)"
    Config: ClassVar[type[EnvConfig]] = SearchQAConfig
    presets: ClassVar[dict[str, dict[str, Any]]] = PRESETS

    def __init__(self, config: SearchQAConfig | None = None):
        super().__init__(config)
        self._source: data.DataSource | None = None
        self._cache: dict[str, list[Task]] = {}
        self._announced = False

    @staticmethod
    def auto_preset(target_backend: str) -> str:
        """Small settings on the embedded local model, the paper's everywhere else."""
        return "small" if target_backend in ("local", "scripted") else "full"

    # ------------------------------------------------------------------ data

    @property
    def source(self) -> data.DataSource:
        if self._source is None:
            self._source = data.resolve_source(self.config)
        return self._source

    def load_split(self, split: str) -> list[Task]:
        if split not in self._cache:
            source = self.source
            self._announce(source)
            self._cache[split] = data.load_source(source, split)
        return list(self._cache[split])

    def _announce(self, source: data.DataSource) -> None:
        """Say once, on stderr, which data this run uses (sample vs real is easy to mix up)."""
        if self._announced:
            return
        self._announced = True
        from skillopt.cli.output import info

        info(f"searchqa data: [bold]{source.describe()}[/bold]")

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
