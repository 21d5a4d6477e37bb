"""The agent-CLI backends (claude-cli, codex-cli, cursor-cli, copilot-cli, opencode-cli,
pi-cli) against fake CLIs.

The fakes (agent_clis/fake_agent.py) stand for the installed CLI programs: they parse
options as the real CLIs do, print the real output formats and failure shapes, and
record each run. Our code under test builds the command line, runs the subprocess,
and reads what comes back.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from pathlib import Path

import attrs
import pytest
from agent_cli_kit import COMMANDS, install_fake
from backend_testkit import client_for

from skillopt.errors import (
    AuthError,
    BackendError,
    BadRequestError,
    CallTimeout,
    Cancelled,
    ConfigError,
    ContextLengthError,
    RateLimitError,
    SchemaError,
    TransientError,
)
from skillopt.records import CompletionRequest, Message
from skillopt.testing import check_backend_contract

HELLO = (Message(role="user", content="Say hello."),)
SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
STRICT = {**SCHEMA, "additionalProperties": False}


@pytest.fixture(params=sorted(COMMANDS))
def fake(request, tmp_path):
    return install_fake(request.param, tmp_path)


def only(fake, *backends):
    if fake.backend not in backends:
        pytest.skip(f"not applicable to {fake.backend}")


def test_text_completion_and_contract(fake):
    backend = fake.make()
    completion = backend.complete(CompletionRequest(messages=HELLO, max_tokens=16))
    assert completion.text == f"Hello from the fake {fake.flavor} agent."
    assert completion.usage.prompt_tokens > 0 and completion.usage.completion_tokens > 0
    assert completion.latency_s > 0
    check_backend_contract(fake.make())
    call = fake.calls()[0]
    assert call["prompt"] == "Say hello."


def test_each_call_runs_in_its_own_temp_directory_that_is_removed(fake, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fake.make().complete(CompletionRequest(messages=HELLO))
    cwd = Path(fake.calls()[0]["cwd"])
    assert cwd != tmp_path and cwd.name.startswith("skillopt-agent-")
    assert not cwd.exists()


def test_the_environment_is_scrubbed(fake, monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_" + "a" * 36)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-" + "b" * 40)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-" + "c" * 40)
    monkeypatch.setenv("MY_PROXY_SETTING", "keep-me")
    fake.make(options={"env_passthrough": ["MY_PROXY_SETTING"]}).complete(CompletionRequest(messages=HELLO))
    env = fake.calls()[0]["env"]
    assert "AWS_SECRET_ACCESS_KEY" not in env
    assert ("GITHUB_TOKEN" in env) == (fake.backend == "copilot-cli")  # Copilot may log in with it
    assert env["MY_PROXY_SETTING"] == "keep-me" and env["PATH"] == os.environ["PATH"]
    # each CLI gets only its own provider's key, for API-key login
    assert ("ANTHROPIC_API_KEY" in env) == (fake.backend == "claude-cli")
    assert ("OPENAI_API_KEY" in env) == (fake.backend == "codex-cli")


@pytest.mark.parametrize("given", ["MY_PROXY_SETTING", "MY_PROXY_SETTING, OTHER_SETTING", ["MY_PROXY_SETTING", "OTHER_SETTING"]])
def test_env_passthrough_takes_one_name_a_comma_list_or_a_list(fake, monkeypatch, given):
    """``--backend-option env_passthrough=X`` (Sleep) and ``options.env_passthrough = "X"``
    give a string: it was split into characters, so the variable never reached the CLI."""
    monkeypatch.setenv("MY_PROXY_SETTING", "keep-me")
    monkeypatch.setenv("OTHER_SETTING", "me-too")
    monkeypatch.setenv("M", "a one-letter variable the old split let through")
    fake.make(options={"env_passthrough": given}).complete(CompletionRequest(messages=HELLO))
    env = fake.calls()[0]["env"]
    assert env["MY_PROXY_SETTING"] == "keep-me" and "M" not in env
    assert ("OTHER_SETTING" in env) == ("OTHER_SETTING" in str(given))


def test_env_passthrough_that_is_not_names_is_refused_naming_the_option(fake):
    with pytest.raises(ConfigError, match="options.env_passthrough takes variable names"):
        fake.make(options={"env_passthrough": 5})


def test_command_lines_are_what_each_cli_documents(fake):
    request = CompletionRequest(
        messages=(Message(role="system", content="You are terse."), *HELLO), reasoning_effort="high"
    )
    fake.make(model="some-model").complete(request)
    call = fake.calls()[0]
    argv = call["argv"]
    assert argv[argv.index("--model") + 1] == "some-model"
    if fake.backend == "claude-cli":
        assert argv[:3] == ["-p", "--output-format", "json"]
        assert argv[argv.index("--tools") + 1] == ""  # no built-in tools
        assert "--no-session-persistence" in argv and "--strict-mcp-config" in argv
        assert argv[argv.index("--effort") + 1] == "high"
        assert call["system"] == "You are terse." and call["prompt"] == "Say hello."
        assert "system-prompt.md" in call["files"]
    elif fake.backend == "pi-cli":
        assert argv[:4] == ["-p", "--mode", "json", "--no-session"]  # sessions are never saved
        assert {"--no-tools", "--no-skills", "--no-context-files", "--no-extensions"} <= set(argv)
        assert call["system"] == "You are terse." and call["prompt"] == "Say hello."
        assert argv[argv.index("--thinking") + 1] == "high"
        assert call["env"]["PI_SKIP_VERSION_CHECK"] == "1"
    elif fake.backend == "opencode-cli":
        assert argv[:2] == ["--format", "json"]  # after the `run` subcommand, which the fake requires
        agent = argv[argv.index("--agent") + 1]
        assert re.fullmatch(r"skillopt-sleep-[0-9a-f]{32}", agent), "the name OpenCode's harvester leaves out"
        config = json.loads(call["instructions"]["opencode.json"])["agent"][agent]
        assert config["tools"] == {"*": False} and config["permission"]["bash"] == "deny" and config["mode"] == "primary"
        assert call["system"] == "You are terse." and call["prompt"] == "Say hello."
        assert call["env"]["OPENCODE_DISABLE_AUTOUPDATE"] == "1"
    else:
        assert call["prompt"].startswith("<instructions>\nYou are terse.\n</instructions>")
        assert call["prompt"].endswith("Say hello.")
    if fake.backend == "codex-cli":
        assert argv[argv.index("--sandbox") + 1] == "read-only" and argv[-1] == "-"
        assert {"--json", "--skip-git-repo-check", "--ephemeral"} <= set(argv)
        assert 'model_reasoning_effort="high"' in argv
    if fake.backend == "cursor-cli":
        assert argv[argv.index("--mode") + 1] == "ask"
        assert argv[argv.index("--workspace") + 1] == call["cwd"]
    if fake.backend == "copilot-cli":
        assert argv[0] == "-p" and argv[1] == call["prompt"]
        assert {"--no-custom-instructions", "--disable-builtin-mcps"} <= set(argv) and "--allow-all-tools" not in argv
        assert argv[argv.index("--stream") + 1] == "off" and argv[argv.index("--effort") + 1] == "high"


def test_a_conversation_becomes_one_transcript_prompt(fake):
    messages = (
        Message(role="user", content="Pick a number."),
        Message(role="assistant", content="7"),
        Message(role="user", content="Double it."),
    )
    fake.make().complete(CompletionRequest(messages=messages))
    prompt = fake.calls()[0]["prompt"]
    assert prompt.index("<user>\nPick a number.") < prompt.index("<assistant>\n7") < prompt.index("<user>\nDouble it.")


def test_structured_output_through_the_pipeline(fake):
    client = client_for(fake.make(), role="optimizer")
    completion = client.complete(CompletionRequest(messages=HELLO, json_schema=STRICT, stage="reflect"))
    assert completion.parsed == {"answer": "Paris"}
    call = fake.calls()[0]
    if fake.backend == "claude-cli":
        assert json.loads(call["argv"][call["argv"].index("--json-schema") + 1]) == STRICT
    elif fake.backend == "codex-cli":
        assert "reply-schema.json" in call["files"] and call["schema"] == STRICT
    else:  # Cursor, Copilot, OpenCode and pi have no schema option: the prompt asks for it
        assert "It must match this JSON schema" in call["system"] + call["prompt"]


def test_codex_sends_only_strict_schemas_natively(tmp_path):
    fake = install_fake("codex-cli", tmp_path)
    client_for(fake.make(), role="optimizer").complete(CompletionRequest(messages=HELLO, json_schema=SCHEMA))
    call = fake.calls()[0]
    assert "--output-schema" not in call["argv"]
    assert "It must match this JSON schema" in call["prompt"]


def test_a_broken_json_reply_is_re_asked_then_counted_as_a_failure(fake):
    fake.script({"text": "Sure! The answer is Paris."}, {"data": {"answer": "Lyon"}})
    client = client_for(fake.make(), role="optimizer")
    completion = client.complete(CompletionRequest(messages=HELLO, json_schema=STRICT, stage="reflect"))
    assert completion.parsed == {"answer": "Lyon"} and len(fake.calls()) == 2
    fake.script(*[{"text": "no json here"}] * 6)
    with pytest.raises(SchemaError):
        client.complete(CompletionRequest(messages=(Message(role="user", content="Again."),), json_schema=STRICT, stage="reflect"))


@pytest.mark.parametrize(
    "kind, expected",
    [
        ("auth", AuthError),
        ("rate", RateLimitError),
        ("overloaded", TransientError),
        ("context", ContextLengthError),
        ("crash", TransientError),
    ],
)
def test_failures_are_classified(fake, kind, expected):
    fake.script({"fail": kind})
    with pytest.raises(expected) as info:
        fake.make().complete(CompletionRequest(messages=HELLO))
    if expected is AuthError:
        assert "login" in str(info.value).lower()


def test_a_spent_subscription_is_not_retried(fake):
    fake.script({"fail": "usage_limit"})
    with pytest.raises(BackendError) as info:
        fake.make().complete(CompletionRequest(messages=HELLO))
    assert not info.value.retryable and "usage limit" in str(info.value)


def test_a_secret_the_cli_prints_never_reaches_the_error(fake):
    secret = "sk-ant-api03-" + "Z" * 48
    fake.script({"raw": f"fatal: request failed with key {secret}\n", "exit": 3})
    with pytest.raises(TransientError) as info:
        fake.make().complete(CompletionRequest(messages=HELLO))
    assert secret not in str(info.value) and "exit code 3" in str(info.value)


def test_unreadable_output_is_a_malformed_reply(fake):
    fake.script({"raw": "<html>502 Bad Gateway</html>", "exit": 0})
    with pytest.raises(TransientError, match="malformed"):
        fake.make().complete(CompletionRequest(messages=HELLO))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie still answers kill(0): check its state
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_a_timeout_kills_the_whole_process_group(fake):
    fake.script({"sleep": 30, "spawn_child": True})
    started = time.monotonic()
    with pytest.raises(CallTimeout, match="timeout_s"):
        fake.make().complete(CompletionRequest(messages=HELLO, timeout_s=1.5))
    assert time.monotonic() - started < 10
    child = int((fake.state / "child.pid").read_text())
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)  # the agent's own subprocesses die with it


def test_close_cancels_the_run_in_flight(fake):
    fake.script({"sleep": 30})
    backend = fake.make()
    threading.Timer(1.0, backend.close).start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        backend.complete(CompletionRequest(messages=HELLO))
    assert time.monotonic() - started < 10
    with pytest.raises(Cancelled):
        backend.complete(CompletionRequest(messages=HELLO))


def test_a_repeated_call_is_served_from_the_cache(fake, tmp_path):
    from skillopt.calls import CallCache

    cache = CallCache(tmp_path / "calls.sqlite")
    request = CompletionRequest(messages=HELLO)
    first = client_for(fake.make(), cache=cache).complete(request)
    second = client_for(fake.make(), cache=cache).complete(request)
    assert second.cached and second.text == first.text
    assert len(fake.calls()) == 1
    assert fake.make().identity()["cli"]  # the CLI version is part of the key


def test_a_cli_without_a_needed_option_is_refused_by_name(fake):
    from skillopt.registry import get

    needed = get("backends", fake.backend).obj.required_flags[-1]
    fake.omit_from_help(needed)
    with pytest.raises(ConfigError) as info:
        fake.make()
    message = str(info.value)
    assert needed in message and "update the CLI" in message


def test_an_optional_option_the_cli_lacks_is_not_passed(tmp_path):
    fake = install_fake("claude-cli", tmp_path)
    fake.omit_from_help("--json-schema", "--no-session-persistence", "--system-prompt-file")
    client = client_for(fake.make(), role="optimizer")
    completion = client.complete(
        CompletionRequest(messages=(Message(role="system", content="Be exact."), *HELLO), json_schema=STRICT, stage="reflect")
    )
    assert completion.parsed == {"answer": "Paris"}
    call = fake.calls()[0]
    assert "--json-schema" not in call["argv"] and "--no-session-persistence" not in call["argv"]
    assert call["system"].startswith("Be exact.") and "It must match this JSON schema" in call["system"]


def test_a_missing_cli_says_how_to_install_or_point_at_it(monkeypatch, tmp_path):
    from skillopt.backends import BackendSettings
    from skillopt.registry import get

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("SKILLOPT_CLAUDE_BIN", raising=False)
    with pytest.raises(ConfigError) as info:
        get("backends", "claude-cli").obj(BackendSettings(name="claude-cli"))
    assert "npm install -g @anthropic-ai/claude-code" in str(info.value) and "SKILLOPT_CLAUDE_BIN" in str(info.value)


def test_the_binary_can_come_from_its_env_var(monkeypatch, tmp_path):
    from skillopt.backends import BackendSettings
    from skillopt.registry import get

    fake = install_fake("codex-cli", tmp_path)
    monkeypatch.setenv("SKILLOPT_CODEX_BIN", str(fake.executable))
    backend = get("backends", "codex").obj(BackendSettings(name="codex-cli"))  # by its alias
    assert backend.complete(CompletionRequest(messages=HELLO)).text.startswith("Hello from the fake codex")
    assert backend.identity()["cli"] == "codex-cli 0.58.0"


def test_copilot_refuses_a_prompt_longer_than_one_argument_may_be(tmp_path):
    from skillopt.errors import BadRequestError

    fake = install_fake("copilot-cli", tmp_path)
    with pytest.raises(BadRequestError, match="command-line argument"):
        fake.make().complete(CompletionRequest(messages=(Message(role="user", content="x" * 140_000),)))
    assert fake.calls() == []


def test_claude_reports_cost_and_the_answering_model(tmp_path):
    fake = install_fake("claude-cli", tmp_path)
    completion = fake.make().complete(CompletionRequest(messages=HELLO))
    assert completion.model == "claude-sonnet-4-5-20250929"  # not the housekeeping haiku call
    assert completion.cost_usd is not None and completion.cost_usd > 0
    assert completion.usage.cached_tokens == 5


def test_agent_mode_installs_the_skill_where_each_agent_reads_it(fake):
    skill = "# Skill\n- Always answer with the exact entity name."
    request = CompletionRequest(messages=(Message(role="system", content=skill), *HELLO))
    backend = fake.make(options={"mode": "agent"})
    backend.complete(request)
    call = fake.calls()[0]
    where = {"claude-cli": "CLAUDE.md", "codex-cli": "AGENTS.md", "cursor-cli": ".cursor/rules/skillopt.mdc",
             "copilot-cli": ".github/copilot-instructions.md", "opencode-cli": "AGENTS.md", "pi-cli": "AGENTS.md"}[fake.backend]
    assert skill in call["instructions"][where]
    assert call["prompt"] == "Say hello."  # the skill is not pasted into the prompt
    argv = call["argv"]
    if fake.backend == "claude-cli":
        assert "--system-prompt-file" not in argv and "--system-prompt" not in argv  # Claude Code keeps its own
        assert argv[argv.index("--tools") + 1] == "Read,Grep,Glob"
    if fake.backend == "cursor-cli":
        assert "--mode" not in argv and call["instructions"][where].startswith("---\ndescription:")
    if fake.backend == "copilot-cli":
        assert "--no-custom-instructions" not in argv  # so it reads the instructions file
    if fake.backend == "pi-cli":
        assert "--no-context-files" not in argv and "--system-prompt" not in argv  # pi reads AGENTS.md, keeps its prompt
        assert argv[argv.index("--tools") + 1] == "read,grep,find,ls"
    if fake.backend == "opencode-cli":
        agent = json.loads(call["instructions"]["opencode.json"])["agent"][argv[argv.index("--agent") + 1]]
        assert "prompt" not in agent and agent["tools"]["bash"] is False and agent["tools"]["edit"] is False
    assert backend.identity()["mode"] == "agent" and "mode" not in fake.make().identity()  # separate cache entries


def test_an_unknown_mode_is_refused_by_name(fake):
    with pytest.raises(ConfigError, match="options.mode"):
        fake.make(options={"mode": "yolo"})


def test_agent_mode_installs_a_folder_skills_files_beside_the_instructions(fake):
    from skillopt.records import SkillFile

    files = (SkillFile(path="references/rules.md", content="- RULE-upper\n"),
             SkillFile(path="scripts/check.sh", content="echo ok\n", mode=0o755))
    request = CompletionRequest(messages=(Message(role="system", content="# Skill body"), *HELLO), skill_files=files)
    fake.make(options={"mode": "agent"}).complete(request)
    assert fake.calls()[0]["skill_files"] == {"references/rules.md": ["- RULE-upper\n", 0o644],
                                             "scripts/check.sh": ["echo ok\n", 0o755]}
    assert fake.make(options={"mode": "agent"}).installs_skill_files and not fake.make().installs_skill_files
    fake.make().complete(request)  # chat mode reads the inline text only: nothing is installed
    assert fake.calls()[1]["skill_files"] == {}
    escaping = attrs.evolve(request, skill_files=(SkillFile(path="../outside.md", content="x\n"),))
    with pytest.raises(BadRequestError, match="leave the agent's workspace"):
        fake.make(options={"mode": "agent"}).complete(escaping)
    assert len(fake.calls()) == 2


def test_pi_reports_usage_cost_and_the_answering_model(tmp_path):
    fake = install_fake("pi-cli", tmp_path)
    completion = fake.make().complete(CompletionRequest(messages=HELLO))
    assert completion.model == "claude-sonnet-4-5" and completion.cost_usd == pytest.approx(0.003)
    assert completion.usage.cached_tokens == 5 and completion.text == "Hello from the fake pi agent."  # thinking left out


def test_pi_puts_a_system_prompt_too_long_for_one_argument_in_front_of_the_prompt(tmp_path):
    fake = install_fake("pi-cli", tmp_path)
    long_system = "Rule. " * 30_000  # 180 kB: more than one command-line argument may hold
    fake.make().complete(CompletionRequest(messages=(Message(role="system", content=long_system), *HELLO)))
    call = fake.calls()[0]
    assert "--system-prompt" not in call["argv"]
    assert call["prompt"].startswith("<instructions>\nRule.") and call["prompt"].endswith("Say hello.")


def test_opencode_answers_with_the_last_step_and_sums_its_usage(tmp_path):
    fake = install_fake("opencode-cli", tmp_path)

    def event(kind, **part):
        return json.dumps({"type": kind, "sessionID": "ses_1", "part": part})

    steps = [
        event("step_start", type="step-start"),
        event("text", type="text", text="Let me look first."),
        event("tool_use", type="tool", tool="read", state={"status": "completed"}),
        event("step_finish", type="step-finish", cost=0.01, tokens={"input": 100, "output": 10, "reasoning": 5, "cache": {"read": 20, "write": 0}}),
        event("step_start", type="step-start"),
        event("text", type="text", text="The answer is 42."),
        event("step_finish", type="step-finish", cost=0.02, tokens={"input": 200, "output": 20, "reasoning": 0, "cache": {"read": 30, "write": 0}}),
    ]  # fmt: skip
    fake.script({"raw": "\n".join(steps) + "\n"})
    completion = fake.make(model="anthropic/claude-sonnet-4-5").complete(CompletionRequest(messages=HELLO))
    assert completion.text == "The answer is 42."
    assert completion.usage.prompt_tokens == 350 and completion.usage.completion_tokens == 35
    assert completion.usage.cached_tokens == 50 and completion.cost_usd == pytest.approx(0.03)
    assert completion.model == "anthropic/claude-sonnet-4-5"
