"""Procedural games: a seeded room, a goal of one of the six task types, an expert plan.

Every choice comes from ``random.Random(f"alfworld:{seed}:{task_type}")``, so a seed and a
task type always give the same game. Goal objects never start where the goal wants them,
no object starts clean, hot or cool, and the planner's shortest plan is stored with the
game: generation fails loudly rather than ship a game nobody can win.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import attrs

from skillopt_envs_alfworld.game import (
    APPLIANCE_OF_STATE,
    STATE_OF_TASK,
    TASK_TYPES,
    Game,
    Goal,
    Receptacle,
    Thing,
    game_to_row,
    kind_of,
    preposition,
)
from skillopt_envs_alfworld.generator.scenes import (
    LOOK_OBJECTS,
    OPENABLE,
    PLACE_TARGETS,
    ROOMS,
    STATE_OBJECTS,
    STATE_TARGETS,
    TASK_ROOMS,
)
from skillopt_envs_alfworld.planner import solve
from skillopt_envs_alfworld.world import replay

GENERATOR_VERSION = 1
SPLIT_PLAN = {"train": (60, 10_000), "val": (30, 20_000), "test": (60, 30_000)}  # games, first seed
SENTENCES = {
    "pick_and_place": ("put a {x} {p} {y}.", "put some {x} {p} {y}."),
    "pick_two": ("put two {x} {p} {y}.", "find two {x} and put them {p} {y}."),
    "look_at_obj_in_light": ("look at {x} under the {lamp}.", "examine the {x} with the {lamp}."),
    "pick_clean_then_place": ("put a clean {x} {p} {y}.", "clean some {x} and put it {p} {y}."),
    "pick_heat_then_place": ("put a hot {x} {p} {y}.", "heat some {x} and put it {p} {y}."),
    "pick_cool_then_place": ("put a cool {x} {p} {y}.", "cool some {x} and put it {p} {y}."),
}
LAMP = "desklamp"


class GenerationError(RuntimeError):
    pass


def make_game(game_id: str, task_type: str, seed: int) -> Game:
    """The game of ``(task_type, seed)`` with its expert plan (raises if none is found)."""
    if task_type not in TASK_TYPES:
        raise ValueError(f"unknown task type {task_type!r}; use one of {', '.join(TASK_TYPES)}")
    rng = random.Random(f"alfworld:{seed}:{task_type}")
    for _ in range(100):
        game = _draft(rng, game_id, task_type, seed)
        if game is not None:
            plan = solve(game)
            world, _ = replay(game, plan)
            if not world.won:  # the planner and the simulator disagree: a bug, never ship it
                raise GenerationError(f"{game_id}: the expert plan does not win")
            return attrs.evolve(game, expert_plan=tuple(plan))
    raise GenerationError(f"{game_id}: no valid layout for {task_type} from seed {seed}")


def _draft(rng: random.Random, game_id: str, task_type: str, seed: int) -> Game | None:
    room = ROOMS[rng.choice(TASK_ROOMS[task_type])]
    counts = {kind: rng.randint(lo, hi) for kind, (lo, hi) in sorted(room.receptacles.items())}
    present = {kind for kind, n in counts.items() if n}
    receptacles = [Receptacle(name=f"{k} {i}", openable=k in OPENABLE) for k, n in counts.items() for i in range(1, n + 1)]
    names = [r.name for r in receptacles]
    state = STATE_OF_TASK.get(task_type, "")
    if state:
        objects = [x for x in STATE_OBJECTS[state] if x in room.objects]
        targets = [y for y in STATE_TARGETS[state] if y in present and y != APPLIANCE_OF_STATE[state]]
        if APPLIANCE_OF_STATE[state] not in present:
            return None
    elif task_type == "look_at_obj_in_light":
        objects, targets = [x for x in LOOK_OBJECTS if x in room.objects], [""]
    else:
        objects, targets = sorted(room.objects), [y for y in PLACE_TARGETS[room.name] if y in present]
    if not objects or not targets:
        return None
    x, y = rng.choice(objects), rng.choice(targets)
    lamp_spots = [n for n in names if kind_of(n) in room.lamp_on]
    lamp_at = rng.choice(lamp_spots) if lamp_spots and (task_type == "look_at_obj_in_light" or rng.random() < 0.5) else ""
    if task_type == "look_at_obj_in_light" and not lamp_at:
        return None
    homes = [n for n in names if kind_of(n) in room.objects[x] and kind_of(n) != y and n != lamp_at]
    if not homes:
        return None
    placed = [(x, rng.choice(homes)) for _ in range(rng.randint(2, 3) if task_type == "pick_two" else rng.randint(1, 3))]
    others = [t for t in sorted(room.objects) if t != x]
    for kind in rng.sample(others, min(len(others), rng.randint(5, 9))):
        spots = [n for n in names if kind_of(n) in room.objects[kind]]
        if spots:
            placed += [(kind, rng.choice(spots)) for _ in range(rng.randint(1, 2))]
    rng.shuffle(placed)
    numbers: dict[str, int] = {}
    things = [Thing(name=f"{LAMP} 1", location=lamp_at, fixed=True)] if lamp_at else []
    for kind, where in placed:
        numbers[kind] = numbers.get(kind, 0) + 1
        things.append(Thing(name=f"{kind} {numbers[kind]}", location=where))
    template = rng.choice(SENTENCES[task_type])
    task = template.format(x=x, y=y, p=preposition(y) if y else "", lamp=LAMP)
    goal = Goal(task_type=task_type, object_type=x, receptacle_type=y, count=2 if task_type == "pick_two" else 1)
    return Game(id=game_id, task_type=task_type, room=room.name, task=task, receptacles=tuple(receptacles),
                things=tuple(things), goal=goal, seed=seed)


def split_games(split: str) -> list[Game]:
    """The bundled sample's games of ``split``: types interleaved, seeds consecutive."""
    count, first_seed = SPLIT_PLAN[split]
    return [make_game(f"{split}-{i:03d}", TASK_TYPES[i % len(TASK_TYPES)], first_seed + i) for i in range(count)]


def sample_rows() -> dict[str, list[dict[str, Any]]]:
    return {split: [game_to_row(g) for g in split_games(split)] for split in SPLIT_PLAN}


def default_out_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "data" / "sample"


def dump(data: Any) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def manifest(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    return {
        "generator": "skillopt_envs_alfworld.generator",
        "generator_version": GENERATOR_VERSION,
        "license": "CC0-1.0",
        "splits": {
            split: {
                "n": len(items),
                "first_seed": SPLIT_PLAN[split][1],
                "by_task_type": {t: sum(r["task_type"] == t for r in items) for t in TASK_TYPES},
                "mean_optimal_steps": round(sum(r["optimal_steps"] for r in items) / len(items), 2),
            }
            for split, items in rows.items()
        },
    }


def generate_sample(out: Path) -> None:
    """Write ``<out>/<split>/items.json`` and ``split_manifest.json`` (the bundled sample)."""
    rows = sample_rows()
    for split, items in rows.items():
        path = Path(out) / split / "items.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump(items), encoding="utf-8")
    (Path(out) / "split_manifest.json").write_text(dump(manifest(rows)), encoding="utf-8")
