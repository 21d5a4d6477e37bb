"""The nightly cycle on a realistic fixture home, with scripted models.

``convention_agent`` stands in for the coding model: it follows whatever conventions
the skill/memory it is given state (see skillopt_sleep.experiments.agents); the
optimizer stand-in proposes one harmful rule, which the gate must keep out.
"""

import json
import stat

import pytest

from skillopt.errors import ConfigError
from skillopt.scripted import ScriptedBackend
from skillopt_sleep import documents
from skillopt_sleep.clients import from_backends
from skillopt_sleep.cycle import HandoffWaiting, run_night
from skillopt_sleep.experiments.agents import HARMFUL_RULE, convention_agent, optimizer
from skillopt_sleep.options import SleepOptions
from skillopt_sleep.state import project_state_dir


def _opts(project, **kw):
    base = dict(project=project, lookback_hours=0, min_val_items=1, edit_budget=5)
    base.update(kw)
    return SleepOptions(**base)


def _night(project, *, dry_run=False, **kw):
    opts = _opts(project, **kw)
    clients = from_backends(ScriptedBackend(script=convention_agent), ScriptedBackend(script=optimizer()), opts=opts)
    return run_night(opts, clients=clients, dry_run=dry_run), clients


def test_cycle_stages_an_accepted_night(fixture_home):
    _home, project = fixture_home
    result, clients = _night(project)
    assert result.status == "accepted", result.reason
    night = result.staging
    assert {p.name for p in night.iterdir()} >= {"manifest.json", "report.json", "report.md", "evidence.jsonl", "proposed"}
    manifest = json.loads((night / "manifest.json").read_text())
    (target,) = manifest["targets"]
    assert target["role"] == "skill" and target["baseline_exists"] is False
    proposed = (night / target["proposed"]).read_text()
    assert documents.LEARNED_START in proposed and "uv run" in proposed
    assert HARMFUL_RULE not in proposed, "the gate must block the harmful rule"
    report = result.report
    assert any(e.edit.content == HARMFUL_RULE for e in report.rejected_edits)
    assert report.scores.final_val > report.scores.baseline_val
    assert report.usage.tokens == clients.ledger.totals().tokens > 0, "usage comes from the backends"
    assert not (project / ".claude").exists(), "nothing live is written during a night"


def test_nothing_staged_when_nothing_accepted(fixture_home):
    _home, project = fixture_home
    opts = _opts(project, reflector="heuristic")
    never = from_backends(ScriptedBackend(script=lambda r: "I would ask the user first."), opts=opts)
    result = run_night(opts, clients=never)
    assert result.status == "nothing_learned" and result.staging is None
    assert not (project / ".skillopt-sleep" / "staging").exists() or not any((project / ".skillopt-sleep" / "staging").iterdir())


def test_no_empty_memory_file_staged(fixture_home):
    """Bug §6.7: an accepted night always staged (and adopt created) an empty CLAUDE.md."""
    _home, project = fixture_home
    (project / "CLAUDE.md").unlink()
    result, _ = _night(project, agent="codex")
    roles = [t["role"] for t in json.loads((result.staging / "manifest.json").read_text())["targets"]]
    assert roles == ["skill"]
    assert not (result.staging / "proposed" / "memory").exists()


@pytest.mark.parametrize(
    "agent, memory",
    [
        ("claude-code", "CLAUDE.md"),
        ("codex", "AGENTS.md"),
        ("opencode", "AGENTS.md"),
        ("pi", "AGENTS.md"),
        ("cursor", ".cursor/rules/skillopt-sleep.mdc"),
        ("copilot-cli", ".github/copilot-instructions.md"),
        ("vscode-copilot", ".github/copilot-instructions.md"),
    ],
)
def test_memory_target_follows_agent(tmp_path, agent, memory):
    """Bug §6.7: memory was always CLAUDE.md; bug §6.8: the managed skill was user-global."""
    skill, mem = documents.resolve_targets(tmp_path, agent)
    assert mem.path == (tmp_path / memory).resolve()
    assert skill.path.is_relative_to(tmp_path.resolve()) and skill.path.name == "SKILL.md"


def test_state_is_per_project_under_platformdirs_0600(fixture_home, skillopt_home, tmp_path):
    """Bug §6.8: upstream kept one global ~/.skillopt-sleep/state.json (0644) for all projects."""
    _home, project = fixture_home
    result, _ = _night(project)
    state_dir = project_state_dir(project)
    assert state_dir.is_relative_to(skillopt_home)
    other = tmp_path / "other-project"
    other.mkdir()
    assert project_state_dir(other) != state_dir
    state = json.loads((state_dir / "state.json").read_text())
    assert state["nights"] == 1 and state["project"] == str(project.resolve())
    for path in [state_dir / "state.json", *result.staging.rglob("*")]:
        if path.is_file():
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert not list(project.glob("*.json")), "no state in the repository"


def test_staging_dir_has_gitignore(fixture_home):
    """Bug §6.8: the staging tree holds transcript-derived evidence and had no .gitignore."""
    _home, project = fixture_home
    _night(project)
    assert (project / ".skillopt-sleep" / ".gitignore").read_text().strip().endswith("*")


def test_unknown_backend_is_an_error(fixture_home):
    """Bug §6.4: an unknown backend name silently ran the mock backend."""
    _home, project = fixture_home
    with pytest.raises(ConfigError, match="unknown backend 'gpt-imaginary'"):
        run_night(_opts(project, backend="gpt-imaginary"))


def test_invalid_options_are_errors(tmp_path):
    with pytest.raises(ConfigError, match="--gate-metric"):
        SleepOptions(project=tmp_path, gate_metric="best")
    with pytest.raises(ConfigError, match="--max-tokens"):
        SleepOptions(project=tmp_path, max_tokens=0)


def test_budget_stop_is_clean_and_keeps_only_validated_edits(fixture_home):
    """Bug §6.5: max_tokens_per_night was never read; here real usage stops the night."""
    _home, project = fixture_home
    result, clients = _night(project, max_calls=5)
    assert result.status == "budget_stopped" and result.staging is None
    assert "budget" in result.reason and clients.ledger.totals().calls == 5
    # enough calls to validate edits but not to finish the night: validated edits are staged
    full, full_clients = _night(project, dry_run=True)
    needed = full_clients.ledger.totals().calls
    partial, _ = _night(project, max_calls=needed - 1)
    assert partial.status == "accepted" and partial.staging is not None
    assert "fresh final check skipped" in partial.reason
    tokens, _ = _night(project, max_tokens=200)
    assert tokens.status == "budget_stopped" and "token budget" in tokens.reason


def test_dry_run_stages_nothing_and_saves_no_state(fixture_home):
    _home, project = fixture_home
    result, _ = _night(project, dry_run=True)
    assert result.status == "accepted" and result.staging is None
    assert not (project / ".skillopt-sleep" / "staging").exists()
    assert not (project_state_dir(project) / "state.json").exists()


def test_own_replays_are_never_harvested(fixture_home):
    """Sessions an agent CLI records while answering sleep's prompts carry the sentinel."""
    from datetime import datetime

    from skillopt_sleep.experiments.transcripts import Event, write_claude
    from skillopt_sleep.harvest import HarvestRequest, harvest

    home, project = fixture_home
    seen = []
    opts = _opts(project)
    target = ScriptedBackend(script=lambda r: seen.append(r) or convention_agent(r))
    run_night(opts, clients=from_backends(target, ScriptedBackend(script=optimizer()), opts=opts), dry_run=True)
    prompt = "\n".join(m.content for m in seen[0].messages)
    before = len(harvest(HarvestRequest(project=project)).sessions)
    write_claude(
        home,
        project,
        "replayed-0001",
        [Event(kind="user", text=prompt), Event(kind="assistant", text="uv run pytest")],
        datetime(2025, 9, 20),
    )
    assert len(harvest(HarvestRequest(project=project)).sessions) == before


def _answer(prompt_file):
    text = prompt_file.read_text()
    if "reply format" in text:
        return json.dumps({"edits": []}) if '"edits"' in text else json.dumps({"tasks": []})
    return "```bash\nuv run pytest -q\n```"


def test_handoff_writes_prompts_and_resumes(fixture_home, monkeypatch):
    _home, project = fixture_home
    opts = _opts(project, backend="handoff", reflector="heuristic", miner="heuristic", use_cache=True)
    rounds = 0
    while True:
        try:
            result = run_night(opts)
            break
        except HandoffWaiting as waiting:
            rounds += 1
            assert rounds < 10
            handoff = waiting.index.parent
            assert waiting.index.name == "PROMPTS.md" and handoff.is_relative_to(project / ".skillopt-sleep")
            pending = json.loads((handoff / "pending.json").read_text())
            for entry in pending.values():
                (handoff / entry["answer"]).write_text(_answer(handoff / entry["prompt"]))
    assert rounds >= 2, "each stage waits for its answers, re-running resumes"
    assert result.status in ("accepted", "nothing_learned")


def test_usd_budget_counts_real_cost(fixture_home):
    """A backend that reports a price per call (as the API backends do) stops the night at --max-cost."""
    import attrs

    class PricedAgent(ScriptedBackend):
        def complete(self, request):
            return attrs.evolve(super().complete(request), cost_usd=0.01)

    _home, project = fixture_home
    opts = _opts(project, max_cost_usd=0.045)
    clients = from_backends(PricedAgent(script=convention_agent), PricedAgent(script=optimizer()), opts=opts)
    result = run_night(opts, clients=clients)
    totals = clients.ledger.totals()
    assert result.status == "budget_stopped" and "cost budget" in result.reason
    assert totals.calls == 5 and totals.cost_usd == pytest.approx(0.05)
    assert result.report.usage.cost_usd == pytest.approx(0.05)


def test_the_report_is_one_typed_record_through_the_project_converter(fixture_home):
    """report.json is the NightReport serialised by the shared cattrs converter: it reads
    back into the same record, gate decisions as core Verdicts and edits as core Edits."""
    from skillopt.api import Edit, Verdict, from_data
    from skillopt_sleep.report import NightReport

    _home, project = fixture_home
    result, _ = _night(project)
    written = json.loads((result.staging / "report.json").read_text())
    again = from_data(written, NightReport)
    assert again == result.report
    assert all(isinstance(t.verdict, Verdict) for t in again.trials) and again.trials
    assert all(isinstance(e.edit, Edit) for e in again.accepted_edits + again.rejected_edits)
    assert written["accepted_edits"][0]["edit"]["content"].startswith("- ")


def test_too_few_validation_tasks_is_said_plainly(fixture_home):
    """Regression: a project left with too few validation tasks ended "no edit was
    proposed", hiding the real reason; no model call is spent on a night that cannot
    be validated."""
    import re

    _home, project = fixture_home
    result, clients = _night(project, min_val_items=6)
    assert result.status == "too_few_tasks" and result.staging is None
    assert re.match(r"6 validation task\(s\) needed, \d found: \d of 7 session\(s\) are held out for validation", result.reason)
    assert "lower --min-val" in result.reason
    assert clients.ledger.totals().calls == 0
