"""``copilot-cli``: GitHub Copilot CLI in programmatic mode (``copilot -p … --output-format json``).

Runs on the developer's Copilot plan with no provider key. The output is the CLI's
session-event stream, one JSON object a line; the reply is the ``assistant.message``
events' content. In chat mode the user's custom instructions and the built-in MCP
servers are switched off and no tool is allowed; in agent mode the system text (the
skill) is the workspace's ``.github/copilot-instructions.md``, which the CLI reads. The
prompt travels as the ``-p`` argument (the CLI takes no prompt file), so one prompt is
capped by the OS argument limit. Tools are scoped with ``--available-tools`` (what the
model may see at all): none in chat mode, ``options.available_tools`` in agent mode
(default ``view``, read-only; ``COPILOT_AVAILABLE_TOOLS``); ``--allow-all-tools``, which
waives the approval prompt for those tools, only with ``options.allow_all_tools = true``
(upstream's opt-in ``copilot_exec_allow_all_tools``). ``options.home`` is the CLI's
``COPILOT_HOME`` (an isolated config folder). The CLI reports output tokens at most, so input tokens
are estimated at four characters a token; calls are unpriced (a plan, not per token).
"""

from __future__ import annotations

from skillopt.api import BadRequestError, Completion, CompletionRequest, hookimpl
from skillopt_backends.agent_cli.base import AgentCliBackend, with_instructions
from skillopt_backends.agent_cli.output import as_int, json_lines
from skillopt_backends.agent_cli.process import CliResult

#: Linux refuses a single argument longer than this (MAX_ARG_STRLEN)
MAX_PROMPT_BYTES = 128 * 1024 - 1
AGENT_TOOLS = "view"
EFFORTS = {"none": "low", "minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "xhigh", "max": "xhigh"}


class CopilotCliBackend(AgentCliBackend):
    """GitHub Copilot CLI (Copilot login or a GitHub token)."""

    name = "copilot-cli"
    summary = "GitHub Copilot CLI (`copilot -p`): a Copilot plan; reports no input tokens, so usage is estimated"
    binary_names = ("copilot",)
    path_env = "SKILLOPT_COPILOT_BIN"
    auth_env = ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN", "COPILOT_HOME")
    install_help = "npm install -g @github/copilot"
    login_help = "run `copilot` and /login, or set COPILOT_GITHUB_TOKEN"
    required_flags = ("-p", "--output-format")
    instructions_file = ".github/copilot-instructions.md"

    @classmethod
    def env_vars(cls, role: str, options: dict) -> dict[str, tuple[str, ...]]:
        """Upstream's copilot_exec / copilot_chat variables."""
        spec = {"options.path": (cls.path_env, "COPILOT_EXEC_PATH"), "options.home": ("COPILOT_EXEC_HOME",),
                "timeout_s": ("COPILOT_CHAT_TIMEOUT",)}
        if options.get("mode") == "agent":
            spec.update({"options.allow_all_tools": ("COPILOT_EXEC_ALLOW_ALL_TOOLS",),
                         "options.available_tools": ("COPILOT_AVAILABLE_TOOLS",)})
        else:
            spec["model"] = (f"COPILOT_CHAT_{role.upper()}_MODEL",)
        return spec

    def __init__(self, settings):
        super().__init__(settings)
        home = str(settings.options.get("home") or "").strip()
        if home:
            from pathlib import Path

            self.env = {**self.env, "COPILOT_HOME": str(Path(home).expanduser())}

    def command(self, request: CompletionRequest, system: str, prompt: str) -> tuple[list[str], dict[str, str], str]:
        files: dict[str, str] = {}
        if self.mode == "agent":
            files.update(self.instructions(system))
        else:
            prompt = with_instructions(system, prompt)
        if len(prompt.encode("utf-8")) > MAX_PROMPT_BYTES:
            raise BadRequestError(
                f"{self.where()}: the prompt is {len(prompt.encode('utf-8'))} bytes; the Copilot CLI takes it as one "
                f"command-line argument, which the OS caps at {MAX_PROMPT_BYTES} bytes",
                backend=self.name,
            )
        args = ["-p", prompt, "--output-format", "json"]
        if self.model_name:
            args += ["--model", self.model_name]
        if self.has("--stream"):
            args += ["--stream", "off"]
        if self.mode == "chat" and self.has("--no-custom-instructions"):
            args.append("--no-custom-instructions")
        if self.has("--disable-builtin-mcps"):
            args.append("--disable-builtin-mcps")
        if self.has("--available-tools"):  # what the model may see: nothing in chat mode
            tools = str(self.settings.options.get("available_tools") or AGENT_TOOLS) if self.mode == "agent" else ""
            args.append(f"--available-tools={tools}")
        if self.mode == "agent" and _truthy(self.settings.options.get("allow_all_tools")) and self.has("--allow-all-tools"):
            args.append("--allow-all-tools")
        if request.reasoning_effort and self.has("--effort"):
            args += ["--effort", EFFORTS.get(request.reasoning_effort, "medium")]
        return args, files, ""

    def parse(self, result: CliResult, request: CompletionRequest) -> Completion:
        parts: list[str] = []
        output_tokens = 0
        errors: list[str] = []
        for event in json_lines(result.stdout):
            kind, data = event.get("type"), event.get("data") or {}
            if kind == "assistant.message" and data.get("content"):
                parts.append(str(data["content"]))
                output_tokens += as_int(data.get("outputTokens"))
            elif kind in ("session.error", "error"):
                errors.append(str(data.get("message") or event.get("message") or kind))
        if errors or result.returncode != 0:
            raise self.failure(" | ".join(errors) or result.stderr or result.stdout, exit_code=result.returncode)
        if not parts:
            raise self.malformed("no assistant.message in the event stream")
        return self.unpriced_completion("\n".join(parts), request, result, output_tokens=output_tokens)


def _truthy(value) -> bool:
    return value is True or str(value).strip().lower() in ("1", "true", "yes", "on")


@hookimpl
def skillopt_register_backends(register):
    register(CopilotCliBackend, aliases=("copilot",))
