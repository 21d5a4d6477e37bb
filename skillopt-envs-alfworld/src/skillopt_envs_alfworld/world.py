"""The household text simulator: ALFWorld's command grammar and observation text.

State is small and explicit (where the agent stands, what it holds, which receptacles
are open, where each object is, which objects are clean/hot/cool, which lamps are on),
so the planner can snapshot and restore it and a saved action list replays exactly.
Any command that is not in the current admissible list does nothing but cost a step:
"Nothing happens.", as in ALFWorld.
"""

from __future__ import annotations

from collections.abc import Iterable

from skillopt_envs_alfworld.game import (
    APPLIANCE_OF_STATE,
    LAMP_KINDS,
    Condition,
    Game,
    goal_conditions,
    kind_of,
)

NOTHING = "Nothing happens."
WELCOME = "-= Welcome to TextWorld, ALFRED! =-"
HAND = "(hand)"
STATE_OF_APPLIANCE = {appliance: state for state, appliance in APPLIANCE_OF_STATE.items()}
VERB_OF_APPLIANCE = {"sinkbasin": "clean", "microwave": "heat", "fridge": "cool"}


def a_list(names: Iterable[str]) -> str:
    """ALFWorld's listing: ``a apple 1``, ``a apple 1, and a knife 2``, ``nothing``."""
    names = [f"a {n}" for n in names]
    if not names:
        return "nothing"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + ", and " + names[-1]


class World:
    """One game being played. ``step`` takes a command and returns the observation."""

    def __init__(self, game: Game):
        self.game = game
        self.receptacles = {r.name: r for r in game.receptacles}
        self.portable = [t.name for t in game.things if not t.fixed]
        self.lamps = [t.name for t in game.things if t.fixed and kind_of(t.name) in LAMP_KINDS]
        self.location: str | None = None
        self.holding: str | None = None
        self.opened: set[str] = set()
        self.contents: dict[str, list[str]] = {r.name: [] for r in game.receptacles}
        for thing in game.things:
            self.contents[thing.location].append(thing.name)
        self.states: dict[str, frozenset[str]] = {name: frozenset() for name in self.portable}
        self.lit: set[str] = set()
        self.steps = 0

    # ------------------------------------------------------------------ reading the state

    def place_of(self, thing: str) -> str:
        if thing == self.holding:
            return HAND
        for receptacle, items in self.contents.items():
            if thing in items:
                return receptacle
        return ""

    def accessible(self, receptacle: str) -> bool:
        return not self.receptacles[receptacle].openable or receptacle in self.opened

    def conditions(self) -> list[Condition]:
        return goal_conditions(self.game.goal, self)

    @property
    def won(self) -> bool:
        return all(c.met for c in self.conditions())

    def intro(self) -> str:
        return f"{WELCOME}\n\n{self._room_view()}\n\nYour task is to: {self.game.task}"

    def _room_view(self) -> str:
        return "You are in the middle of a room. Looking quickly around you, you see " + a_list(self.receptacles) + "."

    def _contents_view(self, receptacle: str) -> str:
        if self.receptacles[receptacle].openable:
            if receptacle not in self.opened:
                return f"The {receptacle} is closed."
            return f"The {receptacle} is open. In it, you see {a_list(self.contents[receptacle])}."
        return f"On the {receptacle}, you see {a_list(self.contents[receptacle])}."

    # ------------------------------------------------------------------ commands

    def admissible(self) -> list[str]:
        """Every command that does something now, in a stable order."""
        commands = [f"go to {r}" for r in self.receptacles if r != self.location]
        here = self.location
        if here is not None:
            if self.receptacles[here].openable:
                commands.append(f"close {here}" if here in self.opened else f"open {here}")
            if self.accessible(here):
                if self.holding is None:
                    commands += [f"take {t} from {here}" for t in self.contents[here] if t in self.states]
                else:
                    commands.append(f"put {self.holding} in/on {here}")
            verb = VERB_OF_APPLIANCE.get(kind_of(here))
            if verb and self.holding is not None:
                commands.append(f"{verb} {self.holding} with {here}")
            commands += [f"use {lamp}" for lamp in self.contents[here] if lamp in self.lamps]
            commands.append(f"examine {here}")
        if self.holding is not None:
            commands.append(f"examine {self.holding}")
        commands += ["inventory", "look"]
        return commands

    def step(self, command: str) -> str:
        """Apply one command (exactly as listed by :meth:`admissible`); one step either way."""
        self.steps += 1
        command = " ".join((command or "").split()).lower()
        if command not in self.admissible():
            return NOTHING
        verb, _, rest = command.partition(" ")
        if verb == "go":
            target = rest[len("to ") :]
            self.location = target
            return f"You arrive at {target}. {self._contents_view(target)}"
        if verb == "open":
            self.opened.add(rest)
            return f"You open the {rest}. {self._contents_view(rest)}"
        if verb == "close":
            self.opened.discard(rest)
            return f"You close the {rest}."
        if verb == "take":
            thing, _, receptacle = rest.partition(" from ")
            self.contents[receptacle].remove(thing)
            self.holding = thing
            return f"You pick up the {thing} from the {receptacle}."
        if verb == "put":
            thing, _, receptacle = rest.partition(" in/on ")
            self.contents[receptacle].append(thing)
            self.holding = None
            return f"You put the {thing} in/on the {receptacle}."
        if verb in ("clean", "heat", "cool"):
            thing, _, appliance = rest.partition(" with ")
            state = STATE_OF_APPLIANCE[kind_of(appliance)]
            states = set(self.states[thing]) | {state}
            if state == "hot":
                states.discard("cool")
            if state == "cool":
                states.discard("hot")
            self.states[thing] = frozenset(states)
            return f"You {verb} the {thing} using the {appliance}."
        if verb == "use":
            self.lit.add(rest)
            return f"You turn on the {rest}."
        if verb == "examine":
            if rest in self.receptacles:
                return self._contents_view(rest)
            adjectives = " ".join(s for s in ("clean", "hot", "cool") if s in self.states[rest])
            return f"This is a {adjectives + ' ' if adjectives else 'normal '}{rest}."
        if command == "inventory":
            return f"You are carrying: a {self.holding}." if self.holding else "You are not carrying anything."
        if command == "look":
            if here := self.location:
                return f"You are facing the {here}. {self._contents_view(here)}"
            return self._room_view()
        return NOTHING  # unreachable: every admissible verb is handled above

    # ------------------------------------------------------------------ planner support

    def snapshot(self) -> tuple:
        """A hashable copy of the mutable state (the planner's search node)."""
        return (
            self.location,
            self.holding,
            frozenset(self.opened),
            tuple((r, tuple(items)) for r, items in self.contents.items()),
            tuple(sorted(self.states.items())),
            frozenset(self.lit),
        )

    def restore(self, snap: tuple) -> None:
        location, holding, opened, contents, states, lit = snap
        self.location, self.holding = location, holding
        self.opened = set(opened)
        self.contents = {r: list(items) for r, items in contents}
        self.states = dict(states)
        self.lit = set(lit)


def replay(game: Game, actions: Iterable[str]) -> tuple[World, list[str]]:
    """A fresh world after ``actions``, with the observation of each step."""
    world = World(game)
    observations = [world.step(a) for a in actions]
    return world, observations
