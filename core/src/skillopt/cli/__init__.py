"""The ``skillopt`` command line.

Only typer is imported at module level; every command imports what it needs inside
its body, and plugin modules are imported only when a command names them, so
``skillopt --help`` stays fast and never imports an env or a backend. Help is plain
text (typer's rich help imports rich's markdown and table renderers: half the time of
``skillopt --help``), and a built-in command builds only itself, without the command
plugins (``skillopt run`` reaches its first model call that much sooner).
"""

import sys
from collections.abc import Callable
from typing import Any

import typer
from typer.core import TyperGroup

from skillopt.cli import blame_cmd, check_cmd, config_cmd, export_cmd, keys_cmd, listing, report_cmd, run_cmd, runs_cmd, ui_cmd

#: the built-in commands: (name, command function) and (name, sub-app)
COMMANDS: dict[str, Callable[[], Callable[..., Any]]] = {
    "run": lambda: run_cmd.run, "eval": lambda: run_cmd.eval_, "check": lambda: check_cmd.check,
    "export": lambda: export_cmd.export, "blame": lambda: blame_cmd.blame, "envs": lambda: listing.envs,
    "backends": lambda: listing.backends, "plugins": lambda: listing.plugins, "ui": lambda: ui_cmd.ui,
    "report": lambda: report_cmd.report}
GROUPS: dict[str, Callable[[], typer.Typer]] = {
    "config": lambda: config_cmd.app, "keys": lambda: keys_cmd.app, "runs": lambda: runs_cmd.app}


def _root_group() -> type[TyperGroup]:
    """The root command group: upstream's argv rewritten first (:mod:`skillopt.cli.argv`),
    and the chosen command's help texts (a plugin command's too) printing every bracket
    they hold (see :func:`skillopt.richtext.escape_help`)."""
    from skillopt.cli.argv import UpstreamArgvGroup

    class RootGroup(UpstreamArgvGroup):
        # click's signature; Any: typer's vendored click (typer._click) is private
        def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
            # escaped when a command is chosen (its help may be shown next), not when the
            # tree is built: the root's own help is plain text, and rich's markup module
            # is a fifth of ``skillopt --help``
            name, command, rest = super().resolve_command(ctx, args)
            if command is not None and not getattr(command, "_skillopt_escaped", False):
                from skillopt.richtext import escape_help

                escape_help(command)
                command._skillopt_escaped = True  # type: ignore[attr-defined]  # our marker on click's Command (setattr: B010)
            return name, command, rest

    return RootGroup


def _root(
    no_dotenv: bool = typer.Option(False, "--no-dotenv", help="Do not read ./.env (variables for providers and backends)."),
) -> None:
    """Train an agent's skill document like weights: rollout, reflect, edit, gate."""
    import os

    if no_dotenv or os.environ.get("SKILLOPT_NO_DOTENV", "") not in ("", "0"):
        return
    from pathlib import Path

    from skillopt.cli.output import fail
    from skillopt.config.environ import load_dotenv
    from skillopt.errors import ConfigError

    try:
        load_dotenv(Path.cwd() / ".env")
    except ConfigError as exc:
        raise fail(str(exc)) from None


def make_app(*, plugins: bool = True, only: str = "") -> typer.Typer:
    """A fresh ``skillopt`` app: the built-in commands plus (``plugins``) what the
    ``skillopt.commands`` plugins of the current plugin host attach. One app per
    invocation, so a command registered in one test never leaks into the next.
    ``only``: just that built-in command (the one being run)."""
    root = typer.Typer(
        cls=_root_group(),
        name="skillopt",
        help="Train an agent's skill document like weights: rollout, reflect, edit, gate.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )
    root.callback()(_root)  # also makes a group of one command (``only``) keep the command's name
    for name, command in COMMANDS.items():
        if not only or name == only:
            root.command(name)(command())
    for name, group in GROUPS.items():
        if not only or name == only:
            root.add_typer(group(), name=name)
    if plugins:
        from skillopt.cli.plugin_commands import register_plugin_commands
        from skillopt.plugins import get_host

        host = get_host()
        host.load_kind("commands")
        register_plugin_commands(root, host)  # a name clash is refused and reported, never resolved silently
    return root


def __getattr__(name: str) -> typer.Typer:
    """``app``: the built-in commands only (documentation tools and tests that introspect
    them); running the CLI builds its own app with :func:`make_app`."""
    if name == "app":
        return make_app(plugins=False)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: list[str] | None = None) -> None:
    from skillopt.errors import SkillOptError

    args = list(sys.argv[1:] if argv is None else argv)
    first = args[0] if args else ""
    app = make_app(plugins=False, only=first) if first in COMMANDS or first in GROUPS else make_app()
    try:
        app(args=args, prog_name="skillopt", standalone_mode=True)
    except SkillOptError as exc:  # pragma: no cover - typer handles most exits itself
        sys.stderr.write(f"error: {exc}\n")
        raise SystemExit(2) from None


#: allocations between two young-generation collections in the ``skillopt`` process
#: (CPython's default is 700): see :func:`tune_collector`
YOUNG_GENERATION_THRESHOLD = 7000


def tune_collector() -> None:
    """Collect the young generation every :data:`YOUNG_GENERATION_THRESHOLD` allocations.

    A run's start allocates hundreds of thousands of objects that all live until the
    process ends (the SDK's types, pydantic schemas, our attrs classes): at CPython's 700,
    importing them alone took over 200 young, 18 middle and one full collection, each
    finding nothing to free. Side by side with the default (benchmarks/README.md, "Start
    of a run"), 0.96x of the wall time and 0.94x of the CPU of a run at zero latency.
    The collector stays on: cycles are still freed, a little later."""
    import gc

    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG_GENERATION_THRESHOLD), middle, old)


def console_main() -> None:
    """The ``skillopt`` program (console script and ``python -m skillopt``): the collector
    tuned for a short process (:func:`tune_collector`), :func:`main`, then a process exit
    that skips the interpreter's final collection of every object the SDKs and the run
    created, 0.22 s of a 2.2 s run (benchmarks/upstream_workload.py). Safe because the
    command has closed its files, caches and clients by then; embedding applications
    call :func:`main` and keep their garbage collector as they set it."""
    import gc

    tune_collector()
    try:
        main()
    finally:
        gc.disable()
        gc.freeze()


__all__ = ["app", "console_main", "main", "make_app", "tune_collector"]
