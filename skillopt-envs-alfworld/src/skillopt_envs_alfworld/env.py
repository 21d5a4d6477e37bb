"""The ALFWorld-style env: household text games played one command per chat call.

Games come from ``env.split_dir`` (game rows, see the README), the bundled generated
sample, or (``env.source = "alfworld"`` / ``env.data_path``) the real ALFWorld games
through the optional adapter in :mod:`skillopt_envs_alfworld.real`. The target sees
only the task sentence and what the simulator prints; the game layout, goal and expert
plan ride on ``Task.gold``/``Task.reference`` for scoring and for the optimizer. ``score`` replays the executed commands on a fresh world, so it is
a pure function of the task and the prediction (one command per line).
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs
from attrs import validators as v

from skillopt.api import ChatModel, ConfigError, DataSource, Env, EnvConfig, Rollout, RolloutContext, Score, Task, hookimpl
from skillopt_envs_alfworld.game import Game, game_from_row, game_to_row, kind_of
from skillopt_envs_alfworld.presets import PRESETS
from skillopt_envs_alfworld.world import NOTHING, World, replay


@attrs.frozen(kw_only=True)
class AlfworldConfig(EnvConfig):
    """``env.*`` keys of the alfworld env (the common ones come from EnvConfig)."""

    max_steps: int = attrs.field(default=50, validator=v.ge(1))
    history: int = attrs.field(default=2, validator=v.ge(0))
    source: str = attrs.field(default="sample", validator=v.in_(("sample", "alfworld")))


class AlfworldEnv(Env):
    """Multi-step household text games (ALFWorld's six task types), one call per step."""

    name = "alfworld"
    upstream_keys: ClassVar[dict[str, str | tuple[Any, ...] | None]] = {"max_api_workers": None}  # calls are bounded by model.max_in_flight
    summary = "household text games (ALFWorld's six task types), multi-step; generated sample bundled"
    Config = AlfworldConfig
    presets: ClassVar[dict[str, dict[str, Any]]] = PRESETS
    sample_description = "bundled generated sample (simulator games)"
    config: AlfworldConfig

    def __init__(self, config: EnvConfig | None = None):
        super().__init__(config)
        self._games: dict[str, Game] = {}

    # ------------------------------------------------------------------ data

    @property
    def real(self) -> bool:
        """Whether splits come from the real ALFWorld games (the optional adapter)."""
        return self.config.source == "alfworld" or bool(self.config.data_path)

    def data_source(self) -> DataSource:
        """``env.data_path`` is the real games' data root, not an items file."""
        if not self.real:
            return super().data_source()
        if self.config.split_dir:
            raise ConfigError(
                "env.split_dir holds simulator games; it cannot be combined with env.source=alfworld / env.data_path"
            )
        from skillopt_envs_alfworld.real import data_root

        root = data_root(self.config.data_path)
        return DataSource(kind="real", path=root, description=f"real ALFWorld games under {root}")

    def load_real(self, source: DataSource, split: str) -> list[Task]:
        from skillopt_envs_alfworld import real

        return real.load_split(split, source.path)

    def to_task(self, row: dict[str, Any], split: str) -> Task:
        game = game_from_row(row)
        self._games[game.id] = game
        return Task(
            id=game.id,
            inputs={"task": f"Your task is to: {game.task}", "observation": World(game).intro()},
            gold={"game": game_to_row(game)},
            task_type=game.task_type,
            reference=reference_text(game),
            split=split,
        )

    def session(self, task: Task):
        """A fresh game to play: the simulator's :class:`World`, or a real ALFWorld game."""
        if "gamefile" in task.gold:
            from skillopt_envs_alfworld.real import RealGame

            return RealGame(task.gold["gamefile"], self.config.max_steps)
        return World(self.game(task))

    def game(self, task: Task) -> Game:
        """The game behind ``task`` (parsed from ``task.gold`` once, then cached by id)."""
        game = self._games.get(task.id)
        if game is None or game_to_row(game) != task.gold["game"]:
            game = game_from_row(task.gold["game"], f"task {task.id}")
            self._games[task.id] = game
        return game

    # ------------------------------------------------------------------ rollout and score

    def rollout(self, task: Task, skill: str, model: ChatModel, ctx: RolloutContext) -> Rollout:
        from skillopt_envs_alfworld.agent import play

        return play(self, task, skill, model, ctx)

    def score(self, task: Task, prediction: str) -> Score:
        """Replay the commands (one per line): hard = won, soft = fraction of goal conditions met."""
        if "gamefile" in task.gold:
            from skillopt_envs_alfworld import real

            return real.score(task, prediction, self.config.max_steps)
        game = self.game(task)
        actions = [line.strip() for line in (prediction or "").splitlines() if line.strip()]
        world, observations = replay(game, actions)
        conditions = world.conditions()
        met = [c.text for c in conditions if c.met]
        unmet = [c.text for c in conditions if not c.met]
        won = not unmet
        invalid = sum(o == NOTHING for o in observations)
        steps, best = len(actions), game.optimal_steps
        if won:
            feedback = f"Won in {steps} steps (the expert plan takes {best})."
        else:
            feedback = f"Not won after {steps} steps (the expert plan takes {best}). Unmet goal conditions: {'; '.join(unmet)}."
            if met:
                feedback += f" Met: {'; '.join(met)}."
            if steps >= self.config.max_steps:
                feedback += f" The step budget of {self.config.max_steps} ran out."
        if invalid:
            feedback += f" {invalid} of the {steps} commands were invalid (\"Nothing happens.\")."
        metrics = {
            "steps": float(steps),
            "optimal_steps": float(best),
            "invalid_actions": float(invalid),
            "conditions_met": float(len(met)),
            "conditions": float(len(conditions)),
        }
        return Score(hard=float(won), soft=len(met) / len(conditions), feedback=feedback, metrics=metrics)


def reference_text(game: Game) -> str:
    """The optimizer's hidden reference: the goal, where its objects start, the expert plan."""
    world = World(game)
    goal = game.goal
    starts = [
        f"{t.name} in/on {t.location}" + (" (closed)" if world.receptacles[t.location].openable else "")
        for t in game.things
        if not t.fixed and kind_of(t.name) == goal.object_type
    ]
    lines = [
        f"Task type: {game.task_type}. Goal: {game.task}",
        "Goal conditions: " + "; ".join(c.text for c in world.conditions()),
        f"{goal.object_type} starts at: " + ", ".join(starts),
    ]
    lamps = [f"{t.name} on {t.location}" for t in game.things if t.fixed]
    if lamps:
        lines.append("Lamps: " + ", ".join(lamps))
    lines.append(f"Expert plan ({game.optimal_steps} steps): " + "; ".join(game.expert_plan))
    return "\n".join(lines)


@hookimpl
def skillopt_register_envs(register) -> None:
    register(AlfworldEnv)
