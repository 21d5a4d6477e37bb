"""The ``skillopt`` command line.

Only typer is imported at module level; every command imports what it needs inside
its body, and plugin modules are imported only when a command names them, so
``skillopt --help`` stays fast and never imports an env or a backend. Help is plain
text (typer's rich help imports rich's markdown and table renderers: half the time of
``skillopt --help``), and a built-in command builds only itself, without the command
plugins (``skillopt run`` reaches its first model call that much sooner).
"""

from __future__ import annotations

import sys

import typer

from skillopt.cli import blame_cmd, check_cmd, config_cmd, export_cmd, keys_cmd, listing, report_cmd, run_cmd, runs_cmd, ui_cmd

#: the built-in commands: (name, command function) and (name, sub-app)
COMMANDS = {"run": lambda: run_cmd.run, "eval": lambda: run_cmd.eval_, "check": lambda: check_cmd.check,
            "export": lambda: export_cmd.export, "blame": lambda: blame_cmd.blame, "envs": lambda: listing.envs,
            "backends": lambda: listing.backends, "plugins": lambda: listing.plugins, "ui": lambda: ui_cmd.ui,
            "report": lambda: report_cmd.report}
GROUPS = {"config": lambda: config_cmd.app, "keys": lambda: keys_cmd.app, "runs": lambda: runs_cmd.app}


def make_app(*, plugins: bool = True, only: str = "") -> typer.Typer:
    """A fresh ``skillopt`` app: the built-in commands plus (``plugins``) what the
    ``skillopt.commands`` plugins of the current plugin host attach. One app per
    invocation, so a command registered in one test never leaks into the next.
    ``only``: just that built-in command (the one being run)."""
    root = typer.Typer(
        name="skillopt",
        help="Train an agent's skill document like weights: rollout, reflect, edit, gate.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )
    for name, command in COMMANDS.items():
        if not only or name == only:
            root.command(name)(command())
    for name, group in GROUPS.items():
        if not only or name == only:
            root.add_typer(group(), name=name)
    if only:
        root.callback()(lambda: None)  # a group of one command still takes the command's name
    if plugins:
        from skillopt.plugins import get_host

        host = get_host()
        host.load_kind("commands")
        host.pm.hook.skillopt_register_commands(app=root)
    return root


def __getattr__(name: str):
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
