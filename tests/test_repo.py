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


#: renames outside fsio that are not a write put in place (each says why)
RENAMES_THAT_ARE_NOT_WRITES = {
    # a finished hand-off folder moved into handoff-done under a free name (a move, not a write)
    "skillopt-sleep/src/skillopt_sleep/replay/handoff.py": 1,
}


def hand_rolled_renames(source: str) -> int:
    """Calls that rename a file or folder into place: ``os.replace``/``os.rename``,
    ``shutil.move``, and a path's ``.rename(x)`` or one-argument ``.replace(x)`` (a
    ``str.replace`` takes two)."""
    import ast

    count = 0
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner = node.func.value.id if isinstance(node.func.value, ast.Name) else ""
        attr = node.func.attr
        if (owner, attr) in {("os", "replace"), ("os", "rename"), ("shutil", "move")}:
            count += 1
        elif attr == "rename" and owner not in ("os", "shutil") and len(node.args) == 1:
            count += 1
        elif attr == "replace" and len(node.args) == 1 and not node.keywords \
                and not (isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            count += 1
    return count


def test_every_rename_into_place_goes_through_fsio():
    """A write-temp-then-rename belongs in ``skillopt.fsio`` (``write_atomic`` for a file,
    ``replace_dir`` for a folder, ``move_aside`` for a damaged file): one place gets the
    temp name, the permissions, the fsync and the clean-up right."""
    found = {}
    for member in sorted(members()):
        for path in sorted((ROOT / member / "src").rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            if rel == "core/src/skillopt/fsio.py":
                continue
            n = hand_rolled_renames(path.read_text(encoding="utf-8"))
            if n != RENAMES_THAT_ARE_NOT_WRITES.get(rel, 0):
                found[rel] = n
    assert not found, f"hand-rolled rename(s) outside skillopt.fsio (use fsio.write_atomic / replace_dir): {found}"


def test_the_rename_finder_sees_the_hand_rolled_forms():
    assert hand_rolled_renames("os.replace(tmp, path)\ntmp.replace(dest)\nstaging.rename(out)\nshutil.move(a, b)") == 4
    assert hand_rolled_renames("s.replace('a', 'b')\nt.replace(' ')\nd.replace(microsecond=0)\nattrs.evolve(x)") == 0


def env_members() -> list[str]:
    return sorted(m for m in members() if m.startswith("skillopt-envs-"))


def test_every_env_distribution_follows_the_one_env_layout():
    """One layout for every env, so a newcomer who has read one has read them all: the
    entry point names ``PKG.env``, where the env class and its ``skillopt_register_envs``
    hook live (and nowhere else); the run presets are ``PRESETS`` in ``presets.py``; the
    initial skill is ``initial.md``, the prompt overrides are in ``prompts/`` and the bundled
    sample in ``data/``."""
    import ast

    assert len(env_members()) >= 6
    for member in env_members():
        project = tomllib.loads((ROOT / member / "pyproject.toml").read_text())
        package = member.replace("-", "_")
        pkg = ROOT / member / "src" / package
        entry = project["project"]["entry-points"]["skillopt.envs"]
        assert set(entry.values()) == {f"{package}.env"}, (member, entry)
        hooks = {str(p.relative_to(pkg)) for p in pkg.rglob("*.py")
                 if any(isinstance(n, ast.FunctionDef) and n.name == "skillopt_register_envs"
                        for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))))}
        assert hooks == {"env.py"}, (member, hooks)
        presets = ast.parse((pkg / "presets.py").read_text(encoding="utf-8"))
        assert any(isinstance(n, (ast.Assign, ast.AnnAssign)) and "PRESETS" in ast.unparse(n).split("=")[0]
                   for n in presets.body), member
        assert f"from {package}.presets import PRESETS" in (pkg / "env.py").read_text(encoding="utf-8"), member
        for path in ("initial.md", "prompts", "data"):
            assert (pkg / path).exists(), (member, path)
