"""``--preferences`` reach the reflection prompt; the developer's prompt file overrides
prompts and is validated before a night starts."""

from __future__ import annotations

import json
import tomllib

import pytest

from skillopt.errors import ConfigError
from skillopt.scripted import ScriptedBackend
from skillopt_sleep import prompts
from skillopt_sleep.clients import from_backends
from skillopt_sleep.cycle import run_night
from skillopt_sleep.experiments.agents import convention_agent, optimizer
from skillopt_sleep.options import SleepOptions, read_preferences
from skillopt_sleep.sentinel import SENTINEL

PREFS = "Prefer httpx over requests. Keep commit subjects imperative."


def _night(project, **kw):
    opts = SleepOptions(project=project, lookback_hours=0, min_val_items=1, edit_budget=5, **kw)
    reflector = ScriptedBackend(script=optimizer())
    clients = from_backends(ScriptedBackend(script=convention_agent), reflector, opts=opts)
    return run_night(opts, clients=clients, dry_run=True), reflector


def _reflect_requests(backend):
    return [r for r in backend.requests if r.stage == "sleep-reflect"]


def test_preferences_reach_the_reflection_prompt(fixture_home):
    _home, project = fixture_home
    _result, reflector = _night(project, reflector="llm", preferences=PREFS)
    (request,) = _reflect_requests(reflector)
    user = request.messages[-1].content
    assert PREFS in user and "## Failures" in user
    _result, reflector = _night(project, reflector="llm")
    assert PREFS not in _reflect_requests(reflector)[0].messages[-1].content
    assert prompts.NO_PREFERENCES in _reflect_requests(reflector)[0].messages[-1].content


def test_preferences_reach_the_contrastive_prompt():
    from skillopt_sleep.learn.contrast import Contrast, contrast_request
    from skillopt_sleep.mine.tasks import SleepTask
    from skillopt_sleep.replay import Attempt

    task = SleepTask(id="t", intent="run the tests")
    good, bad = Attempt(task_id="t", repeat=0, status="ok", hard=1.0, answer="uv run pytest"), Attempt(
        task_id="t", repeat=1, status="ok", answer="python -m pytest"
    )
    c = Contrast(task=task, good=good, bad=bad, good_score=1.0, bad_score=0.0, attempts=2)
    request = contrast_request([c], [], 3, "shop-api", PREFS)
    assert PREFS in request.messages[-1].content and "GOOD attempt" in request.messages[-1].content


def test_heuristic_reflection_says_the_preferences_were_unused(fixture_home):
    _home, project = fixture_home
    result, reflector = _night(project, reflector="heuristic", preferences=PREFS)
    assert not _reflect_requests(reflector)
    assert any("--preferences unused" in n for n in result.report.notes)


def test_preferences_come_from_text_or_a_file_and_are_scrubbed(tmp_path):
    file = tmp_path / "house-rules.md"
    file.write_text("Use pnpm, never npm.\nOur token is ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s00\n")
    text = read_preferences(str(file))
    assert text.startswith("Use pnpm, never npm.") and "ghp_R4nd0m" not in text
    assert read_preferences("Prefer small commits.") == "Prefer small commits."
    assert read_preferences("") == "" and read_preferences(None) == ""
    with pytest.raises(ConfigError, match="--preferences is"):
        SleepOptions(project=tmp_path, preferences="x" * 5000)


def test_cli_passes_preferences_from_a_file(fixture_home, run_cli, skillopt_home, tmp_path):
    _home, project = fixture_home
    file = tmp_path / "prefs.txt"
    file.write_text(PREFS)
    from skillopt_sleep.cli.actions import build_options

    assert build_options({"project": project, "preferences": str(file)}).preferences == PREFS
    res = run_cli("sleep", "dry-run", "--project", str(project), "--lookback-hours", "0", "--backend", "scripted",
                  "--reflector", "heuristic", "--preferences", str(file), "--min-val", "1", "--json")  # fmt: skip
    assert res.exit_code == 0, res.output
    assert any("--preferences unused" in n for n in json.loads(res.stdout)["report"]["notes"])


def _write_prompts(skillopt_home, text: str):
    path = skillopt_home / "config" / prompts.FILE_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_user_prompt_file_overrides_reflection_and_replay(fixture_home, skillopt_home):
    _home, project = fixture_home
    path = _write_prompts(
        skillopt_home,
        "reflect_system = '''You keep the rules of the ACME platform team.'''\n"
        "reflect_user = '''Team rules: {preferences}\nRules so far:\n{rules}\nWhat failed:\n{failures}'''\n"
        "attempt_system = '''ACME agent. Follow this skill:\n## Skill\n{skill}\n## Memory\n{memory}'''\n",
    )
    assert path == prompts.path() and path.is_relative_to(skillopt_home)
    result, reflector = _night(project, reflector="llm", preferences=PREFS)
    (request,) = _reflect_requests(reflector)
    system, user = request.messages[0].content, request.messages[-1].content
    assert "ACME platform team" in system and SENTINEL in system, "the sentinel is added whatever the text"
    assert user.startswith("Team rules: " + PREFS) and "What failed:" in user
    assert result.report.tasks, "the night ran on the overridden prompts"


def test_attempt_prompt_override_reaches_the_target(fixture_home, skillopt_home):
    _home, project = fixture_home
    _write_prompts(skillopt_home, "attempt_system = '''ACME agent for {project}.\n## Skill\n{skill}\n## Memory\n{memory}'''\n")
    opts = SleepOptions(project=project, lookback_hours=0, min_val_items=1)
    target = ScriptedBackend(script=convention_agent)
    run_night(opts, clients=from_backends(target, ScriptedBackend(script=optimizer()), opts=opts), dry_run=True)
    systems = [r.messages[0].content for r in target.requests if r.stage == "sleep-replay"]
    assert systems and all(s.startswith(SENTINEL) and f"ACME agent for {project.name}." in s for s in systems)


@pytest.mark.parametrize(
    "text, message",
    [
        ("reflct_system = 'x'\n", "unknown prompt 'reflct_system' (known: attempt_system"),
        ("reflect_user = '''{rules} {failures}'''\n", "prompt 'reflect_user' must contain {preferences}"),
        ("reflect_user = '''{rules} {failures} {preferences} {tasks}'''\n", "unknown placeholder {tasks}"),
        ("judge_system = '''Grade {answer}'''\n", "unknown placeholder {answer}; it takes none"),
        ("judge_system = 3\n", "prompt 'judge_system' must be non-empty text"),
        ("judge_system = 'unclosed\n", "not valid TOML"),
    ],
)
def test_a_bad_prompt_file_is_refused_with_one_line(fixture_home, skillopt_home, run_cli, text, message):
    _home, project = fixture_home
    _write_prompts(skillopt_home, text)
    with pytest.raises(ConfigError) as err:
        prompts.overrides()
    assert message in str(err.value)
    res = run_cli("sleep", "dry-run", "--project", str(project), "--lookback-hours", "0", "--backend", "scripted")
    assert res.exit_code == 2 and message in res.output and "Traceback" not in res.output
    assert "harvest:" not in res.output, "refused before anything ran"
    assert run_cli("sleep", "prompts").exit_code == 2


def test_json_braces_are_not_placeholders_and_the_starter_round_trips(skillopt_home, run_cli):
    _write_prompts(skillopt_home, 'judge_system = \'\'\'Grade strictly. Reply {"score": 0..1, "reason": "..."}.\'\'\'\n')
    assert prompts.render("judge_system").endswith('{"score": 0..1, "reason": "..."}.')
    starter = run_cli("sleep", "prompts", "--starter").stdout
    assert prompts.validate(tomllib.loads(starter), "starter") == {name: p.text for name, p in prompts.DEFAULTS.items()}
    listing = json.loads(run_cli("sleep", "prompts", "--json").stdout)
    assert {row["name"]: row["overridden"] for row in listing["prompts"]}["judge_system"] is True
