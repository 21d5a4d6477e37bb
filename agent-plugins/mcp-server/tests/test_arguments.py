"""From tool arguments to CLI arguments, checked against the real ``skillopt`` commands:
every argument list the server builds is parsed by the same click command the CLI
runs, so an invented or misspelled flag fails here."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import anyio
import pytest
import typer.main

from skillopt_mcp import runner
from skillopt_mcp.arguments import build_argv, check_arguments, resolve_project
from skillopt_mcp.catalog import catalog
from skillopt_mcp.errors import ToolFailure
from skillopt_mcp.redaction import redact_message, redact_result
from skillopt_mcp.service import cli_error, interpret
from skillopt_mcp.spec import PAIRS, POSITIONAL, REPEAT, SERVER, SWITCH

# CLI options a tool deliberately does not offer, per command.
NOT_OFFERED = {"project", "as_json", "help"}
DELIBERATELY_ABSENT = {("sleep", "run"): {"auto_adopt"}, ("sleep", "dry-run"): {"auto_adopt"}}


def click_command(spec):
    if spec.command[0] == "sleep":
        from skillopt_sleep.cli import sleep_app

        return typer.main.get_command(sleep_app).commands[spec.command[1]]
    from skillopt.cli import app

    command = typer.main.get_command(app)
    for part in spec.command:
        command = command.commands[part]
    return command


def sample_value(param):
    """A valid, non-default value for a parameter, from its schema."""
    schema = param.schema
    if "enum" in schema:
        return schema["enum"][-1]
    if param.name == "night":
        return "20250915-031700"
    if param.name == "source":
        return ["claude-code", "codex"]
    if param.name == "skills":
        return ["release", "testing"]
    if param.name == "roots":
        return {"codex": "/data/codex-home"}
    if param.name == "to":
        return ["claude-code", "cursor"]
    if param.name == "runs_dir":
        return ["/data/runs"]
    if param.name == "run":
        return "searchqa-20261129-101500"
    if param.name == "name" and "maxLength" in schema:
        return "trained-skill"
    if param.name == "backend_options":
        return {"rules": "/data/rules.json", "temperature": 0.5, "stream": False, "n": 3}
    kind = schema["type"]
    if kind == "boolean":
        return True
    if kind == "integer":
        return max(schema.get("minimum", 0), 3)
    if kind == "number":
        return 0.25
    return f"value-for-{param.name}"


def expected_click_value(param, value):
    if param.style == SWITCH:
        return True
    if param.style == REPEAT:
        return list(value)
    if param.style == PAIRS:
        rendered = {True: "true", False: "false"}
        return [f"{k}={rendered.get(v, v) if isinstance(v, bool) else v}" for k, v in value.items()]
    return value


@pytest.mark.parametrize("name", sorted(catalog()))
def test_every_parameter_is_a_real_option_of_the_command(name):
    spec = catalog()[name]
    command = click_command(spec)
    options = {opt: p for p in command.params for opt in getattr(p, "opts", [])}
    arguments = {p.name: p for p in command.params if p.param_type_name == "argument"}
    offered = set()
    for param in spec.params:
        if param.style == SERVER or param.name == "project":
            continue
        if param.style == POSITIONAL:
            assert param.name in arguments, f"{name}: {param.name} is not an argument of the command"
            offered.add(param.name)
            continue
        assert param.flag in options, f"{name}: {param.flag} is not an option of `skillopt {' '.join(spec.command)}`"
        option = options[param.flag]
        offered.add(option.name)
        assert bool(option.is_flag) == (param.style == SWITCH), f"{name}: {param.flag} flag-ness differs"
        assert bool(option.multiple) == (param.style in (REPEAT, PAIRS)), f"{name}: {param.flag} multiplicity differs"
    missing = {p.name for p in command.params if not getattr(p, "hidden", False)} - offered - NOT_OFFERED
    assert missing == DELIBERATELY_ABSENT.get(spec.command, set()), f"{name}: CLI options not offered: {missing}"


@pytest.mark.parametrize("name", sorted(catalog()))
def test_built_arguments_parse_to_the_values_given(name, tmp_path):
    spec = catalog()[name]
    arguments = {p.name: sample_value(p) for p in spec.params if p.style != SERVER}
    if spec.needs_confirm:
        arguments["confirm"] = True
    if spec.takes_project:
        arguments["project"] = str(tmp_path)
    check_arguments(spec, arguments)
    argv = build_argv(spec, arguments, tmp_path if spec.takes_project else None)
    assert argv[: len(spec.command)] == list(spec.command) and "--json" in argv
    command = click_command(spec)
    context = command.make_context(spec.command[-1], argv[len(spec.command) :])
    params = context.params
    assert params["as_json"] is True
    if spec.takes_project:
        assert Path(params["project"]) == tmp_path
    for param in spec.params:
        if param.style == SERVER or param.name == "project":
            continue
        click_name = param.name if param.style == POSITIONAL else next(
            p.name for p in command.params if param.flag in getattr(p, "opts", [])
        )
        got = params[click_name]
        if isinstance(got, Path):
            got = str(got)
        elif isinstance(got, (list, tuple)):
            got = [str(g) if isinstance(g, Path) else g for g in got]
        assert got == expected_click_value(param, arguments[param.name]), f"{name}.{param.name}: {got!r}"


def test_values_cannot_become_options():
    spec = catalog()["sleep_run"]
    argv = build_argv(spec, {"project": "/p", "model": "--auto-adopt", "agent": "x"}, Path("/p"))
    assert "--model=--auto-adopt" in argv and "--auto-adopt" not in argv
    params = click_command(spec).make_context("run", argv[2:]).params
    assert params["model"] == "--auto-adopt" and params["auto_adopt"] is False


def test_integral_numbers_reach_integer_options_as_integers():
    spec = catalog()["sleep_run"]
    arguments = check_arguments(spec, {"project": "/p", "max_calls": 3.0, "max_cost": 2.5})
    argv = build_argv(spec, arguments, Path("/p"))
    assert "--max-calls=3" in argv and "--max-cost=2.5" in argv


def test_confirm_is_required_before_anything_else():
    for name in ("sleep_adopt", "sleep_rollback"):
        spec = catalog()[name]
        for arguments in ({"project": "/p"}, {"project": "/p", "confirm": False}, {"project": "/p", "confirm": "true"}):
            with pytest.raises(ToolFailure, match="needs confirm: true"):
                check_arguments(spec, arguments)
        assert check_arguments(spec, {"project": "/p", "confirm": True})


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({"project": "/p", "bogus": 1}, "'bogus' was unexpected"),
        ({"project": "/p", "workers": 0}, "workers"),
        ({"project": "/p", "val_fraction": 1}, "val_fraction"),
        ({"project": "/p", "backend": "a b"}, "backend has characters"),
        ({"project": "/p", "backend_options": {"bad key": "x"}}, "backend_options"),
        ({"project": "/p", "source": []}, "source"),
        ({"project": "/p\x00"}, "project has characters"),
        ({}, "'project' is a required property"),
    ],
)
def test_schema_violations_name_the_argument(arguments, fragment):
    with pytest.raises(ToolFailure) as info:
        check_arguments(catalog()["sleep_run"], arguments)
    assert fragment in str(info.value)


def test_project_must_be_an_existing_directory(tmp_path, monkeypatch):
    (tmp_path / "repo").mkdir()
    (tmp_path / "file.txt").write_text("x")
    monkeypatch.chdir(tmp_path)
    assert resolve_project("repo") == (tmp_path / "repo").resolve()
    assert resolve_project(str(tmp_path / "repo")) == (tmp_path / "repo").resolve()
    with pytest.raises(ToolFailure, match="does not exist"):
        resolve_project("missing")
    with pytest.raises(ToolFailure, match="is not a directory"):
        resolve_project("file.txt")


def test_cli_errors_keep_the_message_and_drop_tracebacks():
    assert cli_error("error: nothing staged for /p: run `skillopt sleep run` first\n") == (
        "nothing staged for /p: run `skillopt sleep run` first"
    )
    crash = 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\nValueError: bad thing\n'
    assert cli_error(crash) == "the command crashed: ValueError: bad thing"
    usage = "Usage: skillopt sleep run [OPTIONS]\n╭─ Error ─╮\n│ No such option: --bogus │\n╰──╯\n"
    assert "No such option" in cli_error(usage)
    assert cli_error("") == "no error message"


def test_exit_codes_and_output_shape():
    run, status = catalog()["sleep_run"], catalog()["sleep_status"]
    handoff = '{"status": "handoff_pending", "prompts": 3, "index": "/p/.skillopt-sleep/handoff/index.json"}'
    assert '"handoff_pending"' in interpret(run, "skillopt sleep run", 3, handoff, "handoff: 3 prompts")
    with pytest.raises(ToolFailure, match="exit 3"):
        interpret(status, "skillopt sleep status", 3, handoff, "")
    with pytest.raises(ToolFailure, match="printed no JSON"):
        interpret(status, "skillopt sleep status", 0, "not json", "")


def test_results_and_messages_are_redacted():
    digest = "a7a98d9818301dac3d598c2e207cc5717dcd757649eeab37e3133f730bc8a3a1"
    result = redact_result(
        {
            "api_key": "plain-looking-value",
            "note": "export OPENAI_API_KEY=sk-proj-Q9x7LmN2pR4tV6wY8zA1bC3dE5fG7hJ9kL",
            "entries": [{"after_sha256": digest, "session": "opencode:ses_6a1f2b3c4d5eAbCdEf012345"}],
            "usage": {"tokens": 12},
        }
    )
    assert result["api_key"] == "***REDACTED***"
    assert "sk-proj-" not in result["note"]
    assert result["entries"][0] == {"after_sha256": digest, "session": "opencode:ses_6a1f2b3c4d5eAbCdEf012345"}
    assert result["usage"] == {"tokens": 12}
    message = redact_message("could not open postgres://app:N0tS0S3cr3tPw@db/shop with q8Zr2Lx9Vt4Nw7Pk3Hs6Jd1Fg5Mb0Cy")
    assert "N0tS0S3cr3tPw" not in message and "q8Zr2Lx9Vt4Nw7Pk3Hs6Jd1Fg5Mb0Cy" not in message


def test_a_run_past_its_deadline_is_interrupted_cleanly(tmp_path, monkeypatch):
    """A child that stands in for a long night: it traps SIGINT, records it and exits,
    like the sleep cycle does ("interrupted; nothing was staged")."""
    marker = tmp_path / "interrupted"
    script = (
        "import signal, sys, time, pathlib\n"
        f"def stop(*_):\n    pathlib.Path({str(marker)!r}).write_text('yes'); sys.exit(130)\n"
        "signal.signal(signal.SIGINT, stop)\n"
        "print('started', flush=True)\n"
        "time.sleep(60)\n"
    )
    monkeypatch.setattr(runner, "cli_command", lambda args: [sys.executable, "-c", script])
    started = time.monotonic()
    with pytest.raises(runner.TimedOut):
        anyio.run(lambda: runner.run_cli([], cwd=tmp_path, timeout=1.0))
    assert time.monotonic() - started < 8
    assert marker.read_text() == "yes", "the child got SIGINT before anything harsher"
