"""``opencode-cli``: OpenCode headless (``opencode run --format json``).

Runs on whatever provider the developer logged OpenCode into (``opencode auth
login``). Each call runs in a throwaway directory whose ``opencode.json`` defines a
one-off primary agent named ``skillopt-sleep-<32 hex>`` and ``--agent`` selects it:
in chat mode its prompt is the system text (replacing OpenCode's own) and every tool
is off (``"*": false``, edits, shell and web fetches denied); in agent mode it keeps
OpenCode's system prompt and read-only tools, and reads the system text (the skill)
from ``AGENTS.md`` in its workspace. OpenCode always saves its sessions; sessions of
an agent with that name are the ones ``skillopt sleep``'s OpenCode harvester leaves
out, so these calls never become tomorrow's "developer" tasks. Autoupdate and
session sharing are switched off for the run. The reply is the text of the last step
of the JSON event stream; usage and cost are summed from its ``step_finish`` events.
OpenCode has no schema option: schemas are asked for in the prompt and validated by
the call pipeline, which re-asks on a broken reply.
"""

from __future__ import annotations

import json
import secrets

from skillopt.api import Completion, CompletionRequest, Usage, hookimpl
from skillopt_backends.agent_cli.base import AgentCliBackend
from skillopt_backends.agent_cli.output import as_int, json_lines
from skillopt_backends.agent_cli.process import CliResult

AGENT_PREFIX = "skillopt-sleep-"
CONFIG_FILE = "opencode.json"
#: tools an agent-mode run may not use (it reads, it does not change anything)
WRITE_TOOLS = ("bash", "edit", "write", "patch", "webfetch", "task", "todowrite")


def agent_config(name: str, system: str, mode: str) -> dict:
    """The workspace ``opencode.json``: one primary agent, tools off (chat) or read-only (agent)."""
    deny = {"edit": "deny", "bash": "deny", "webfetch": "deny"}
    agent: dict = {"mode": "primary", "permission": deny}
    if mode == "agent":
        agent["tools"] = dict.fromkeys(WRITE_TOOLS, False)
    else:
        agent["tools"] = {"*": False}
        agent["prompt"] = system or "Answer the user's request directly and completely."
    return {"$schema": "https://opencode.ai/config.json", "share": "disabled", "autoupdate": False,
            "agent": {name: agent}}  # fmt: skip


class OpenCodeCliBackend(AgentCliBackend):
    """OpenCode CLI (any provider OpenCode is logged into)."""

    name = "opencode-cli"
    summary = "OpenCode (`opencode run --format json`): the providers OpenCode is logged into"
    binary_names = ("opencode",)
    path_env = "SKILLOPT_OPENCODE_BIN"
    auth_env = ("OPENCODE_CONFIG", "OPENCODE_CONFIG_DIR")
    install_help = "npm install -g opencode-ai"
    login_help = "run `opencode auth login`"
    help_args = ("run", "--help")
    required_flags = ("--format", "--agent")
    instructions_file = "AGENTS.md"

    def __init__(self, settings):
        super().__init__(settings)
        self.env = {**self.env, "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_SHARE": "1"}

    def command(self, request: CompletionRequest, system: str, prompt: str) -> tuple[list[str], dict[str, str], str]:
        agent = AGENT_PREFIX + secrets.token_hex(16)
        files = {CONFIG_FILE: json.dumps(agent_config(agent, system, self.mode), ensure_ascii=False, indent=2)}
        if self.mode == "agent":
            files.update(self.instructions(system))
        args = ["run", "--format", "json", "--agent", agent]
        if self.model_name:
            args += ["--model", self.model_name]
        return args, files, prompt  # the message comes on stdin

    def parse(self, result: CliResult, request: CompletionRequest) -> Completion:
        texts: list[str] = []
        errors: list[str] = []
        prompt_tokens = completion_tokens = cached = 0
        cost, priced, finished = 0.0, False, False
        for event in json_lines(result.stdout):
            kind = event.get("type")
            part = event.get("part") if isinstance(event.get("part"), dict) else {}
            if kind == "text":
                texts.append(str(part.get("text") or ""))
            elif kind == "tool_use":
                texts = []  # the answer is what comes after the last tool call
            elif kind == "step_finish":
                finished = True
                tokens = part.get("tokens") if isinstance(part.get("tokens"), dict) else {}
                cache = tokens.get("cache") if isinstance(tokens.get("cache"), dict) else {}
                prompt_tokens += as_int(tokens.get("input")) + as_int(cache.get("read")) + as_int(cache.get("write"))
                completion_tokens += as_int(tokens.get("output")) + as_int(tokens.get("reasoning"))
                cached += as_int(cache.get("read"))
                if isinstance(part.get("cost"), (int, float)):
                    cost, priced = cost + float(part["cost"]), True
            elif kind == "error":
                error = event.get("error") if isinstance(event.get("error"), dict) else {}
                data = error.get("data") if isinstance(error.get("data"), dict) else {}
                errors.append(str(data.get("message") or error.get("name") or "error"))
        if errors or result.returncode != 0:
            raise self.failure(" | ".join(errors) or result.stderr or result.stdout, exit_code=result.returncode)
        if not finished:
            raise self.malformed("no step_finish in the event stream")
        usage = Usage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, cached_tokens=cached)
        return Completion(
            text="".join(texts).strip(),
            usage=usage,
            cost_usd=cost if priced else None,
            latency_s=result.elapsed_s,
            model=self.model_name or "opencode-default",
            finish_reason="stop",
        )


@hookimpl
def skillopt_register_backends(register):
    register(OpenCodeCliBackend, aliases=("opencode",))
