"""Every distribution ships the PEP 561 marker, so a plugin author's type checker reads our annotations."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MEMBERS = sorted(p.parent for p in [*ROOT.glob("*/pyproject.toml"), *ROOT.glob("agent-plugins/*/pyproject.toml")])


def wheel_files(member: Path) -> list[str]:
    """The paths the member's wheel would hold, as hatchling computes them (no build needed)."""
    from hatchling.builders.wheel import WheelBuilder

    return [f.distribution_path for f in WheelBuilder(str(member)).recurse_included_files()]


@pytest.mark.parametrize("member", MEMBERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_wheel_ships_py_typed_for_each_package(member):
    wheel = tomllib.loads((member / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]
    packages = [p.rsplit("/", 1)[-1] for p in wheel["packages"]]
    assert packages, member
    files = wheel_files(member)
    for package in packages:
        assert f"{package}/py.typed" in files, f"{member.name}: {package}/py.typed missing from the wheel"
        assert f"src/{package}/py.typed" in wheel.get("artifacts", []), f"{member.name}: declare py.typed in artifacts"


def test_installed_core_has_the_marker():
    from importlib.resources import files

    assert files("skillopt").joinpath("py.typed").is_file()


PLUGIN = '''\
from skillopt.api import Env, Register, Task, hookimpl


@hookimpl
def skillopt_register_envs(register: Register[type[Env]]) -> None:
    register(Task)


reveal_type(Env.tasks)
'''


def test_a_plugin_authors_type_checker_sees_the_api_types(tmp_path):
    """mypy run on a plugin outside the repository, against the installed distributions: the
    lazily served names resolve to their real classes (py.typed + the TYPE_CHECKING block),
    so registering a record where an env class is expected is caught."""
    import shutil
    import subprocess
    import sys

    if shutil.which("mypy") is None and not (Path(sys.executable).parent / "mypy").exists():
        pytest.skip("mypy is not installed (requirements-dev.txt installs it)")
    (tmp_path / "plugin.py").write_text(PLUGIN)
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "plugin.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    out = done.stdout
    assert 'Argument 1 to "__call__" of "Register" has incompatible type "type[Task]"; expected "type[Env]"' in out, out
    assert "list[skillopt.records.Task]" in out, out  # Env.tasks as declared, not Any
    assert "Found 1 error" in out, out
