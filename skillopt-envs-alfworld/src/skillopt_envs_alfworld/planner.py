"""The expert: breadth-first search over the simulator for a shortest winning plan.

The search runs on the real :class:`World` (snapshot/restore), so a plan it returns is a
proof that the game is winnable, and its length is the optimal step count. It only
expands commands that can matter for the goal: going to receptacles that hold a goal
object, receptacles of the goal's kind, the needed appliance and lamps; opening those;
taking goal objects; putting, the one state change and switching a lamp on. The
commands left out (look, inventory, examine, close, taking other objects, visiting other
places) never shorten a plan, so the search stays optimal over the full game.
"""

from __future__ import annotations

from collections import deque

from skillopt_envs_alfworld.game import APPLIANCE_OF_STATE, Game, kind_of
from skillopt_envs_alfworld.world import World

MAX_NODES = 200_000


class Unsolvable(RuntimeError):
    """The generator produced a game the search cannot win (a generator bug)."""


def relevant_receptacles(game: Game) -> set[str]:
    goal = game.goal
    keep = {t.location for t in game.things if not t.fixed and kind_of(t.name) == goal.object_type}
    keep |= {r.name for r in game.receptacles if goal.receptacle_type and kind_of(r.name) == goal.receptacle_type}
    if goal.state:
        keep |= {r.name for r in game.receptacles if kind_of(r.name) == APPLIANCE_OF_STATE[goal.state]}
    if goal.task_type == "look_at_obj_in_light":
        keep |= {t.location for t in game.things if t.fixed}
    return keep


def useful(command: str, game: Game, places: set[str]) -> bool:
    verb, _, rest = command.partition(" ")
    goal = game.goal
    if verb == "go":
        return rest[len("to ") :] in places
    if verb == "open":
        return rest in places
    if verb == "take":
        return kind_of(rest.partition(" from ")[0]) == goal.object_type
    if verb == "put":
        return bool(goal.receptacle_type) and kind_of(rest.partition(" in/on ")[2]) == goal.receptacle_type
    if verb in ("clean", "heat", "cool"):
        return bool(goal.state) and verb == {"clean": "clean", "hot": "heat", "cool": "cool"}[goal.state]
    if verb == "use":
        return goal.task_type == "look_at_obj_in_light"
    return False


def solve(game: Game) -> list[str]:
    """A shortest list of commands that wins ``game``; raises :class:`Unsolvable`."""
    world = World(game)
    places = relevant_receptacles(game)
    start = world.snapshot()
    if world.won:
        return []
    parents: dict[tuple, tuple[tuple, str] | None] = {start: None}
    frontier = deque([start])
    while frontier:
        node = frontier.popleft()
        world.restore(node)
        for command in [c for c in world.admissible() if useful(c, game, places)]:
            world.restore(node)
            world.step(command)
            child = world.snapshot()
            if child in parents:
                continue
            parents[child] = (node, command)
            if world.won:
                return _path(parents, child)
            if len(parents) > MAX_NODES:
                raise Unsolvable(f"game {game.id}: search exceeded {MAX_NODES} states")
            frontier.append(child)
    raise Unsolvable(f"game {game.id}: no command sequence reaches the goal")


def _path(parents: dict, node: tuple) -> list[str]:
    plan = []
    while parents[node] is not None:
        node, command = parents[node]
        plan.append(command)
    return plan[::-1]
