"""``skillopt export``: a trained skill installed in each agent's format, through the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from engine_helpers import make_trainer

from skillopt.errors import ConfigError
from skillopt.export import check_name, export

SKILL = "# Solving word puzzles\n\n- Reverse the word when asked to reverse it.\n"


def front_matter(text: str) -> dict[str, str]:
    head = re.match(r"\A---\n(.*?)\n---\n", text, re.DOTALL)
    assert head, text[:200]
    return {k.strip(): v.strip() for k, v in (line.split(":", 1) for line in head.group(1).splitlines() if not line.startswith("  "))}


@pytest.fixture(scope="module")
def trained_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "toy-run"
    make_trainer(out, num_epochs=1).train()
    return out


def test_every_target_gets_its_own_format(run_cli, trained_run, tmp_path):
    project = tmp_path / "project"
    result = run_cli("export", str(trained_run), "--project", str(project), "--name", "toy-puzzles",
                     "--to", "claude-code", "--to", "codex", "--to", "cursor", "--to", "copilot", "--json")
    assert result.exit_code == 0, result.output
    written = {item["target"]: item["path"] for item in json.loads(result.stdout)}
    best = (trained_run / "best_skill.md").read_text().strip()
    assert written["claude-code"] == str(project / ".claude/skills/toy-puzzles/SKILL.md")
    assert written["codex"] == str(project / ".agents/skills/toy-puzzles/SKILL.md")
    skill = (project / ".claude/skills/toy-puzzles/SKILL.md").read_text()
    meta = front_matter(skill)
    assert meta["name"] == "toy-puzzles" and json.loads(meta["description"])  # a quoted, non-empty description
    assert skill.rstrip().endswith(best.splitlines()[-1])
    rule = (project / ".cursor/rules/toy-puzzles.mdc").read_text()
    assert front_matter(rule)["alwaysApply"] == "false" and "name" not in front_matter(rule)
    assert front_matter((project / ".github/instructions/toy-puzzles.instructions.md").read_text())["applyTo"] == '"**"'


def test_an_existing_different_file_needs_force_and_is_backed_up(tmp_path):
    first = export(SKILL, target="agents", name="puzzles", description="Word puzzles.", project=tmp_path)
    again = export(SKILL, target="agents", name="puzzles", description="Word puzzles.", project=tmp_path)
    assert again.unchanged and not again.replaced
    with pytest.raises(ConfigError, match="--force"):
        export(SKILL + "- New rule.\n", target="agents", name="puzzles", description="Word puzzles.", project=tmp_path)
    before = Path(first.path).read_text()
    forced = export(SKILL + "- New rule.\n", target="agents", name="puzzles", description="Word puzzles.", project=tmp_path, force=True)
    assert forced.replaced and Path(forced.backup).read_text() == before and "- New rule." in Path(forced.path).read_text()


@pytest.mark.parametrize("bad", ["Puzzles", "-puzzles", "puz--zles", "puzzles-", "a" * 65, "../escape", ""])
def test_names_follow_the_agent_skills_rules(bad):
    with pytest.raises(ConfigError, match="lowercase"):
        check_name(bad)


def test_user_level_install_and_project_only_targets(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    done = export(SKILL, target="claude-code", name="puzzles", description="Word puzzles.", project=None)
    assert done.path == str(tmp_path / "claude-config/skills/puzzles/SKILL.md")
    with pytest.raises(ConfigError, match="--project"):
        export(SKILL, target="cursor", name="puzzles", description="Word puzzles.", project=None)


def test_a_secret_in_the_skill_is_not_exported(tmp_path):
    secret = "sk-proj-" + "A" * 40
    done = export(SKILL + f"- Use key {secret}\n", target="agents", name="puzzles", description="Word puzzles.", project=tmp_path)
    assert secret not in Path(done.path).read_text()
