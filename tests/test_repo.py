"""Repository hygiene: the README's lines are what CI runs; every member is installable."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)\n```", quick, re.DOTALL)


def test_readme_quick_start_has_exactly_two_command_lines():
    commands = readme_commands()
    assert len(commands) == 2 and all("\n" not in c for c in commands)
    assert commands[0].endswith("skillopt run --env searchqa")
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_line():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert readme_commands()[1] in ci


def members() -> set[str]:
    """Every workspace distribution: top-level folders, plus the MCP server under agent-plugins."""
    found = [*ROOT.glob("*/pyproject.toml"), *ROOT.glob("agent-plugins/*/pyproject.toml")]
    return {str(p.parent.relative_to(ROOT)) for p in found}


def test_every_member_is_in_requirements_dev_and_hatch_workspace():
    dev = (ROOT / "requirements-dev.txt").read_text()
    listed = set(re.findall(r"^-e \./([\w/-]+?)(?:\[[\w,]+\])?$", dev, re.MULTILINE))
    assert listed == members()
    hatch = tomllib.loads((ROOT / "hatch.toml").read_text())
    for env in ("default", "hatch-test"):
        ws = hatch["envs"][env]["workspace"]["members"]
        names = {m if isinstance(m, str) else m["path"] for m in ws}
        assert names == members(), env


def test_every_member_depends_on_core_and_uses_the_src_layout():
    for name in members() - {"core"}:
        data = tomllib.loads((ROOT / name / "pyproject.toml").read_text())
        assert any(d.startswith("skillopt-core") for d in data["project"]["dependencies"]), name
        assert (ROOT / name / "src").is_dir(), name


def test_no_distribution_is_named_plain_skillopt():
    names = {tomllib.loads((ROOT / m / "pyproject.toml").read_text())["project"]["name"] for m in members()}
    assert "skillopt" not in names


def test_no_machine_paths_in_tracked_text_files():
    import subprocess

    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.splitlines()
    bad = re.compile(r"/(work|root|home/\w+)/(main|venv|shared)\b")
    for name in files:
        path = ROOT / name
        if path.suffix in {".py", ".md", ".toml", ".txt", ".cfg", ".sh"} and path.is_file():
            assert not bad.search(path.read_text(errors="ignore")), name
