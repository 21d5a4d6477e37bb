"""The README's third-party env, built as a real distribution outside this repo.

It is pip-installed into a temp dir (``--target``), never into the test venv, and the
CLI runs in a subprocess that sees it only through its installed metadata: the way a
user's own plugin package is found.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_blocks() -> tuple[str, str]:
    text = README.read_text()
    toml = re.search(r"```toml\n# pyproject.toml\n(.*?)```", text, re.DOTALL).group(1)
    code = re.search(r"```python\n# src/skillopt_envs_capitals/__init__.py\n(.*?)```", text, re.DOTALL).group(1)
    return toml, code


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    root = tmp_path_factory.mktemp("third-party")
    pkg = root / "skillopt-envs-capitals"
    (pkg / "src" / "skillopt_envs_capitals").mkdir(parents=True)
    toml, code = readme_blocks()
    (pkg / "pyproject.toml").write_text(toml)
    (pkg / "src" / "skillopt_envs_capitals" / "__init__.py").write_text(code)
    target = root / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--target", str(target), str(pkg)],
        check=True, timeout=300,
    )
    return target


def skillopt(target: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(target), "SKILLOPT_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "skillopt", *args], env=env, capture_output=True, text=True, timeout=300)


def test_readme_example_is_about_thirty_lines():
    _, code = readme_blocks()
    assert len([line for line in code.splitlines() if line.strip()]) <= 32


def test_installed_plugin_is_listed_with_its_distribution(installed, tmp_path):
    out = skillopt(installed, tmp_path, "envs", "--json")
    assert out.returncode == 0, out.stderr
    rows = {r["name"]: r for r in json.loads(out.stdout)}
    assert rows["capitals"]["distribution"] == "skillopt-envs-capitals" and rows["capitals"]["version"] == "0.1.0"


def test_installed_plugin_passes_the_env_contract(installed):
    code = (
        "from skillopt.testing import check_env_contract\n"
        "from skillopt_envs_capitals import CapitalsEnv\n"
        "check_env_contract(CapitalsEnv, rollout_items=1)\nprint('CONTRACT OK')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(installed)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert "CONTRACT OK" in out.stdout, out.stderr


def test_installed_plugin_runs_with_skillopt_run(installed, tmp_path):
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([
        {"stage": "rollout", "match": "capital of (France|Peru)", "reply": "Paris"},
        {"stage": "rollout", "match": ".", "reply": "Tokyo"},
    ]))
    out = skillopt(installed, tmp_path / "home", "run", "--env", "capitals", "--backend", "scripted", "--out", str(tmp_path / "run"),
                   "--set", f"model.options={{rules = \"{rules}\"}}",
                   "--epochs", "1", "--batch-size", "2", "--json")
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["status"] == "finished" and summary["env"] == "capitals"
    assert (tmp_path / "run" / "best_skill.md").is_file()
    assert summary["test"]["initial"]["n"] == 1


# --------------------------------------------------------------------------- command plugins that clash

COMMAND_PLUGIN = '''
import typer
from skillopt.api import hookimpl


@hookimpl
def skillopt_register_commands(app):
    @app.command("{command}")
    def _command():
        """{who}'s {command}."""
        typer.echo("{who} {command} ran")
'''


def command_distribution(root: Path, dist: str, module: str, command: str) -> Path:
    """A real distribution whose ``skillopt.commands`` plugin adds the command ``command``."""
    pkg = root / dist
    (pkg / "src" / module).mkdir(parents=True)
    (pkg / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
        f'[project]\nname = "{dist}"\nversion = "0.3.0"\ndependencies = ["skillopt-core"]\n\n'
        f'[project.entry-points."skillopt.commands"]\n{module.replace("_", "-")} = "{module}"\n')
    (pkg / "src" / module / "__init__.py").write_text(COMMAND_PLUGIN.format(command=command, who=dist))
    return pkg


@pytest.fixture(scope="module")
def clashing(tmp_path_factory):
    """Four installed command plugins: one names its command ``report`` (a built-in), two
    both add ``hello``, one adds ``greet`` (no clash)."""
    root = tmp_path_factory.mktemp("command-plugins")
    packages = [command_distribution(root, "skillopt-report-plus", "skillopt_report_plus", "report"),
                command_distribution(root, "skillopt-hello-a", "skillopt_hello_a", "hello"),
                command_distribution(root, "skillopt-hello-b", "skillopt_hello_b", "hello"),
                command_distribution(root, "skillopt-greet", "skillopt_greet", "greet")]
    target = root / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--target", str(target),
         *map(str, packages)],
        check=True, timeout=300,
    )
    return target


def test_a_plugin_command_named_like_a_built_in_is_refused_by_name(clashing, tmp_path):
    out = skillopt(clashing, tmp_path, "report", "--help")
    assert out.returncode == 0, out.stderr
    assert "One HTML file" in out.stdout and "skillopt-report-plus's report" not in out.stdout  # still the built-in
    # a built-in command builds only itself (no plugin is imported to run it: a lean start), so the
    # clash is said where commands are listed: the program's help (and every plugin command's run)
    out = skillopt(clashing, tmp_path, "--help")
    assert out.returncode == 0, out.stderr
    said = " ".join(out.stderr.split())
    assert ("command 'report' of plugin 'skillopt-report-plus' from distribution skillopt-report-plus 0.3.0 clashes with "
            "the built-in `skillopt report` and was not added") in said


def test_two_plugins_adding_one_command_name_are_both_refused_naming_both(clashing, tmp_path):
    out = skillopt(clashing, tmp_path, "hello")
    assert out.returncode != 0 and "ran" not in out.stdout  # neither silently wins
    said = " ".join(out.stderr.split())
    assert "command 'hello' is added by plugin 'skillopt-hello-a' from distribution skillopt-hello-a 0.3.0" in said
    assert "and by plugin 'skillopt-hello-b' from distribution skillopt-hello-b 0.3.0; neither was added" in said
    greet = skillopt(clashing, tmp_path, "greet")  # a plugin command without a clash works as before
    assert greet.returncode == 0 and "skillopt-greet greet ran" in greet.stdout
    blocked = subprocess.run([sys.executable, "-m", "skillopt", "hello"], capture_output=True, text=True, timeout=300,
                             env={**os.environ, "PYTHONPATH": str(clashing), "SKILLOPT_HOME": str(tmp_path),
                                  "SKILLOPT_DISABLE_PLUGINS": "skillopt-hello-b"})
    assert blocked.returncode == 0 and "skillopt-hello-a hello ran" in blocked.stdout  # the fix the warning names works
