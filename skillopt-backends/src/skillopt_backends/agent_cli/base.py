"""What every agent-CLI backend shares: finding the binary, probing what it supports,
turning a chat request into one headless run, and classifying its failures.

A subclass says how to phrase the command line (:meth:`AgentCliBackend.command`) and
how to read the CLI's output format (:meth:`AgentCliBackend.parse`). Flags are only
passed when the installed CLI's ``--help`` lists them: upstream once shipped a flag the
CLI did not have, and every call failed. A flag we cannot do without makes the backend
refuse to start, naming the flag and the version found.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any, ClassVar

import attrs

from skillopt.api import (
    AuthError,
    Backend,
    BackendError,
    BackendSettings,
    BadRequestError,
    CallTimeout,
    Cancelled,
    Completion,
    CompletionRequest,
    ConfigError,
    ContextLengthError,
    RateLimitError,
    TransientError,
)
from skillopt_backends.agent_cli.output import result_object
from skillopt_backends.agent_cli.process import CliResult, Killed, ProcessGroups, scrubbed_env
from skillopt_backends.errors import _CONTEXT_MARKERS, _clip
from skillopt_backends.messages import schema_instruction

_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])\b")
_AUTH = ("invalid api key", "/login", "not logged in", "log in", "login required", "authenticat", "unauthorized", " 401", "403 forbidden")
_USAGE_LIMIT = ("usage limit", "limit reached", "quota exceeded", "insufficient_quota", "out of credits")
_RATE = ("429", "rate limit", "rate_limit", "too many requests")
_TRANSIENT = ("overloaded", " 500", " 502", " 503", " 504", " 529", "internal server error", "econnreset", "connection", "network")


def variable_names(value, backend: str, role: str) -> tuple[str, ...]:
    """``options.env_passthrough`` as names: a list, or one string (``X``, or ``X,Y`` as
    ``--backend-option env_passthrough=X,Y`` gives it). A string used to be split into its
    characters, so ``HTTPS_PROXY`` passed ``H``, ``T``, ``P`` ... and never the variable."""
    if value is None or value == "":
        return ()
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(item, str) for item in items):
        raise ConfigError(f"{backend}: model.{role}.options.env_passthrough takes variable names "
                          f"(a list, or one string with commas), not {value!r:.80}")
    return tuple(name.strip() for name in items if name.strip())


@attrs.frozen
class CliProbe:
    """What the installed CLI is: its version line and the flags its help lists."""

    path: str
    version: str
    flags: frozenset[str]


_probe_lock = threading.Lock()
_probes: dict[tuple[str, float, tuple[str, ...]], CliProbe] = {}


def probe_cli(path: str, help_args: tuple[str, ...], env: dict[str, str]) -> CliProbe:
    """``--version`` and ``<help_args>``, once per binary (re-probed when it changes)."""
    key = (path, Path(path).stat().st_mtime, help_args)
    with _probe_lock:
        if key in _probes:
            return _probes[key]

    def text_of(args: list[str]) -> str:
        try:
            done = subprocess.run([path, *args], capture_output=True, text=True, timeout=30, env=env, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ConfigError(f"could not run {path} {' '.join(args)}: {exc}") from None
        return (done.stdout or "") + "\n" + (done.stderr or "")

    version = next((line.strip() for line in text_of(["--version"]).splitlines() if line.strip()), "unknown version")
    flags = frozenset(_FLAG.findall(text_of(list(help_args))))
    found = CliProbe(path=path, version=version, flags=flags)
    with _probe_lock:
        _probes[key] = found
    return found


def render_prompt(request: CompletionRequest) -> tuple[str, str]:
    """(system text, prompt text). A CLI takes one prompt, so a multi-turn
    conversation is written out as a transcript the agent answers the end of."""
    system = "\n\n".join(m.content for m in request.messages if m.role == "system" and m.content)
    turns = [m for m in request.messages if m.role != "system"]
    if not turns:
        raise BadRequestError("the request has no user message")
    if len(turns) == 1:
        return system, turns[0].content
    lines = [f"<{m.role}>\n{m.content}\n</{m.role}>" for m in turns]
    lines.append("Reply as the assistant to the last user turn above. Give only that reply.")
    return system, "\n\n".join(lines)


def with_instructions(system: str, prompt: str) -> str:
    """System text for a CLI with no system-prompt option: it leads the prompt."""
    return f"<instructions>\n{system}\n</instructions>\n\n{prompt}" if system else prompt


def with_skill_files(files: dict[str, str], skill_files) -> tuple[dict[str, str], dict[str, int]]:
    """Agent mode: a folder skill's other files (``references/``, ``scripts/``) join the
    workspace at their paths in the folder, beside the instructions file that holds
    ``SKILL.md``'s body, so the paths ``SKILL.md`` names resolve from the working
    directory. (files, modes); a path that would leave the workspace is refused."""
    if not skill_files:
        return files, {}
    out, modes = dict(files), {}
    for f in skill_files:
        parts = f.path.split("/")
        if f.path.startswith("/") or "\\" in f.path or any(p in ("", ".", "..") for p in parts):
            raise BadRequestError(f"skill file path {f.path!r} would leave the agent's workspace")
        if f.path in out:
            raise BadRequestError(f"skill file {f.path!r} would overwrite the agent's instructions file")
        out[f.path], modes[f.path] = f.content, f.mode
    return out, modes


#: ``chat``: a plain chat turn (tools off, the CLI's own system prompt replaced where it
#: allows). ``agent``: the real agent with its own system prompt and read-only tools, the
#: system text (for the target: the skill) installed as the project instructions file it
#: reads, as the skill would be used in practice.
MODES = ("chat", "agent")


class AgentCliBackend(Backend):
    """Base of the agent-CLI backends (not registered itself)."""

    #: commands to look for on PATH, in order
    binary_names: ClassVar[tuple[str, ...]] = ()
    #: env var that names the binary (beats PATH; ``options.path`` beats it)
    path_env: ClassVar[str] = ""
    #: env vars the CLI may log in with; passed through, all others are scrubbed
    auth_env: ClassVar[tuple[str, ...]] = ()
    #: how to install the CLI, and how to log in
    install_help: ClassVar[str] = ""
    login_help: ClassVar[str] = ""
    #: the arguments that print the help listing the flags we use
    help_args: ClassVar[tuple[str, ...]] = ("--help",)
    #: flags without which the backend cannot work
    required_flags: ClassVar[tuple[str, ...]] = ()
    #: the flag through which the CLI constrains its reply to a JSON schema, if any
    schema_flag: ClassVar[str] = ""
    #: agent mode: the project-instructions file the agent reads from its working directory
    instructions_file: ClassVar[str] = ""

    def __init__(self, settings: BackendSettings):
        super().__init__(settings)
        self.model_name = settings.model or self.default_model
        self.mode = str(settings.options.get("mode", "chat"))
        if self.mode not in MODES:
            raise ConfigError(f"{self.name}: model.{settings.role}.options.mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        #: agent mode: a folder skill's other files are written into the workspace beside the instructions file
        self.installs_skill_files = self.mode == "agent"
        self.env = scrubbed_env(self.auth_env + variable_names(settings.options.get("env_passthrough"), self.name, settings.role))
        self.binary = self._find_binary()
        self.cli = probe_cli(self.binary, self.help_args, self.env)
        missing = [f for f in self.required_flags if f not in self.cli.flags]
        if missing:
            raise ConfigError(
                f"{self.name}: {self.binary} ({self.cli.version}) has no {', '.join(missing)} option; "
                f"update the CLI ({self.install_help})"
            )
        self._groups = ProcessGroups()

    # ------------------------------------------------------------ subclass API

    def command(self, request: CompletionRequest, system: str, prompt: str) -> tuple[list[str], dict[str, str], str]:
        """(argv after the binary, files to write in the working directory, stdin)."""
        raise NotImplementedError

    def parse(self, result: CliResult, request: CompletionRequest) -> Completion:
        """The completion, or raise a classified error (see :meth:`failure`)."""
        raise NotImplementedError

    # ------------------------------------------------------------ call

    def instructions(self, system: str) -> dict[str, str]:
        """Agent mode: the files that carry the system text into the workspace."""
        return {self.instructions_file: system} if system else {}

    def has(self, flag: str) -> bool:
        return flag in self.cli.flags

    def native_schema(self, schema: dict[str, Any]) -> bool:
        """Does the CLI enforce this schema itself? Otherwise the prompt asks for it and
        the call pipeline validates the reply (and re-asks)."""
        return bool(self.schema_flag) and self.has(self.schema_flag)

    def complete(self, request: CompletionRequest) -> Completion:
        if self._groups.closed.is_set():
            raise Cancelled(f"{self.name}: the backend is closed")
        if any(m.images for m in request.messages):
            raise BadRequestError(f"{self.name}: images are not supported through the agent CLI", backend=self.name)
        system, prompt = render_prompt(request)
        if request.json_schema is not None and not self.native_schema(request.json_schema):
            system = "\n\n".join(p for p in (system, schema_instruction(request.json_schema)) if p)
        args, files, stdin = self.command(request, system, prompt)
        modes: dict[str, int] = {}
        if self.mode == "agent":
            files, modes = with_skill_files(files, request.skill_files)
        timeout = request.timeout_s or self.settings.timeout_s
        try:
            result = self._groups.run([self.binary, *args], stdin=stdin, env=self.env, timeout_s=timeout, files=files,
                                      modes=modes)
        except Killed as killed:
            if killed.reason == "timeout":
                raise CallTimeout(
                    f"{self.where()}: no answer within timeout_s={timeout:g} (raise model.{self.settings.role}.timeout_s "
                    f"for long agent runs)",
                    backend=self.name,
                ) from None
            raise Cancelled(f"{self.name}: call cancelled because the backend was closed") from None
        return self.parse(result, request)

    def close(self) -> None:
        """Kill every CLI run in flight (its whole process group) and refuse new calls."""
        self._groups.kill_all()

    def identity(self) -> dict[str, Any]:
        # The CLI version is part of the cache key: an updated agent may answer differently.
        found = {"backend": self.name, "model": self.model_name or "cli-default", "cli": self.cli.version}
        if self.mode != "chat":
            found["mode"] = self.mode
        return found

    # ------------------------------------------------------------ helpers

    def where(self) -> str:
        return f"{self.name} ({self.settings.role}, model {self.model_name or 'CLI default'})"

    def result_object(self, result: CliResult) -> dict[str, Any]:
        """The ``{"type": "result"}`` object of a successful ``--output-format json`` run
        (Claude Code and Cursor share this shape), or raise the classified failure."""
        found = result_object(result.stdout)
        if found is None:
            if result.returncode != 0:
                raise self.failure(result.stderr or result.stdout, exit_code=result.returncode)
            raise self.malformed("no result object in the CLI output")
        if found.get("is_error") or found.get("subtype", "success") != "success" or result.returncode != 0:
            said = str(found.get("result") or "") or str(found.get("subtype") or "") or result.stderr
            raise self.failure(said, exit_code=result.returncode)
        return found

    def unpriced_completion(self, text: str, request: CompletionRequest, result: CliResult, *, output_tokens: int = 0) -> Completion:
        """A reply from a CLI that reports no input tokens (and maybe no output tokens):
        both are estimated at four characters a token so budgets still bite; no price."""
        from skillopt.api import Usage
        from skillopt_backends.openai_chat import estimate_tokens

        prompt_chars = sum(len(m.content) for m in request.messages)
        usage = Usage(prompt_tokens=max(1, prompt_chars // 4), completion_tokens=output_tokens or estimate_tokens(text))
        return Completion(
            text=text, usage=usage, cost_usd=None, latency_s=result.elapsed_s,
            model=self.model_name or f"{self.name}-default", finish_reason="stop",
        )

    def malformed(self, what: str) -> TransientError:
        """A run that exited cleanly but printed something we cannot read."""
        return TransientError(f"{self.where()}: malformed CLI output ({self.cli.version}): {what}", backend=self.name)

    def failure(self, text: str, *, exit_code: int | None = None) -> BackendError:
        """The classified error for what a failed run printed."""
        lowered = " " + " ".join(text.lower().split())
        detail = _clip(text) or f"exit code {exit_code}"
        b = self.name
        if any(m in lowered for m in _USAGE_LIMIT):
            return BackendError(
                f"{self.where()}: the subscription's usage limit is reached; wait for it to reset or use an API "
                f"backend. CLI said: {detail}",
                backend=b,
            )
        if any(m in lowered for m in _AUTH):
            return AuthError(f"{self.where()}: the CLI is not logged in or its key was refused; {self.login_help}. CLI said: {detail}", backend=b)
        if any(m in lowered for m in _CONTEXT_MARKERS):
            return ContextLengthError(f"{self.where()}: the prompt does not fit the model's context. CLI said: {detail}", backend=b)
        if any(m in lowered for m in _RATE):
            return RateLimitError(f"{self.where()}: rate limited. CLI said: {detail}", backend=b)
        # Unknown failures are retried a bounded number of times: a CLI crash or a
        # dropped connection is usually gone on the next run.
        kind = "transient failure" if any(m in lowered for m in _TRANSIENT) else "the CLI failed"
        return TransientError(f"{self.where()}: {kind} (exit code {exit_code}). CLI said: {detail}", backend=b)

    def _find_binary(self) -> str:
        given = str(self.settings.options.get("path") or os.environ.get(self.path_env) or "")
        if given:
            found = shutil.which(os.path.expanduser(given))
            if not found:
                raise ConfigError(f"{self.name}: {given} (from model.{self.settings.role}.options.path or {self.path_env}) is not an executable")
            return found
        for candidate in self.binary_names:
            found = shutil.which(candidate)
            if found:
                return found
        raise ConfigError(
            f"{self.name}: the {' / '.join(self.binary_names)} command is not on PATH; install it ({self.install_help}) "
            f"or name it with {self.path_env}=… or the setting model.{self.settings.role}.options.path"
        )
