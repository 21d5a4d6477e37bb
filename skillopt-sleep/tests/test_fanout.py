"""Multi-skill fan-out: each skill the sessions used is consolidated from its own
SKILL.md, staged as its own proposal with its own gate evidence, adopted and rolled
back on its own, byte for byte.

The home below is written in Claude Code's JSONL format (``Skill`` tool calls
included): four sessions ask for the test suite and invoke the ``testing`` skill, the
developer correcting ``python -m pytest`` to ``uv run pytest``; four cut a release with
the ``release`` skill, the developer correcting ``git tag 1.4.0`` to ``git tag v1.4.0``.
``convention_agent`` stands for the coding model (it follows what its documents say),
``optimizer()`` for an LLM reflector that also proposes a harmful rule.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from skillopt.api import Session, Turn
from skillopt.scripted import ScriptedBackend
from skillopt_sleep import skills
from skillopt_sleep.adopt.adopt import AdoptRefused, adopt, adopted_units, rollback
from skillopt_sleep.clients import from_backends
from skillopt_sleep.cycle import run_night
from skillopt_sleep.documents import SKILL_NAME
from skillopt_sleep.experiments.agents import HARMFUL_RULE, convention_agent, optimizer
from skillopt_sleep.options import SleepOptions

TEST_ASKS = [
    "The order tests are failing after the refactor, run the test suite and fix them",
    "run the tests for the cart module and fix what fails",
    "can you run the test suite? checkout tests broke",
    "please run the tests and fix the failing discount test",
]
TAG_ASKS = [
    "bump the version to 1.4.0 and tag the release",
    "tag the 1.5.0 release please",
    "cut release 1.6.0: bump the version and tag it",
    "release 1.7.0 - bump and tag",
]


class Transcript:
    def __init__(self, project, sid, start):
        self.project, self.sid, self.t, self.lines, self.n = str(project), sid, start, [], 0

    def _rec(self, kind, message, **extra):
        self.t += timedelta(seconds=7)
        self.n += 1
        self.lines.append({"type": kind, "cwd": self.project, "sessionId": self.sid, "uuid": f"{self.sid}-{self.n}",
                           "timestamp": self.t.strftime("%Y-%m-%dT%H:%M:%S.000Z"), "message": message, **extra})

    def user(self, text):
        self._rec("user", {"role": "user", "content": text})

    def say(self, text):
        self._rec("assistant", {"role": "assistant", "content": [{"type": "text", "text": text}]})

    def tool(self, name, args, result, error=False):
        cid = f"toolu_{self.sid[:6]}_{self.n}"
        self._rec("assistant", {"role": "assistant", "content": [{"type": "tool_use", "id": cid, "name": name, "input": args}]})
        self._rec("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": cid, "content": result, "is_error": error}]})

    def write(self, root):
        folder = root / ("-" + self.project.strip("/").replace("/", "-"))
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{self.sid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in self.lines))


def suite_session(project, sid, start, ask):
    t = Transcript(project, sid, start)
    t.user(ask)
    t.tool("Skill", {"skill": "testing"}, "Launching skill: testing")
    t.tool("Bash", {"command": "python -m pytest tests/"}, "Exit code 1\nModuleNotFoundError: No module named 'shop'", error=True)
    t.user("No, this project uses uv. Always run tests with `uv run pytest`, never `python -m pytest`.")
    t.tool("Bash", {"command": "uv run pytest -q"}, "....\n4 passed in 0.31s")
    t.say("All 4 tests pass now.")
    t.user("thanks, that's correct")
    return t


def tag_session(project, sid, start, ask):
    version = next(w for w in ask.replace(":", " ").split() if w[0].isdigit())
    t = Transcript(project, sid, start)
    t.user(ask)
    t.tool("Skill", {"skill": "release"}, "Launching skill: release")
    t.tool("Bash", {"command": f"git tag {version}"}, "")
    t.user(f"wrong tag format: tags here are always prefixed with v, like v{version}")
    t.tool("Bash", {"command": f"git tag -d {version} && git tag v{version}"}, f"Deleted tag '{version}'")
    t.say(f"Tagged v{version}.")
    t.user("perfect, thanks")
    return t


def write_home(home, project, ids=("a", "b", "c", "d")):
    root = home / ".claude" / "projects"
    start = datetime(2025, 9, 1, 9, 0, tzinfo=UTC)
    for n, ask in enumerate(TEST_ASKS):
        suite_session(project, f"5e55{ids[n]}000-0000-4000-8000-00000000000{n}", start + timedelta(days=n), ask).write(root)
    for n, ask in enumerate(TAG_ASKS):
        tag_session(project, f"7a9{ids[n]}0000-0000-4000-8000-00000000000{n}", start + timedelta(days=n, hours=3), ask).write(root)
    return root


def write_skills(project):
    for name, body in (("testing", "How to run and fix this project's tests.\n"), ("release", "How to cut a release.\n")):
        path = project / ".claude" / "skills" / name / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"---\nname: {name}\ndescription: {body.strip()}\n---\n\n# {name}\n\n{body}".encode())


ENV = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "OPENCODE_DB",
       "PI_CODING_AGENT_DIR", "VSCODE_PORTABLE")  # fmt: skip


@pytest.fixture
def skill_project(tmp_path, monkeypatch, skillopt_home):
    project = tmp_path / "work" / "shop-api"
    project.mkdir(parents=True)
    (project / "CLAUDE.md").write_bytes(b"# shop-api\r\n\r\nHand-written notes.\r\n")
    home = tmp_path / "home"
    write_home(home, project)
    write_skills(project)
    monkeypatch.setenv("HOME", str(home))
    for var in ENV:
        monkeypatch.delenv(var, raising=False)
    return project


def _skill(project, name):
    return project / ".claude" / "skills" / name / "SKILL.md"


def _night(project, **kw):
    opts = SleepOptions(**{"project": project, "lookback_hours": 0, "min_val_items": 1, "edit_budget": 5, "fan_out": True, **kw})
    clients = from_backends(ScriptedBackend(script=convention_agent), ScriptedBackend(script=optimizer()), opts=opts)
    return run_night(opts, clients=clients)


def test_skills_a_session_used():
    session = Session(
        id="codex:1",
        source="codex",
        metadata={"skills_used": ["testing", "../../etc", SKILL_NAME]},
        files_touched=(".agents/skills/release/SKILL.md",),
        turns=(
            Turn(role="assistant", kind="tool_call", name="shell", content="cat /home/dev/p/.codex/skills/db-migrations/SKILL.md"),
            Turn(role="assistant", kind="tool_call", name="shell", content="cat skills/../SKILL.md docs/skills.md"),
            Turn(role="user", content="read .claude/skills/not-a-tool-call/SKILL.md"),
        ),
    )
    assert skills.used_by(session) == ("testing", "release", "db-migrations")


def test_a_skill_is_located_in_the_project_first_and_names_never_become_paths(tmp_path):
    project, home = tmp_path / "p", tmp_path / "home"
    for root in (project / ".claude/skills/release", project / ".agents/skills/release", home / ".claude/skills/deploy"):
        root.mkdir(parents=True)
        (root / "SKILL.md").write_text("x")
    found = skills.locate(project, "claude-code", "release", home=home)
    assert found.path == project.resolve() / ".claude/skills/release/SKILL.md"
    assert found.others == (project.resolve() / ".agents/skills/release/SKILL.md",)
    assert skills.locate(project, "codex", "release", home=home).path.parent.parent.parent.name == ".agents"
    assert skills.locate(project, "claude-code", "deploy", home=home).path == home / ".claude/skills/deploy/SKILL.md"
    assert skills.locate(project, "claude-code", "..", home=home).path is None
    assert "no SKILL.md" in skills.locate(project, "claude-code", "nowhere", home=home).problem


def test_two_skills_get_two_proposals_adopted_separately_and_rolled_back_byte_for_byte(skill_project, run_cli):
    project = skill_project
    originals = {name: _skill(project, name).read_bytes() for name in ("testing", "release")}
    memory = (project / "CLAUDE.md").read_bytes()
    result = _night(project)
    by_name = {r.name: r for r in result.report.skills}
    assert set(by_name) == {"release", "testing"}
    for name, rule in (("testing", "uv run pytest"), ("release", "git tag v")):
        r = by_name[name]
        assert r.status == "accepted", r.reason
        assert [rule in e.edit.content for e in r.accepted_edits] == [True], "each skill learns only its own lesson"
        assert r.scores.baseline_val == 0.0 and r.scores.final_val == 1.0
        assert any(e.edit.content == HARMFUL_RULE for e in r.rejected_edits), "each skill has its own gate"
        assert any(t.label == "final fresh check" and t.verdict.accepted for t in r.trials)
        assert r.tasks and all(name in row.skills for row in result.report.tasks if row.id in r.tasks)
    assert _skill(project, "testing").read_bytes() == originals["testing"], "nothing live changes during a night"

    night = result.staging
    manifest = json.loads((night / "manifest.json").read_text())
    units = {t["unit"]: t for t in manifest["targets"]}
    assert {"main", "skill:testing", "skill:release"} <= set(units)
    assert units["skill:testing"]["live_path"] == str(_skill(project, "testing"))
    for name in ("testing", "release"):
        evidence = json.loads((night / "skills" / name / "report.json").read_text())
        assert evidence["status"] == "accepted" and evidence["trials"] and evidence["per_task"]
        assert "adopt --skill " + name in (night / "skills" / name / "report.md").read_text()
    diffs = {d["unit"]: d["diff"] for d in json.loads(run_cli("sleep", "diff", "--project", str(project), "--json").stdout)["diffs"]}
    assert "+++ proposed/.claude/skills/testing/SKILL.md" in diffs["skill:testing"] and "+- Run tests with" in diffs["skill:testing"]
    log = (night / "evidence.jsonl").read_text()
    assert '"skill:testing/baseline-val"' in log and '"skill:release/final-val"' in log

    adopt(project, skills=["testing"])
    assert b"uv run pytest" in _skill(project, "testing").read_bytes()
    assert _skill(project, "release").read_bytes() == originals["release"], "only the chosen skill is adopted"
    assert not (project / ".claude" / "skills" / SKILL_NAME).exists() and (project / "CLAUDE.md").read_bytes() == memory
    res = run_cli("sleep", "adopt", "--project", str(project), "--skill", "release", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["units"] == ["skill:release"]
    assert b"git tag v" in _skill(project, "release").read_bytes()
    with pytest.raises(AdoptRefused, match="skill testing of night .* is already adopted"):
        adopt(project, skills=["testing"])
    status = json.loads(run_cli("sleep", "status", "--project", str(project), "--json").stdout)
    assert status["staged_skills"] == {night.name: ["release", "testing"]}
    assert {row["skill"] for row in status["adopted_skills"]} == {"release", "testing"}

    rollback(project, skills=["testing"])
    assert _skill(project, "testing").read_bytes() == originals["testing"]
    assert b"git tag v" in _skill(project, "release").read_bytes(), "the other skill stays adopted"
    res = run_cli("sleep", "rollback", "--project", str(project), "--skill", "release")
    assert res.exit_code == 0, res.output
    assert _skill(project, "release").read_bytes() == originals["release"]
    assert adopted_units(project) == []

    # the main proposal is its own unit: bare adopt takes it, bare rollback restores it
    adopt(project)
    assert _skill(project, "testing").read_bytes() == originals["testing"]
    assert (project / ".claude" / "skills" / SKILL_NAME / "SKILL.md").is_file()
    adopt(project, all_skills=True)
    rollback(project)  # every unit of the night still adopted
    assert not (project / ".claude" / "skills" / SKILL_NAME).exists() and (project / "CLAUDE.md").read_bytes() == memory
    assert {name: _skill(project, name).read_bytes() for name in originals} == originals


def test_skill_selection_errors_are_one_line(skill_project, run_cli):
    project = skill_project
    _night(project)
    res = run_cli("sleep", "adopt", "--project", str(project), "--skill", "deploy")
    assert res.exit_code == 2 and "no proposal for skill 'deploy' (staged skills: release, testing)" in res.output
    res = run_cli("sleep", "adopt", "--project", str(project), "--skill", "testing", "--all-skills")
    assert res.exit_code == 2 and "not both" in res.output
    res = run_cli("sleep", "rollback", "--project", str(project), "--skill", "testing")
    assert res.exit_code == 2 and "nothing to roll back" in res.output


def test_a_night_that_staged_only_skills_needs_a_choice(skill_project, monkeypatch):
    """The managed skill already knows both lessons, so only the skill files change."""
    project = skill_project
    managed = project / ".claude" / "skills" / SKILL_NAME / "SKILL.md"
    managed.parent.mkdir(parents=True)
    managed.write_text(
        "# learned\n<!-- SKILLOPT-SLEEP:LEARNED START -->\n- Run tests with `uv run pytest`, not `python -m pytest`.\n"
        "- Tag releases with `git tag vX.Y.Z`, not `git tag X.Y.Z`.\n<!-- SKILLOPT-SLEEP:LEARNED END -->\n"
    )
    result = _night(project, target_skill_path=str(managed), memory="none")
    units = {t["unit"] for t in json.loads((result.staging / "manifest.json").read_text())["targets"]}
    assert units == {"skill:release", "skill:testing"}
    with pytest.raises(AdoptRefused, match=r"staged only per-skill proposals \(release, testing\): pass --skill NAME"):
        adopt(project)
    receipt = adopt(project, all_skills=True)
    assert sorted(receipt["units"]) == ["skill:release", "skill:testing"]


def test_skills_that_cannot_be_consolidated_are_reported(skill_project):
    project = skill_project
    _skill(project, "release").unlink()
    result = _night(project, min_val_items=2)
    rows = {r.name: r for r in result.report.skills}
    assert rows["release"].status == "skipped" and "no SKILL.md for skill 'release'" in rows["release"].reason
    assert rows["testing"].status == "too_few_tasks" and "needs at least 1 train and 2 val" in rows["testing"].reason


def test_a_skill_that_is_the_main_target_is_not_proposed_twice(skill_project):
    project = skill_project
    result = _night(project, target_skill_path=str(_skill(project, "testing")))
    rows = {r.name: r for r in result.report.skills}
    assert rows["testing"].status == "skipped" and "main skill target" in rows["testing"].reason
    targets = json.loads((result.staging / "manifest.json").read_text())["targets"]
    assert [t["unit"] for t in targets if t["live_path"] == str(_skill(project, "testing"))] == ["main"]


def test_the_night_command_reports_each_skill(skill_project, run_cli):
    """Through the CLI, with the core's scripted backend (it answers "scripted reply", so
    nothing can pass: each skill's pass is tried and reported, nothing is staged)."""
    project = skill_project
    res = run_cli("sleep", "run", "--project", str(project), "--lookback-hours", "0", "--backend", "scripted",
                  "--fan-out", "--min-val", "1")  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "skill release: nothing_learned" in res.output and "skill testing: nothing_learned" in res.output
    assert not (project / ".skillopt-sleep" / "staging").exists() or not any((project / ".skillopt-sleep" / "staging").iterdir())
