"""The target playing one game: one chat call per step, a sliding history window.

Each step's prompt holds the skill (system), the task, the last ``history`` observation/
action pairs, the current observation and the admissible actions. The reply is read by
:func:`parse_action`; a reply with no readable command spends the step on an invalid
action ("Nothing happens."), never on a silent ``look``. Every step is recorded in the
rollout's turns (reply, parsed action, observation) and the executed commands form the
prediction, which :meth:`AlfworldEnv.score` replays to score.
"""

from __future__ import annotations

import time
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

import attrs

from skillopt.api import Rollout, Task, Turn, Usage, chat_request
from skillopt_envs_alfworld.actions import ParsedAction, parse_action
from skillopt_envs_alfworld.real import task_sentence

if TYPE_CHECKING:
    from skillopt_envs_alfworld.env import AlfworldEnv

NO_ACTION = "(no action)"
DEFAULT_MAX_TOKENS = 512
REPLY_CHARS = 600
VERBS = frozenset({"go", "take", "put", "open", "close", "clean", "heat", "cool", "use", "examine", "look", "inventory"})


@cache
def template(name: str) -> str:
    return resources.files("skillopt_envs_alfworld").joinpath("prompts", f"{name}.md").read_text(encoding="utf-8")


def system_prompt(skill: str) -> str:
    return template("rollout_system").format(skill=skill.strip() or "(empty)")


def user_prompt(
    task: str, step: int, max_steps: int, history: list[tuple[str, str]], observation: str, admissible: list[str]
) -> str:
    past = ""
    if history:
        lines = [f"## Your last {len(history)} step{'s' if len(history) > 1 else ''}"]
        for seen, did in history:
            lines += [f"[Observation] {seen}", f"[Action] {did}"]
        past = "\n" + "\n".join(lines) + "\n"
    return template("rollout_user").format(
        task=task, step=step, max_steps=max_steps, history=past, observation=observation,
        admissible="\n".join(admissible), example=admissible[0] if admissible else "look",
    )


def describe(parsed: ParsedAction) -> str:
    """What the trajectory shows the optimizer about how the reply was read."""
    if parsed.command is None:
        text = parsed.text
        if not text:
            why = "no command found in the reply"
        elif text.endswith("different commands listed"):
            why = f"the reply listed {text.split()[0]} different commands"
        elif text.split()[0] in VERBS:
            why = f"{text!r} is not an admissible command here"
        else:
            why = f"no command found in the reply (read {text!r})"
        return f"{NO_ACTION} {why}: counted as an invalid action"
    if parsed.mapped:
        return f"{parsed.command} (mapped from {parsed.text!r}, {parsed.how})"
    return parsed.command


def play(env: AlfworldEnv, task: Task, skill: str, model, ctx) -> Rollout:
    world = env.session(task)
    try:
        return _play(env, world, task, skill, model, ctx)
    finally:
        getattr(world, "close", lambda: None)()


def _play(env: AlfworldEnv, world, task: Task, skill: str, model, ctx) -> Rollout:
    cfg = env.config
    system = system_prompt(skill)
    observation = world.intro()
    task_line = task.inputs.get("task") or task_sentence(observation)
    turns = [Turn(role="system", content=system)]
    actions: list[str] = []
    window: list[tuple[str, str]] = []
    usage = Usage()
    started = time.monotonic()
    slowest = 0.0
    stopped = ""
    max_tokens = cfg.max_completion_tokens or DEFAULT_MAX_TOKENS
    for step in range(1, cfg.max_steps + 1):
        if ctx.cancel is not None and ctx.cancel.is_set():
            stopped = f"cancelled after {step - 1} steps"
            break
        if step > 1 and time.monotonic() - started + 1.5 * slowest + 1.0 > ctx.timeout_s:
            stopped = f"stopped after {step - 1} steps: the rollout deadline ({ctx.timeout_s:.0f}s) was near"
            break
        admissible = world.admissible()
        history = window[-cfg.history :] if cfg.history else []
        user = user_prompt(task_line, step, cfg.max_steps, history, observation, admissible)
        if step == 1:
            turns.append(Turn(role="user", content=user))
        call_started = time.monotonic()
        completion = model.complete(chat_request(system, user, max_tokens=max_tokens, seed=ctx.seed + step - 1))
        slowest = max(slowest, time.monotonic() - call_started)
        usage = usage + completion.usage
        reply = completion.text or ""
        parsed = parse_action(reply, admissible)
        command = parsed.command or NO_ACTION
        result = world.step(parsed.command or "")
        actions.append(command)
        window.append((observation, command))
        observation = result
        turns += [
            Turn(role="assistant", content=_clip(reply)),
            Turn(role="environment", kind="action", content=f"step {step}: {describe(parsed)}"),
            Turn(role="environment", kind="observation", content=result),
        ]
        if world.won:
            break
    prediction = "\n".join(actions)
    score = env.score(task, prediction)
    if stopped:
        turns.append(Turn(role="system", kind="note", content=stopped))
        score = attrs.evolve(score, feedback=f"{score.feedback} The episode was {stopped}.")
    turns.append(Turn(role="system", kind="evaluation", content=f"[EVALUATION RESULT] {score.feedback}"))
    return Rollout(
        task_id=task.id, task_type=task.task_type, turns=tuple(turns), prediction=prediction, score=score,
        usage=usage, duration_s=time.monotonic() - started,
    )


def _clip(text: str) -> str:
    text = text.strip()
    return text if len(text) <= REPLY_CHARS else text[: REPLY_CHARS - 1] + "…"
