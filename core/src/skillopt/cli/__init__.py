"""The ``skillopt`` command line.

Only typer is imported at module level; every command imports what it needs inside
its body, and plugin modules are imported only when a command names them, so
``skillopt --help`` stays fast and never imports an env or a backend.
"""

from __future__ import annotations

from typing import Any

import sys

import typer
from typer.core import TyperGroup

from skillopt.cli import blame_cmd, check_cmd, config_cmd, export_cmd, keys_cmd, listing, report_cmd, run_cmd, runs_cmd, ui_cmd


def _root_group() -> type[TyperGroup]:
    """The root command group: upstream's argv rewritten first (:mod:`skillopt.cli.argv`),
    and its tree's help texts (plugin commands' too) printing every bracket they hold
    (see :func:`skillopt.richtext.escape_help`)."""
    from skillopt.cli.argv import UpstreamArgvGroup

    class RootGroup(UpstreamArgvGroup):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            from skillopt.richtext import escape_help

            escape_help(self)

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


def make_app(*, plugins: bool = True) -> typer.Typer:
    """A fresh ``skillopt`` app: the built-in commands plus (``plugins``) what the
    ``skillopt.commands`` plugins of the current plugin host attach. One app per
    invocation, so a command registered in one test never leaks into the next."""
    root = typer.Typer(
        cls=_root_group(),
        name="skillopt",
        help="Train an agent's skill document like weights: rollout, reflect, edit, gate.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    root.callback()(_root)
    root.command("run")(run_cmd.run)
    root.command("eval")(run_cmd.eval_)
    root.command("check")(check_cmd.check)
    root.command("export")(export_cmd.export)
    root.command("blame")(blame_cmd.blame)
    root.command("envs")(listing.envs)
    root.command("backends")(listing.backends)
    root.command("plugins")(listing.plugins)
    root.command("ui")(ui_cmd.ui)
    root.command("report")(report_cmd.report)
    root.add_typer(config_cmd.app, name="config")
    root.add_typer(keys_cmd.app, name="keys")
    root.add_typer(runs_cmd.app, name="runs")
    if plugins:
        from skillopt.cli.plugin_commands import register_plugin_commands
        from skillopt.plugins import get_host

        host = get_host()
        host.load_kind("commands")
        register_plugin_commands(root, host)  # a name clash is refused and reported, never resolved silently
    return root


#: the built-in commands only (documentation tools and tests that introspect them);
#: running the CLI builds its own app with :func:`make_app`
app = make_app(plugins=False)


def main(argv: list[str] | None = None) -> None:
    from skillopt.errors import SkillOptError

    try:
        make_app()(args=argv, prog_name="skillopt", standalone_mode=True)
    except SkillOptError as exc:  # pragma: no cover - typer handles most exits itself
        sys.stderr.write(f"error: {exc}\n")
        raise SystemExit(2) from None


def console_main() -> None:
    """The ``skillopt`` program (console script and ``python -m skillopt``): :func:`main`,
    then a process exit that skips the interpreter's final collection of every object
    the SDKs and the run created, 0.22 s of a 2.2 s run (benchmarks/upstream_workload.py).
    Safe because the command has closed its files, caches and clients by then; embedding
    applications call :func:`main` and keep their garbage collector."""
    import gc

    try:
        main()
    finally:
        gc.disable()
        gc.freeze()


__all__ = ["app", "console_main", "main", "make_app"]
