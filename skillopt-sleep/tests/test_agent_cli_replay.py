"""A night whose model is the developer's own coding agent, through the ``claude-cli``,
``opencode-cli`` and ``pi-cli`` backends, against the stand-in programs of
skillopt-backends' tests (they parse options as the real CLIs do and print their output
formats; they are not models: they answer schema requests with the smallest valid
object)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("skillopt_backends")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "skillopt-backends" / "tests"))

from agent_cli_kit import install_fake

from skillopt_sleep.harvest.opencode import REPLAY_AGENT
from skillopt_sleep.sentinel import SENTINEL

#: how each agent is kept from saving these runs as sessions a later night would harvest
NOT_HARVESTED = {
    "claude-cli": lambda argv: "--no-session-persistence" in argv,
    "pi-cli": lambda argv: "--no-session" in argv,
    # OpenCode always saves sessions; its harvester leaves out this agent name
    "opencode-cli": lambda argv: re.fullmatch(REPLAY_AGENT.pattern, argv[argv.index("--agent") + 1]) is not None,
}


@pytest.mark.parametrize("backend", sorted(NOT_HARVESTED))
@pytest.mark.parametrize("mode", ["chat", "agent"])
def test_a_night_replays_through_the_agent_cli_and_sends_it_no_secret(
    fixture_home, run_cli, skillopt_home, planted_secrets, tmp_path, mode, backend
):
    _home, project = fixture_home
    fake = install_fake(backend, tmp_path / "cli")
    res = run_cli(
        "sleep", "dry-run", "--project", str(project), "--source", "auto", "--lookback-hours", "0",
        "--backend", backend, "--backend-option", f"path={fake.executable}", "--backend-option", f"mode={mode}",
        "--min-val", "1", "--json",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    calls = fake.calls()
    assert len(calls) >= 3, "the night made (almost) no model call"
    # every prompt carries the self-replay sentinel, so a later harvest skips these sessions
    seen = [c["prompt"] + c["system"] + "".join(c["instructions"].values()) for c in calls]
    assert all(SENTINEL in text for text in seen)
    assert all(NOT_HARVESTED[backend](c["argv"]) for c in calls)
    # redaction happened at ingestion: nothing planted in the transcripts reached the agent
    blob = json.dumps(calls)
    assert not [s for s in planted_secrets if s in blob]
    assert all(Path(c["cwd"]) != project for c in calls)  # never run in the developer's checkout


def test_a_missing_agent_cli_names_this_commands_flags(fixture_home, run_cli, tmp_path, monkeypatch):
    """Regression: the claude-cli hint named `--set model.target.options.path=…`, a flag
    `skillopt sleep` does not have; it names `--backend-option path=…` here."""
    _home, project = fixture_home
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("SKILLOPT_CLAUDE_BIN", raising=False)
    res = run_cli("sleep", "dry-run", "--project", str(project), "--lookback-hours", "0", "--backend", "claude-cli")
    assert res.exit_code == 2, res.output
    assert "--backend-option path=" in res.output and "--set" not in res.output, res.output


def test_the_deadline_fits_the_backend():
    from skillopt_sleep.clients import AGENT_MODE_TIMEOUT_S, call_timeout

    class Embedded:
        small_model = True

    class Provider:
        small_model = False

    assert call_timeout(Embedded, {}, None) == 300.0, "the embedded CPU model gets the core's small-model deadline"
    assert call_timeout(Provider, {"mode": "agent"}, None) == AGENT_MODE_TIMEOUT_S
    assert call_timeout(Provider, {}, None) == 120.0
    assert call_timeout(Embedded, {}, 45.0) == 45.0, "--timeout wins"


def test_the_embedded_model_gets_its_deadline_before_any_call(tmp_path):
    from skillopt_sleep.clients import run_config
    from skillopt_sleep.options import SleepOptions

    assert run_config(SleepOptions(project=tmp_path, backend="local")).model.timeout_s == 300.0
    assert run_config(SleepOptions(project=tmp_path, backend="openai")).model.timeout_s == 120.0
    assert run_config(SleepOptions(project=tmp_path, backend="local", timeout_s=900)).model.timeout_s == 900.0
