"""``claude-cli``: Claude Code in print mode (``claude -p --output-format json``).

Runs on the developer's Claude subscription (or ``ANTHROPIC_API_KEY``). In chat mode
built-in tools and MCP servers are switched off and the default agent system prompt is
replaced, so a call is a plain chat turn; in agent mode Claude Code keeps its own system
prompt, gets read-only tools, and reads the system text (the skill) from ``CLAUDE.md``
in its workspace. Either way sessions are not persisted, so these calls never show up
in ``~/.claude/projects`` for ``skillopt sleep`` to harvest. JSON schemas go through
``--json-schema`` and come back in ``structured_output``. The cost Claude Code reports
(``total_cost_usd``, notional on a subscription) is what budgets count.
"""

from __future__ import annotations

import json
from typing import Any

from skillopt.api import Completion, CompletionRequest, Usage, hookimpl
from skillopt_backends.agent_cli.base import AgentCliBackend, with_instructions
from skillopt_backends.agent_cli.output import as_int
from skillopt_backends.agent_cli.process import WORKDIR, CliResult

AGENT_TOOLS = "Read,Grep,Glob"
DEFAULT_SYSTEM = "Answer the user's request directly and completely. Do not use tools."
EFFORTS = {"none": "low", "minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "high", "max": "high"}


class ClaudeCliBackend(AgentCliBackend):
    """Claude Code CLI (subscription login or ANTHROPIC_API_KEY)."""

    name = "claude-cli"
    summary = "Claude Code CLI in print mode (`claude -p`): a Claude subscription, no API key needed"
    binary_names = ("claude",)
    path_env = "SKILLOPT_CLAUDE_BIN"
    auth_env = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CONFIG_DIR", "ANTHROPIC_BASE_URL")
    install_help = "npm install -g @anthropic-ai/claude-code, then `claude update`"
    login_help = "run `claude` once and log in with /login, or set ANTHROPIC_API_KEY"
    required_flags = ("--print", "--output-format")
    schema_flag = "--json-schema"
    instructions_file = "CLAUDE.md"

    @classmethod
    def env_vars(cls, role: str, options: dict[str, Any]) -> dict[str, tuple[str, ...]]:
        """Upstream's variables: CLAUDE_CODE_EXEC_PATH (its agent harness), CLAUDE_CLI_BIN (its chat backend)."""
        agent = options.get("mode") == "agent"
        return {"options.path": (cls.path_env, *(("CLAUDE_CODE_EXEC_PATH",) if agent else ()), "CLAUDE_CLI_BIN")}

    @property
    def streams_trace(self) -> bool:
        """Agent mode with the trace on: the event stream, whose tool steps reach reflection."""
        from skillopt_backends.agent_cli.trace import trace_on

        return trace_on(dict(self.settings.options), self.mode) and self.has("--verbose")

    def identity(self) -> dict[str, Any]:
        found = super().identity()
        if self.streams_trace:
            found["trace"] = True  # a cached reply without its steps must not stand in for one with them
        return found

    def command(self, request: CompletionRequest, system: str, prompt: str) -> tuple[list[str], dict[str, str], str]:
        args = ["-p", "--output-format", "stream-json", "--verbose"] if self.streams_trace else ["-p", "--output-format", "json"]
        files: dict[str, str] = {}
        if self.model_name:
            args += ["--model", self.model_name]
        if self.mode == "agent":
            files.update(self.instructions(system))
        elif self.has("--system-prompt-file"):
            files["system-prompt.md"] = system or DEFAULT_SYSTEM
            args += ["--system-prompt-file", f"{WORKDIR}/system-prompt.md"]
        elif self.has("--system-prompt"):
            args += ["--system-prompt", system or DEFAULT_SYSTEM]
        else:
            prompt = with_instructions(system, prompt)
        if request.json_schema is not None and self.native_schema(request.json_schema):
            args += ["--json-schema", json.dumps(request.json_schema, ensure_ascii=False)]
        if self.has("--tools"):  # chat: none; agent: read-only tools over its workspace
            args += ["--tools", AGENT_TOOLS if self.mode == "agent" else ""]
        if self.has("--strict-mcp-config"):
            args.append("--strict-mcp-config")
        if self.has("--no-session-persistence"):
            args.append("--no-session-persistence")
        if request.reasoning_effort and self.has("--effort"):
            args += ["--effort", EFFORTS.get(request.reasoning_effort, request.reasoning_effort)]
        return args, files, prompt

    def parse(self, result: CliResult, request: CompletionRequest) -> Completion:
        found = self.result_object(result)
        text = str(found.get("result") or "")
        parsed: Any = found.get("structured_output") if request.json_schema is not None else None
        if parsed is not None:
            text = json.dumps(parsed, ensure_ascii=False)
        u = found.get("usage") or {}
        read = as_int(u.get("cache_read_input_tokens"))
        usage = Usage(
            prompt_tokens=as_int(u.get("input_tokens")) + read + as_int(u.get("cache_creation_input_tokens")),
            completion_tokens=as_int(u.get("output_tokens")),
            cached_tokens=read,
        )
        cost = found.get("total_cost_usd")
        trace = ()
        if self.streams_trace:
            from skillopt_backends.agent_cli.output import json_lines
            from skillopt_backends.agent_cli.trace import claude_steps

            trace = claude_steps(list(json_lines(result.stdout)))
        return Completion(
            trace=trace,
            text=text,
            parsed=parsed,
            usage=usage,
            cost_usd=float(cost) if isinstance(cost, (int, float)) else None,
            latency_s=result.elapsed_s,
            model=_main_model(found.get("modelUsage")) or self.model_name or "claude-cli-default",
            finish_reason="stop",
        )


def _main_model(model_usage: Any) -> str:
    """The model that wrote the answer: Claude Code may also call a small model for
    housekeeping, so take the one with the most output tokens."""
    if not isinstance(model_usage, dict) or not model_usage:
        return ""
    return max(model_usage, key=lambda m: as_int((model_usage[m] or {}).get("outputTokens")))


@hookimpl
def skillopt_register_backends(register):
    register(ClaudeCliBackend, aliases=("claude",))
