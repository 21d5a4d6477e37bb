"""``pi-cli``: the pi coding agent headless (``pi -p --mode json --no-session``).

Runs on whatever provider the developer logged pi into (``~/.pi/agent/auth.json``,
``PI_CODING_AGENT_DIR`` moves it). Sessions are never saved (``--no-session``), so
these calls never show up in ``~/.pi/agent/sessions`` for ``skillopt sleep`` to
harvest. In chat mode tools, skills, context files, extensions, prompt templates and
themes are all switched off and the system text replaces pi's own system prompt
(``--system-prompt``; when it is too long for one command-line argument it leads the
prompt instead); in agent mode pi keeps its own system prompt, gets read-only tools
(``--tools read,grep,find,ls``) and reads the system text (the skill) from
``AGENTS.md`` in its workspace. The reply is the last assistant message of the
``--mode json`` event stream; usage and cost come from its ``usage`` (pi prices each
call from its model table). pi has no schema option: schemas are asked for in the
prompt and validated by the call pipeline, which re-asks on a broken reply.
"""

from __future__ import annotations

from typing import Any

from skillopt.api import Completion, CompletionRequest, Usage, hookimpl
from skillopt_backends.agent_cli.base import AgentCliBackend, with_instructions
from skillopt_backends.agent_cli.output import as_int, json_lines
from skillopt_backends.agent_cli.process import CliResult

#: Linux refuses a single argument longer than this (MAX_ARG_STRLEN)
MAX_ARG_BYTES = 128 * 1024 - 1
AGENT_TOOLS = "read,grep,find,ls"
#: switched off in chat mode: everything pi would otherwise load from the user's setup
CHAT_OFF = ("--no-tools", "--no-skills", "--no-context-files", "--no-extensions", "--no-prompt-templates", "--no-themes")
AGENT_OFF = ("--no-skills", "--no-extensions", "--no-prompt-templates", "--no-themes")
FAILED_STOPS = ("error", "aborted")


class PiCliBackend(AgentCliBackend):
    """pi coding agent CLI (any provider pi is logged into)."""

    name = "pi-cli"
    summary = "pi coding agent (`pi -p --mode json`): the providers pi is logged into; sessions not saved"
    binary_names = ("pi",)
    path_env = "SKILLOPT_PI_BIN"
    auth_env = ("PI_CODING_AGENT_DIR",)
    install_help = "npm install -g @mariozechner/pi-coding-agent"
    login_help = "run `pi` and /login (or put the provider's key in ~/.pi/agent/auth.json)"
    required_flags = ("--print", "--mode", "--no-session")
    instructions_file = "AGENTS.md"

    def __init__(self, settings):
        super().__init__(settings)
        # a replay talks to the model provider only: no update check, no telemetry
        self.env = {**self.env, "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0"}

    def command(self, request: CompletionRequest, system: str, prompt: str) -> tuple[list[str], dict[str, str], str]:
        args = ["-p", "--mode", "json", "--no-session"]
        files: dict[str, str] = {}
        if self.model_name:
            args += ["--model", self.model_name]
        if self.mode == "agent":
            args += [flag for flag in AGENT_OFF if self.has(flag)]
            if self.has("--tools"):
                args += ["--tools", AGENT_TOOLS]
            files.update(self.instructions(system))
        else:
            args += [flag for flag in CHAT_OFF if self.has(flag)]
            if system and self.has("--system-prompt") and len(system.encode("utf-8")) <= MAX_ARG_BYTES:
                args += ["--system-prompt", system]
            else:
                prompt = with_instructions(system, prompt)
        if request.reasoning_effort and self.has("--thinking"):
            effort = request.reasoning_effort
            args += ["--thinking", {"none": "off", "max": "high", "xhigh": "high"}.get(effort, effort)]
        return args, files, prompt  # the prompt comes on stdin

    def parse(self, result: CliResult, request: CompletionRequest) -> Completion:
        final: dict[str, Any] | None = None
        prompt_tokens = completion_tokens = cached = 0
        cost = 0.0
        priced = False
        for event in json_lines(result.stdout):
            message = event.get("message") if isinstance(event.get("message"), dict) else {}
            if event.get("type") != "message_end" or message.get("role") != "assistant":
                continue
            final = message
            usage = message.get("usage") if isinstance(message.get("usage"), dict) else {}
            prompt_tokens += as_int(usage.get("input")) + as_int(usage.get("cacheRead")) + as_int(usage.get("cacheWrite"))
            completion_tokens += as_int(usage.get("output"))
            cached += as_int(usage.get("cacheRead"))
            total = (usage.get("cost") or {}).get("total") if isinstance(usage.get("cost"), dict) else None
            if isinstance(total, (int, float)):
                cost, priced = cost + float(total), True
        if final is not None and final.get("stopReason") in FAILED_STOPS:
            raise self.failure(str(final.get("errorMessage") or final.get("stopReason")), exit_code=result.returncode)
        if result.returncode != 0:
            raise self.failure(result.stderr or result.stdout, exit_code=result.returncode)
        if final is None:
            raise self.malformed("no assistant message_end in the event stream")
        text = "".join(
            str(block.get("text") or "")
            for block in final.get("content") or []
            if isinstance(block, dict) and block.get("type") == "text"
        )
        usage = Usage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, cached_tokens=cached)
        return Completion(
            text=text,
            usage=usage,
            cost_usd=cost if priced else None,
            latency_s=result.elapsed_s,
            model=str(final.get("model") or self.model_name or "pi-default"),
            finish_reason="stop",
        )


@hookimpl
def skillopt_register_backends(register):
    register(PiCliBackend, aliases=("pi",))
