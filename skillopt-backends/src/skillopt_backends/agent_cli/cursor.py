"""``cursor-cli``: the Cursor agent headless (``cursor-agent -p --output-format json``).

Runs on the developer's Cursor plan (or ``CURSOR_API_KEY``) inside a throwaway
workspace: in chat mode as Cursor's read-only ask mode with system text leading the
prompt, in agent mode as the agent with the system text as an always-applied project
rule (``.cursor/rules/skillopt.mdc``). The Cursor CLI reports no token counts, so usage is
estimated at four characters a token: budgets still bite, and the estimate is said in
the backend summary. Schemas are asked for in the prompt and validated by the call
pipeline, which re-asks on a broken reply.
"""

from __future__ import annotations

from skillopt.api import Completion, CompletionRequest, hookimpl
from skillopt_backends.agent_cli.base import AgentCliBackend, with_instructions
from skillopt_backends.agent_cli.process import WORKDIR, CliResult


class CursorCliBackend(AgentCliBackend):
    """Cursor agent CLI (Cursor login or CURSOR_API_KEY)."""

    name = "cursor-cli"
    summary = "Cursor agent CLI (`cursor-agent -p`): a Cursor plan; reports no tokens, so usage is estimated"
    binary_names = ("cursor-agent",)
    path_env = "SKILLOPT_CURSOR_BIN"
    auth_env = ("CURSOR_API_KEY",)
    install_help = "curl https://cursor.com/install -fsS | bash"
    login_help = "run `cursor-agent login`, or set CURSOR_API_KEY"
    required_flags = ("--print", "--output-format")
    instructions_file = ".cursor/rules/skillopt.mdc"

    @classmethod
    def env_vars(cls, role: str, options: dict) -> dict[str, tuple[str, ...]]:
        return {"options.path": (cls.path_env, "CURSOR_EXEC_PATH")}

    def command(self, request: CompletionRequest, system: str, prompt: str) -> tuple[list[str], dict[str, str], str]:
        args = ["-p", "--output-format", "json"]
        if self.model_name:
            args += ["--model", self.model_name]
        if self.has("--mode") and self.mode == "chat":
            args += ["--mode", "ask"]
        if self.has("--workspace"):
            args += ["--workspace", WORKDIR]
        if self.has("--sandbox"):
            args += ["--sandbox", "enabled"]
        if self.has("--trust"):
            args.append("--trust")
        if self.mode == "agent":
            return args, self.instructions(system), prompt
        return args, {}, with_instructions(system, prompt)

    def instructions(self, system: str) -> dict[str, str]:
        """A project rule that always applies (Cursor's ``.mdc`` front matter)."""
        if not system:
            return {}
        return {self.instructions_file: f"---\ndescription: SkillOpt skill under test\nalwaysApply: true\n---\n{system}\n"}

    def parse(self, result: CliResult, request: CompletionRequest) -> Completion:
        found = self.result_object(result)
        return self.unpriced_completion(str(found.get("result") or ""), request, result)


@hookimpl
def skillopt_register_backends(register):
    register(CursorCliBackend, aliases=("cursor",))
