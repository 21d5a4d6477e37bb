"""What a tool call does, independent of the MCP SDK: check, run the CLI, read its JSON.

Every way out is either the command's JSON result (redacted) or a :class:`ToolFailure`
whose message is the CLI's own error text (redacted), never a traceback.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from skillopt_mcp.arguments import build_argv, check_arguments, confine_new_files, resolve_project
from skillopt_mcp.catalog import catalog
from skillopt_mcp.errors import ToolFailure
from skillopt_mcp.redaction import redact_message, redact_result
from skillopt_mcp.runner import OutputTooLarge, TimedOut, run_cli
from skillopt_mcp.spec import ToolSpec

MESSAGE_LIMIT = 4000
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


async def call_tool(name: str, arguments: Any) -> str:
    """The tool's result as JSON text; raises :class:`ToolFailure` with a redacted message."""
    try:
        return await _call(name, arguments)
    except ToolFailure as failure:
        raise ToolFailure(redact_message(str(failure))[:MESSAGE_LIMIT]) from None
    except Exception as exc:  # noqa: BLE001 - a bug here: say what, without a traceback or a secret
        message = redact_message(f"internal error in skillopt-mcp ({type(exc).__name__}): {exc}")[:MESSAGE_LIMIT]
        sys.stderr.write(message + "\n")
        raise ToolFailure(message) from None


async def _call(name: str, arguments: Any) -> str:
    spec = catalog().get(name)
    if spec is None:
        raise ToolFailure(f"unknown tool {name!r}; available: {', '.join(catalog())}")
    arguments = check_arguments(spec, arguments)
    project = resolve_project(arguments["project"]) if spec.takes_project else None
    arguments = confine_new_files(spec, arguments, project)
    argv = build_argv(spec, arguments, project)
    timeout = float(arguments.get("timeout_seconds", spec.timeout))
    label = "skillopt " + " ".join(spec.command)
    try:
        done = await run_cli(argv, cwd=project, timeout=timeout)
    except TimedOut as exc:
        raise ToolFailure(
            f"`{label}` {exc}; it was interrupted and staged nothing. Give it more time (timeout_seconds), "
            "a budget (max_calls, max_tasks), or run it from a terminal or `skillopt sleep schedule`."
        ) from None
    except OutputTooLarge as exc:
        raise ToolFailure(f"`{label}` was stopped: {exc}") from None
    except OSError as exc:
        raise ToolFailure(f"could not start `{label}`: {exc.strerror or exc}") from None
    return interpret(spec, label, done.exit_code, done.stdout, done.stderr)


def interpret(spec: ToolSpec, label: str, exit_code: int, stdout: str, stderr: str) -> str:
    if exit_code not in spec.ok_exit_codes:
        raise ToolFailure(f"`{label}` failed (exit {exit_code}): {cli_error(stderr, stdout)}")
    try:
        data = json.loads(stdout)
    except ValueError:
        raise ToolFailure(f"`{label}` printed no JSON result: {cli_error(stderr, stdout)}") from None
    return json.dumps(redact_result(data), indent=2, ensure_ascii=False)


def cli_error(stderr: str, stdout: str = "") -> str:
    """The useful part of the CLI's error output: its ``error:`` message, a usage error,
    or, if the CLI crashed, only the exception's last line (never the traceback)."""
    text = _ANSI.sub("", stderr).strip()
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    if not lines:
        return (stdout.strip().splitlines() or ["no error message"])[-1][:MESSAGE_LIMIT]
    if any(line.startswith("Traceback (most recent call last)") for line in lines):
        return "the command crashed: " + lines[-1]
    for index, line in enumerate(lines):
        if line.lower().startswith("error:"):
            return " ".join(part.strip() for part in lines[index:])[len("error:") :].strip()
    for line in lines:  # click usage errors: "Error: No such option ..." inside a box
        stripped = line.strip("│ ").strip()
        if stripped.startswith("Error") or stripped.startswith("Invalid value"):
            return stripped
    return " ".join(lines[-5:])
