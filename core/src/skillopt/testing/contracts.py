"""Contract checkers for plugin authors: call them from your plugin's tests."""

from __future__ import annotations

from typing import Any

import attrs

from skillopt.backends import Backend
from skillopt.config.schema import EnvConfig
from skillopt.envs import Env, RolloutContext
from skillopt.errors import ConfigError
from skillopt.records import Completion, CompletionRequest, Message, Rollout, Score, Task
from skillopt.serde import structure_strict, to_data


class ContractError(AssertionError):
    """A plugin breaks the contract; the message says which rule."""


def _require(cond: bool, message: str) -> None:
    if not cond:
        raise ContractError(message)


def check_env_contract(env_cls: type[Env], *, config: EnvConfig | None = None, model: Any = None, rollout_items: int = 2) -> Env:
    """Check an env class against the env contract; returns the constructed env.

    Runs real rollouts through ``model`` (default: the scripted backend behind a
    :class:`~skillopt.calls.ModelClient`), so it exercises the env's prompt building,
    answer extraction and scoring end to end.
    """
    _require(issubclass(env_cls, Env), f"{env_cls!r} must subclass skillopt.envs.Env")
    _require(bool(env_cls.name), f"{env_cls.__name__}.name must be set")
    _require(issubclass(env_cls.Config, EnvConfig) and attrs.has(env_cls.Config), "Config must be an attrs subclass of EnvConfig")
    cfg = config or env_cls.Config()
    again = structure_strict(to_data(cfg), env_cls.Config, where="env")
    _require(again == cfg, "Config must round-trip through the strict converter")
    env = env_cls(cfg)
    seen: dict[str, str] = {}
    for split in ("train", "val", "test"):
        tasks = env.tasks(split)
        _require(isinstance(tasks, list) and bool(tasks), f"split '{split}' must be a non-empty list")
        _require(all(isinstance(t, Task) for t in tasks), f"split '{split}' must hold Task records")
        ids = [t.id for t in tasks]
        _require(len(ids) == len(set(ids)), f"split '{split}' has duplicate task ids")
        _require([t.id for t in env.tasks(split)] == ids, f"split '{split}' must load in a stable order")
        for task_id in ids:
            _require(task_id not in seen, f"task id {task_id!r} is in both '{seen.get(task_id)}' and '{split}'")
            seen[task_id] = split
    try:
        env.tasks("nosuchsplit")
        raise ContractError("an unknown split must raise ConfigError, not fall back to another split")
    except ConfigError:
        pass
    _require(isinstance(env.initial_skill(), str), "initial_skill() must return a string")
    task = env.tasks("val")[0]
    s1, s2 = env.score(task, ""), env.score(task, "")
    _require(isinstance(s1, Score), "score() must return a Score")
    _require(s1 == s2, "score() must be a pure function")
    _require(0.0 <= s1.hard <= 1.0 and 0.0 <= s1.soft <= 1.0, "scores must lie in [0, 1]")
    _require(s1.hard == 0.0, "an empty prediction must not pass")
    if model is None:
        from skillopt.calls import ModelClient
        from skillopt.scripted import ScriptedBackend

        model = ModelClient(ScriptedBackend(), role="target", cache=None, cache_mode="off")
    from skillopt.skillfolder.target import for_target

    for task in env.tasks("val")[:rollout_items]:
        skill, target = for_target(env, env.initial_skill(), model)  # a folder skill: as the engine renders it
        rollout = env.rollout(task, skill, target, RolloutContext(seed=1))
        _require(isinstance(rollout, Rollout), "rollout() must return a Rollout")
        _require(rollout.task_id == task.id, "rollout().task_id must equal the task's id")
        _require(0.0 <= rollout.score.hard <= 1.0 and 0.0 <= rollout.score.soft <= 1.0, "rollout scores must lie in [0, 1]")
        _require(len(rollout.turns) >= 1, "rollout() must record the conversation in turns")
    return env


def check_backend_contract(backend: Backend) -> None:
    """Check one live backend instance: text, structured output, usage, identity."""
    from skillopt.calls import ModelClient

    _require(isinstance(backend, Backend), "backends must subclass skillopt.backends.Backend")
    identity = backend.identity()
    secret = backend.settings.api_key
    _require(not secret or secret not in repr(identity), "identity() must not contain the API key")
    request = CompletionRequest(messages=(Message(role="user", content="Say hello."),), max_tokens=16)
    completion = backend.complete(request)
    _require(isinstance(completion, Completion) and isinstance(completion.text, str), "complete() must return a Completion")
    _require(completion.usage.prompt_tokens >= 0 and completion.usage.completion_tokens >= 0, "usage must be non-negative")
    client = ModelClient(backend, role="optimizer", cache=None, cache_mode="off", schema_retries=2)
    schema = {"type": "object", "properties": {"answer": {"type": "string", "maxLength": 40}}, "required": ["answer"]}
    structured = client.complete(
        CompletionRequest(messages=(Message(role="user", content='Reply with JSON {"answer": "..."}.'),), max_tokens=64, json_schema=schema, role="optimizer")
    )
    _require(isinstance(structured.parsed, dict) and "answer" in structured.parsed, "structured output must parse and match the schema")
