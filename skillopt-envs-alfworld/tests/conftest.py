from skillopt.testing import run_cli, scripted_client, skillopt_home  # noqa: F401  (pytest_plugins lives in the root conftest)


def pytest_configure(config):
    config.addinivalue_line("markers", "local_model: runs the real embedded SmolLM2 model through llama.cpp")


import pytest  # noqa: E402

from skillopt_envs_alfworld.game import Game, Goal, Receptacle, Thing  # noqa: E402


def build_kitchen(task_type: str = "pick_clean_then_place", receptacle_type: str = "fridge", count: int = 1) -> Game:
    receptacles = (
        Receptacle(name="cabinet 1", openable=True),
        Receptacle(name="countertop 1"),
        Receptacle(name="fridge 1", openable=True),
        Receptacle(name="microwave 1", openable=True),
        Receptacle(name="sinkbasin 1"),
        Receptacle(name="desk 1"),
    )
    things = (
        Thing(name="apple 1", location="countertop 1"),
        Thing(name="knife 2", location="countertop 1"),
        Thing(name="apple 2", location="cabinet 1"),
        Thing(name="egg 1", location="fridge 1"),
        Thing(name="desklamp 1", location="desk 1", fixed=True),
    )
    goal = Goal(task_type=task_type, object_type="apple", receptacle_type=receptacle_type, count=count)
    return Game(id="hand-1", task_type=task_type, room="kitchen", task="put a clean apple in fridge.",
                receptacles=receptacles, things=things, goal=goal)


@pytest.fixture
def kitchen():
    """A factory of one small hand-built kitchen game (independent of the generator)."""
    return build_kitchen
