"""A game as data: the room, where everything starts, the goal and the expert plan.

Games are plain JSON rows (the bundled sample, ``env.split_dir`` files), so a game can
be inspected, diffed and regenerated. The goal is a list of named predicates over the
world's state; ``won`` is their conjunction and the fraction met is the soft score.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from skillopt.api import ConfigError

if TYPE_CHECKING:
    from skillopt_envs_alfworld.world import World

TASK_TYPES = (
    "pick_and_place",
    "pick_two",
    "look_at_obj_in_light",
    "pick_clean_then_place",
    "pick_heat_then_place",
    "pick_cool_then_place",
)
STATE_OF_TASK = {"pick_clean_then_place": "clean", "pick_heat_then_place": "hot", "pick_cool_then_place": "cool"}
APPLIANCE_OF_STATE = {"clean": "sinkbasin", "hot": "microwave", "cool": "fridge"}
VERB_OF_STATE = {"clean": "clean", "hot": "heat", "cool": "cool"}
LAMP_KINDS = ("desklamp", "floorlamp")
INSIDE_KINDS = frozenset(
    {"cabinet", "drawer", "fridge", "microwave", "safe", "garbagecan", "sinkbasin", "bathtubbasin", "laundryhamper", "box"}
)


def kind_of(name: str) -> str:
    """``"apple 2"`` -> ``"apple"``."""
    return name.rsplit(" ", 1)[0]


def preposition(kind: str) -> str:
    return "in" if kind in INSIDE_KINDS else "on"


@attrs.frozen(kw_only=True)
class Receptacle:
    name: str
    openable: bool = False


@attrs.frozen(kw_only=True)
class Thing:
    """An object instance and where it starts; ``fixed`` things (lamps) cannot be taken."""

    name: str
    location: str
    fixed: bool = False


@attrs.frozen(kw_only=True)
class Goal:
    task_type: str
    object_type: str
    receptacle_type: str = ""
    count: int = 1

    @property
    def state(self) -> str:
        return STATE_OF_TASK.get(self.task_type, "")


@attrs.frozen(kw_only=True)
class Condition:
    text: str
    met: bool


@attrs.frozen(kw_only=True)
class Game:
    id: str
    task_type: str
    room: str
    task: str
    receptacles: tuple[Receptacle, ...]
    things: tuple[Thing, ...]
    goal: Goal
    expert_plan: tuple[str, ...] = ()
    seed: int = 0

    @property
    def optimal_steps(self) -> int:
        return len(self.expert_plan)


def goal_conditions(goal: Goal, world: World) -> list[Condition]:
    """The goal's predicates evaluated on ``world`` (state-based, so a replay re-scores)."""
    x, y = goal.object_type, goal.receptacle_type
    prep = preposition(y) if y else ""
    of_type = [t for t in world.portable if kind_of(t) == x]
    placed = [t for t in of_type if kind_of(world.place_of(t)) == y] if y else []
    holding_x = world.holding is not None and kind_of(world.holding) == x
    if goal.task_type == "look_at_obj_in_light":
        lit_here = any(world.place_of(lamp) == world.location for lamp in world.lit)
        return [
            Condition(text=f"you hold a {x}", met=holding_x),
            Condition(text="a lamp where you stand is turned on", met=lit_here),
        ]
    if goal.task_type == "pick_two":
        return [
            Condition(text=f"one {x} is {prep} a {y}", met=len(placed) >= 1),
            Condition(text=f"a second {x} is {prep} a {y}", met=len(placed) >= goal.count),
        ]
    state = goal.state
    if state:
        return [
            Condition(text=f"a {x} is {state}", met=any(state in world.states[t] for t in of_type)),
            Condition(text=f"a {state} {x} is {prep} a {y}", met=any(state in world.states[t] for t in placed)),
        ]
    return [
        Condition(text=f"a {x} is picked up or placed", met=bool(placed) or holding_x),
        Condition(text=f"a {x} is {prep} a {y}", met=bool(placed)),
    ]


# ---------------------------------------------------------------------- JSON rows


def game_to_row(game: Game) -> dict[str, Any]:
    return {
        "id": game.id,
        "task_type": game.task_type,
        "room": game.room,
        "task": game.task,
        "receptacles": [{"name": r.name, "openable": r.openable} for r in game.receptacles],
        "things": [{"name": t.name, "location": t.location, **({"fixed": True} if t.fixed else {})} for t in game.things],
        "goal": attrs.asdict(game.goal),
        "expert_plan": list(game.expert_plan),
        "optimal_steps": game.optimal_steps,
        "seed": game.seed,
    }


def game_from_row(row: Any, source: str = "") -> Game:
    """A validated game; a malformed row fails naming the game and what to fix."""
    where = f"game {row.get('id')!r}" if isinstance(row, dict) else "a game row"
    where += f" in {source}" if source else ""
    if not isinstance(row, dict):
        raise ConfigError(f"{where}: expected a JSON object")
    try:
        goal = Goal(**row["goal"])
        game = Game(
            id=str(row["id"]),
            task_type=str(row["task_type"]),
            room=str(row.get("room", "")),
            task=str(row["task"]),
            receptacles=tuple(Receptacle(name=r["name"], openable=bool(r.get("openable", False))) for r in row["receptacles"]),
            things=tuple(Thing(name=t["name"], location=t["location"], fixed=bool(t.get("fixed", False))) for t in row["things"]),
            goal=goal,
            expert_plan=tuple(row.get("expert_plan", ())),
            seed=int(row.get("seed", 0)),
        )
    except (KeyError, TypeError) as error:
        raise ConfigError(f"{where}: missing or malformed field ({error}); see the README's task format") from None
    if not game.id:
        raise ConfigError(f"{where}: empty 'id'")
    if game.task_type not in TASK_TYPES:
        raise ConfigError(f"{where}: task_type {game.task_type!r} is not one of {', '.join(TASK_TYPES)}")
    names = {r.name for r in game.receptacles}
    if len(names) != len(game.receptacles):
        raise ConfigError(f"{where}: duplicate receptacle names")
    for thing in game.things:
        if thing.location not in names:
            raise ConfigError(f"{where}: {thing.name!r} starts in unknown receptacle {thing.location!r}")
    if len({t.name for t in game.things}) != len(game.things):
        raise ConfigError(f"{where}: duplicate object names")
    return game
