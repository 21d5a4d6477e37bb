"""The simulator: each command's effect and text, invalid input, goals, planner plans."""

import pytest

from skillopt_envs_alfworld.game import TASK_TYPES, Goal
from skillopt_envs_alfworld.generator import make_game
from skillopt_envs_alfworld.planner import solve
from skillopt_envs_alfworld.world import NOTHING, World, a_list, replay


def test_listing_reads_like_alfworld():
    assert a_list([]) == "nothing"
    assert a_list(["apple 1"]) == "a apple 1"
    assert a_list(["apple 1", "knife 2"]) == "a apple 1, and a knife 2"
    assert a_list(["a 1", "b 2", "c 3"]) == "a a 1, a b 2, and a c 3"


def test_intro_lists_every_receptacle_and_states_the_task(kitchen):
    world = World(kitchen())
    intro = world.intro()
    assert intro.startswith("-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room.")
    assert "you see a cabinet 1, a countertop 1, a fridge 1, a microwave 1, a sinkbasin 1, and a desk 1." in intro
    assert intro.endswith("Your task is to: put a clean apple in fridge.")


def test_go_to_shows_contents_or_a_closed_door(kitchen):
    world = World(kitchen())
    assert world.step("go to countertop 1") == "You arrive at countertop 1. On the countertop 1, you see a apple 1, and a knife 2."
    assert world.step("go to fridge 1") == "You arrive at fridge 1. The fridge 1 is closed."
    assert world.location == "fridge 1"
    assert world.step("go to fridge 1") == NOTHING  # already there: not admissible


def test_open_close_and_taking_from_inside(kitchen):
    world = World(kitchen())
    world.step("go to cabinet 1")
    assert "take apple 2 from cabinet 1" not in world.admissible()  # closed: contents unreachable
    assert world.step("take apple 2 from cabinet 1") == NOTHING
    assert world.step("open cabinet 1") == "You open the cabinet 1. The cabinet 1 is open. In it, you see a apple 2."
    assert "close cabinet 1" in world.admissible() and "open cabinet 1" not in world.admissible()
    assert world.step("take apple 2 from cabinet 1") == "You pick up the apple 2 from the cabinet 1."
    assert world.holding == "apple 2" and world.contents["cabinet 1"] == []
    assert world.step("close cabinet 1") == "You close the cabinet 1."
    assert world.step("examine cabinet 1") == "The cabinet 1 is closed."


def test_one_object_at_a_time_and_put(kitchen):
    world = World(kitchen())
    world.step("go to countertop 1")
    world.step("take apple 1 from countertop 1")
    assert not any(c.startswith("take ") for c in world.admissible())
    assert world.step("take knife 2 from countertop 1") == NOTHING
    assert world.step("inventory") == "You are carrying: a apple 1."
    world.step("go to sinkbasin 1")
    assert world.step("put apple 1 in/on sinkbasin 1") == "You put the apple 1 in/on the sinkbasin 1."
    assert world.holding is None and world.step("inventory") == "You are not carrying anything."
    assert world.step("look") == "You are facing the sinkbasin 1. On the sinkbasin 1, you see a apple 1."


def test_put_into_a_closed_receptacle_needs_it_open(kitchen):
    world = World(kitchen())
    for command in ("go to countertop 1", "take apple 1 from countertop 1", "go to fridge 1"):
        world.step(command)
    assert world.step("put apple 1 in/on fridge 1") == NOTHING
    assert world.step("open fridge 1") == "You open the fridge 1. The fridge 1 is open. In it, you see a egg 1."
    assert world.step("put apple 1 in/on fridge 1") == "You put the apple 1 in/on the fridge 1."


@pytest.mark.parametrize(
    ("appliance", "verb", "state"),
    [("sinkbasin 1", "clean", "clean"), ("microwave 1", "heat", "hot"), ("fridge 1", "cool", "cool")],
)
def test_clean_heat_cool_change_the_held_object(kitchen, appliance, verb, state):
    world = World(kitchen())
    world.step("go to countertop 1")
    world.step("take apple 1 from countertop 1")
    assert world.step(f"{verb} apple 1 with {appliance}") == NOTHING  # not at the appliance yet
    world.step(f"go to {appliance}")
    assert f"{verb} apple 1 with {appliance}" in world.admissible()
    assert world.step(f"{verb} apple 1 with {appliance}") == f"You {verb} the apple 1 using the {appliance}."
    assert state in world.states["apple 1"]
    assert world.step("examine apple 1") == f"This is a {state} apple 1."


def test_heating_undoes_cooling(kitchen):
    world = World(kitchen())
    for command in ("go to countertop 1", "take apple 1 from countertop 1", "go to fridge 1", "cool apple 1 with fridge 1",
                    "go to microwave 1", "heat apple 1 with microwave 1"):
        world.step(command)
    assert world.states["apple 1"] == frozenset({"hot"})


def test_lamp_and_look_at_goal(kitchen):
    game = kitchen("look_at_obj_in_light", receptacle_type="")
    world = World(game)
    world.step("go to desk 1")
    assert world.step("take desklamp 1 from desk 1") == NOTHING  # lamps are fixed
    assert world.step("use desklamp 1") == "You turn on the desklamp 1."
    assert not world.won  # lit, but not holding an apple
    for command in ("go to countertop 1", "take apple 1 from countertop 1"):
        world.step(command)
    assert not world.won  # holding, but the lit lamp is elsewhere
    world.step("go to desk 1")
    assert world.won


@pytest.mark.parametrize("junk", ["", "fly to the moon", "go to garage 1", "take apple 9 from countertop 1", "GO   TO"])
def test_invalid_commands_do_nothing_but_cost_a_step(kitchen, junk):
    world = World(kitchen())
    before = world.snapshot()
    assert world.step(junk) == NOTHING
    assert world.snapshot() == before and world.steps == 1


def test_commands_are_case_and_space_insensitive(kitchen):
    world = World(kitchen())
    assert world.step("  Go To   Countertop 1 ").startswith("You arrive at countertop 1.")


def test_goal_conditions_give_partial_credit(kitchen):
    world = World(kitchen())
    assert [c.met for c in world.conditions()] == [False, False]
    for command in ("go to countertop 1", "take apple 1 from countertop 1", "go to sinkbasin 1", "clean apple 1 with sinkbasin 1"):
        world.step(command)
    assert [c.text for c in world.conditions()] == ["a apple is clean", "a clean apple is in a fridge"]
    assert [c.met for c in world.conditions()] == [True, False]
    for command in ("go to fridge 1", "open fridge 1", "put apple 1 in/on fridge 1"):
        world.step(command)
    assert world.won


def test_pick_two_needs_two_distinct_objects(kitchen):
    game = kitchen("pick_two", receptacle_type="sinkbasin", count=2)
    world, _ = replay(game, ["go to countertop 1", "take apple 1 from countertop 1", "go to sinkbasin 1", "put apple 1 in/on sinkbasin 1",
                             "take apple 1 from sinkbasin 1", "put apple 1 in/on sinkbasin 1"])
    assert [c.met for c in world.conditions()] == [True, False]
    plan = solve(game)
    assert replay(game, plan)[0].won and len(plan) == 9  # the second apple sits in the closed cabinet


def test_planner_finds_the_shortest_plan_on_a_hand_built_game(kitchen):
    plan = solve(kitchen())
    # apple 1 on the open countertop beats apple 2 in the closed cabinet
    assert plan == ["go to countertop 1", "take apple 1 from countertop 1", "go to sinkbasin 1", "clean apple 1 with sinkbasin 1",
                    "go to fridge 1", "open fridge 1", "put apple 1 in/on fridge 1"]


@pytest.mark.parametrize("task_type", TASK_TYPES)
def test_a_generated_game_of_every_type_is_won_by_its_plan_and_not_by_a_wrong_one(task_type):
    for seed in range(5):
        game = make_game(f"t-{seed}", task_type, seed)
        world, observations = replay(game, game.expert_plan)
        assert world.won, (task_type, seed, game.expert_plan)
        assert NOTHING not in observations
        assert len(solve(game)) == game.optimal_steps
        truncated, _ = replay(game, game.expert_plan[:-1])
        assert not truncated.won
        shuffled = list(reversed(game.expert_plan))
        assert not replay(game, shuffled)[0].won
        assert not replay(game, ["look"] * 50)[0].won


def test_goal_objects_never_start_satisfying_the_goal():
    for task_type in TASK_TYPES:
        for seed in range(20):
            game = make_game("g", task_type, seed)
            world = World(game)
            assert not any(c.met for c in world.conditions()), (task_type, seed)
            assert game.optimal_steps >= 3
            assert isinstance(game.goal, Goal)
