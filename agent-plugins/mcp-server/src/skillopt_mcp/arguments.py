"""From a tool call's raw arguments to a checked ``skillopt`` argument list.

The MCP SDK may or may not validate arguments against the advertised schema (1.x does
by default, 2.x's low-level server does not), so the server validates every call
itself, with the same schema it advertises. Values reach the CLI as ``--flag=value``
items of an argument list, never through a shell, so no value can be read as another
option.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skillopt_mcp.errors import ToolFailure
from skillopt_mcp.spec import NEW_FILE, PAIRS, POSITIONAL, REPEAT, SWITCH, VALUE, ToolSpec

CONFIRM_REFUSAL = (
    "{tool} changes live instruction files, so it needs confirm: true. Show the user what it changes "
    "(sleep_diff / sleep_status), ask them, and call again with confirm: true only if they agree."
)


def check_arguments(spec: ToolSpec, arguments: Any) -> dict[str, Any]:
    """The arguments, or a :class:`ToolFailure` naming every problem (at most five)."""
    from jsonschema import Draft202012Validator

    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ToolFailure(f"{spec.name}: arguments must be a JSON object")
    if spec.needs_confirm and arguments.get("confirm") is not True:
        raise ToolFailure(CONFIRM_REFUSAL.format(tool=spec.name))
    validator = Draft202012Validator(spec.input_schema())
    errors = sorted(validator.iter_errors(arguments), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        problems = "; ".join(_describe(e) for e in errors[:5])
        more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        raise ToolFailure(f"{spec.name}: invalid arguments: {problems}{more}")
    return arguments


def _describe(error) -> str:
    where = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "pattern" and where:
        return f"{where} has characters or a shape that is not allowed"
    return f"{where}: {error.message}" if where else error.message


def resolve_project(raw: str) -> Path:
    """An existing project directory as an absolute path, or a clear refusal."""
    shown = repr(raw) if len(raw) <= 200 else repr(raw[:200]) + f"... ({len(raw):,} characters)"
    path = Path(raw).expanduser()
    if not path.is_absolute():
        path = Path.cwd() / path
    try:
        if not path.exists():
            raise ToolFailure(f"project {shown} does not exist: pass the absolute path of an existing project directory")
        if not path.is_dir():
            raise ToolFailure(f"project {shown} is not a directory: pass the project's folder, not a file")
        return path.resolve()
    except OSError as exc:  # a name too long, a loop of symlinks, no permission
        raise ToolFailure(f"project {shown} cannot be read ({exc.strerror or exc})") from None


def confine_new_files(spec: ToolSpec, arguments: dict[str, Any], project: Path | None) -> dict[str, Any]:
    """``arguments`` with each NEW_FILE value made the absolute path of a file that does not
    exist yet inside ``project``, or a refusal: a tool a model calls must not overwrite a
    file, nor write outside the project (through ``..``, an absolute path or a symlink)."""
    out = dict(arguments)
    for param in spec.params:
        if param.style != NEW_FILE or param.name not in arguments:
            continue
        if project is None:
            raise ToolFailure(f"{spec.name}: {param.name} needs a project")
        raw = str(arguments[param.name])
        path = Path(raw).expanduser()
        path = path if path.is_absolute() else project / path
        target = path.parent.resolve() / path.name
        if not target.is_relative_to(project):
            raise ToolFailure(f"{param.name} {raw!r} is outside the project {project}; name a file inside it")
        if target.is_symlink() or target.exists():
            raise ToolFailure(f"{param.name} {raw!r} already exists; name a new file (this tool never overwrites one)")
        out[param.name] = str(target)
    return out


def _cli_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def build_argv(spec: ToolSpec, arguments: dict[str, Any], project: Path | None) -> list[str]:
    """The ``skillopt`` arguments (after the program name) for a checked call."""
    argv = list(spec.command)
    if project is not None:
        argv.append(f"--project={project}")
    positional: list[str] = []
    for param in spec.params:
        if param.flag is None and param.style != POSITIONAL:
            continue  # handled by the server (project, confirm, timeout_seconds)
        if param.name not in arguments:
            continue
        value = arguments[param.name]
        if param.style in (VALUE, NEW_FILE):
            argv.append(f"{param.flag}={_cli_text(value)}")
        elif param.style == SWITCH:
            if value:
                argv.append(param.flag)
        elif param.style == REPEAT:
            argv.extend(f"{param.flag}={_cli_text(item)}" for item in value)
        elif param.style == PAIRS:
            argv.extend(f"{param.flag}={key}={_cli_text(item)}" for key, item in value.items())
        elif param.style == POSITIONAL:
            positional.append(_cli_text(value))
    argv.append("--json")
    if positional:
        argv += ["--", *positional]
    return argv
