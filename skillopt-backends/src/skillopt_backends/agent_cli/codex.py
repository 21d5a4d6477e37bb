"""``codex-cli``: the Codex CLI headless (``codex exec --json``).

Runs on the developer's ChatGPT plan (or ``OPENAI_API_KEY``) in a read-only sandbox
(``options.sandbox``: ``workspace-write`` lets the agent write in its throwaway
directory, as upstream's codex_exec default; ``danger-full-access``) inside a throwaway
directory, without persisting a session. The reply is the last
``agent_message`` of the JSON-lines event stream and usage comes from
``turn.completed``. Codex has no system-prompt flag, so in chat mode system text leads
the prompt; in agent mode it is the workspace's ``AGENTS.md``.
JSON schemas that meet OpenAI's strict rules go through ``--output-schema``; others
are asked for in the prompt and validated by the call pipeline.
"""

from __future__ import annotations

import json
from typing import Any

from skillopt.api import Completion, CompletionRequest, Usage, hookimpl
from skillopt_backends import prices
from skillopt_backends.agent_cli.base import AgentCliBackend, with_instructions
from skillopt_backends.agent_cli.output import as_int, json_lines
from skillopt_backends.agent_cli.process import WORKDIR, CliResult
from skillopt_backends.capabilities import strict_schema_ok

EFFORTS = {"none": "minimal", "minimal": "minimal", "low": "low", "medium": "medium", "high": "high", "xhigh": "high", "max": "high"}
MESSAGE_ITEMS = ("agent_message", "assistant_message")
SANDBOXES = ("read-only", "workspace-write", "danger-full-access")


class CodexCliBackend(AgentCliBackend):
    """OpenAI Codex CLI (ChatGPT login or OPENAI_API_KEY)."""

    name = "codex-cli"
    summary = "OpenAI Codex CLI headless (`codex exec --json`): a ChatGPT plan, no API key needed"
    binary_names = ("codex",)
    path_env = "SKILLOPT_CODEX_BIN"
    auth_env = ("OPENAI_API_KEY", "CODEX_API_KEY", "CODEX_HOME", "OPENAI_BASE_URL")
    install_help = "npm install -g @openai/codex"
    login_help = "run `codex login`, or set OPENAI_API_KEY"
    help_args = ("exec", "--help")
    required_flags = ("--json",)
    schema_flag = "--output-schema"
    instructions_file = "AGENTS.md"

    @classmethod
    def env_vars(cls, role: str, options: dict[str, Any]) -> dict[str, tuple[str, ...]]:
        """Upstream's codex_exec variables (and their aliases)."""
        return {"options.path": (cls.path_env, "CODEX_EXEC_PATH", "CODEX_CLI_BIN", "CODEX_PATH"),
                "options.sandbox": ("CODEX_EXEC_SANDBOX", "CODEX_SANDBOX_MODE", "CODEX_SANDBOX")}

    def __init__(self, settings):
        from skillopt.api import ConfigError

        self.sandbox = str(settings.options.get("sandbox") or "read-only").strip()
        if self.sandbox not in SANDBOXES:
            raise ConfigError(f"codex-cli: model.{settings.role}.options.sandbox must be one of {', '.join(SANDBOXES)}, "
                              f"not {self.sandbox!r}")
        super().__init__(settings)

    def native_schema(self, schema: dict[str, Any]) -> bool:
        return super().native_schema(schema) and strict_schema_ok(schema)

    def command(self, request: CompletionRequest, system: str, prompt: str) -> tuple[list[str], dict[str, str], str]:
        args = ["exec", "--json"]
        files: dict[str, str] = {}
        for flag in ("--skip-git-repo-check", "--ephemeral"):
            if self.has(flag):
                args.append(flag)
        if self.has("--sandbox"):
            args += ["--sandbox", self.sandbox]
        if self.has("--color"):
            args += ["--color", "never"]
        if self.model_name:
            args += ["--model", self.model_name]
        if request.json_schema is not None and self.native_schema(request.json_schema):
            files["reply-schema.json"] = json.dumps(request.json_schema, ensure_ascii=False)
            args += ["--output-schema", f"{WORKDIR}/reply-schema.json"]
        if request.reasoning_effort and self.has("--config"):
            args += ["--config", f'model_reasoning_effort="{EFFORTS.get(request.reasoning_effort, "medium")}"']
        args.append("-")  # the prompt comes on stdin
        if self.mode == "agent":  # Codex reads AGENTS.md from its working directory
            files.update(self.instructions(system))
        else:
            prompt = with_instructions(system, prompt)
        return args, files, prompt

    def parse(self, result: CliResult, request: CompletionRequest) -> Completion:
        text: str | None = None
        usage: dict[str, Any] = {}
        errors: list[str] = []
        events = list(json_lines(result.stdout))
        for event in events:
            kind = event.get("type")
            item = event.get("item") or {}
            if kind == "item.completed" and item.get("type") in MESSAGE_ITEMS:
                text = str(item.get("text") or "")
            elif kind == "turn.completed":
                usage = event.get("usage") or {}
            elif kind == "turn.failed":
                errors.append(str((event.get("error") or {}).get("message") or "turn failed"))
            elif kind == "error":
                errors.append(str(event.get("message") or "error"))
        if errors or result.returncode != 0:
            raise self.failure(" | ".join(errors) or result.stderr or result.stdout, exit_code=result.returncode)
        if text is None:
            raise self.malformed("no agent_message in the event stream")
        parsed: Any = None
        if request.json_schema is not None and self.native_schema(request.json_schema):
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError:
                parsed = None  # the pipeline re-parses and re-asks
        counted = Usage(
            prompt_tokens=as_int(usage.get("input_tokens")),
            completion_tokens=as_int(usage.get("output_tokens")),
            cached_tokens=as_int(usage.get("cached_input_tokens")),
            reasoning_tokens=as_int(usage.get("reasoning_output_tokens")),
        )
        model = self.model_name or "codex-cli-default"
        from skillopt_backends.agent_cli.trace import codex_steps, trace_on

        return Completion(
            trace=codex_steps(events) if trace_on(dict(self.settings.options), self.mode) else (),
            text=text,
            parsed=parsed,
            usage=counted,
            cost_usd=prices.cost_usd(model, counted) if self.model_name else None,
            latency_s=result.elapsed_s,
            model=model,
            finish_reason="stop",
        )


@hookimpl
def skillopt_register_backends(register):
    register(CodexCliBackend, aliases=("codex",))
