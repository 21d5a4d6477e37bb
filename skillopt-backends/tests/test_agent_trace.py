"""Upstream's agent options: the agent's tool steps reach reflection (PR #238's
``claude_trace_to_optimizer``, ``codex_trace_to_optimizer``; on by default, a key turns
them off) and Copilot's tools are scoped (#170). The agent CLIs are the fake executables
of ``agent_clis/fake_agent.py``, which print each CLI's real event formats."""

from __future__ import annotations

import json

from agent_cli_kit import install_fake
from backend_testkit import client_for

from skillopt.records import CompletionRequest, Message

HELLO = (Message(role="system", content="Answer from the files."), Message(role="user", content="What is the capital?"))
TOOLS = [{"name": "Read", "input": {"file_path": "notes/capitals.md"}, "command": "cat notes/capitals.md",
          "output": "France: Paris\n" + "filler line\n" * 200}]


def test_claude_in_agent_mode_returns_its_tool_steps_clipped(tmp_path):
    fake = install_fake("claude-cli", tmp_path)
    fake.script({"text": "Paris", "tools": TOOLS})
    completion = client_for(fake.make(options={"mode": "agent"})).complete(CompletionRequest(messages=HELLO))
    assert completion.text == "Paris"
    call, result = completion.trace
    assert (call.kind, call.name) == ("tool_call", "Read") and "notes/capitals.md" in call.content
    assert (result.kind, result.name) == ("observation", "Read") and result.content.startswith("France: Paris")
    assert len(result.content) <= 400  # clipped
    argv = fake.calls()[0]["argv"]
    assert argv[argv.index("--output-format") + 1] == "stream-json" and "--verbose" in argv


def test_the_trace_can_be_turned_off_and_chat_mode_has_none(tmp_path):
    fake = install_fake("claude-cli", tmp_path)
    fake.script({"text": "Paris", "tools": TOOLS}, {"text": "Paris", "tools": TOOLS})
    off = client_for(fake.make(options={"mode": "agent", "trace_to_optimizer": False})).complete(CompletionRequest(messages=HELLO))
    chat = client_for(fake.make()).complete(CompletionRequest(messages=HELLO))
    assert off.trace == () and chat.trace == () and off.text == chat.text == "Paris"
    assert all(c["argv"][c["argv"].index("--output-format") + 1] == "json" for c in fake.calls())


def test_codex_in_agent_mode_returns_its_commands_and_output(tmp_path):
    fake = install_fake("codex-cli", tmp_path)
    fake.script({"text": "Paris", "tools": TOOLS})
    completion = client_for(fake.make(options={"mode": "agent"})).complete(CompletionRequest(messages=HELLO))
    assert [t.kind for t in completion.trace] == ["tool_call", "observation"]
    assert completion.trace[0].content == "cat notes/capitals.md" and "France: Paris" in completion.trace[1].content


def test_an_agent_targets_steps_reach_the_analysts_through_a_real_run(run_cli, tmp_path):
    target = install_fake("claude-cli", tmp_path / "target")
    optimizer = install_fake("claude-cli", tmp_path / "optimizer")
    target.script(*[{"text": "Lyon", "tools": TOOLS}] * 60)  # every rollout reads a file, then answers wrong
    out = tmp_path / "run"
    result = run_cli("run", "--env", "searchqa", "--preset", "small", "--backend", "claude-cli",
                     "--set", f"model.target.options.path={target.executable}", "--set", "model.target.options.mode=agent",
                     "--set", f"model.optimizer.options.path={optimizer.executable}",
                     "--set", "train.max_steps=1", "--set", "train.batch_size=4", "--set", "env.limit=4",
                     "--set", "evaluation.use_gate=false", "--out", str(out), "--json")
    assert result.exit_code == 0, result.output
    assert all("stream-json" in c["argv"] for c in target.calls())
    analysts = [c for c in optimizer.calls() if "notes/capitals.md" in c["prompt"] + c["system"]]
    assert analysts, "the target's tool steps never reached an optimizer prompt"
    shown = analysts[0]["prompt"] + analysts[0]["system"]
    assert "France: Paris" in shown and "filler line " * 100 not in shown  # the result, clipped


def test_copilot_scopes_its_tools_and_allows_all_only_when_asked(tmp_path):
    fake = install_fake("copilot-cli", tmp_path)
    fake.script({"text": "ok"}, {"text": "ok"}, {"text": "ok"})
    client_for(fake.make()).complete(CompletionRequest(messages=HELLO))
    client_for(fake.make(options={"mode": "agent"})).complete(CompletionRequest(messages=HELLO))
    client_for(fake.make(options={"mode": "agent", "allow_all_tools": True, "available_tools": "view,bash"})).complete(
        CompletionRequest(messages=HELLO))
    chat, agent, opted = (c["argv"] for c in fake.calls())
    assert "--available-tools=" in chat and "--allow-all-tools" not in chat  # chat: no tool at all
    assert "--available-tools=view" in agent and "--allow-all-tools" not in agent  # agent: read-only, approvals kept
    assert "--available-tools=view,bash" in opted and "--allow-all-tools" in opted  # upstream's opt-in


def test_copilot_home_reaches_the_cli(tmp_path):
    fake = install_fake("copilot-cli", tmp_path)
    home = tmp_path / "copilot-home"
    client_for(fake.make(options={"home": str(home)})).complete(CompletionRequest(messages=HELLO))
    assert fake.calls()[0]["env"]["COPILOT_HOME"] == str(home)
    assert json.dumps(fake.calls()[0]["argv"])  # recorded as argv
