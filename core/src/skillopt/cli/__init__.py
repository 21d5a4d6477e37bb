"""The ``skillopt`` command line.

Only typer is imported at module level; every command imports what it needs inside
its body, and plugin modules are imported only when a command names them, so
``skillopt --help`` stays fast and never imports an env or a backend.
"""

from __future__ import annotations

import sys

import typer

from skillopt.cli import check_cmd, config_cmd, export_cmd, keys_cmd, listing, run_cmd, runs_cmd, ui_cmd

app = typer.Typer(
    name="skillopt",
    help="Train an agent's skill document like weights: rollout, reflect, edit, gate.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

app.command("run")(run_cmd.run)
app.command("eval")(run_cmd.eval_)
app.command("check")(check_cmd.check)
app.command("export")(export_cmd.export)
app.command("envs")(listing.envs)
app.command("backends")(listing.backends)
app.command("plugins")(listing.plugins)
app.command("ui")(ui_cmd.ui)
app.add_typer(config_cmd.app, name="config")
app.add_typer(keys_cmd.app, name="keys")
app.add_typer(runs_cmd.app, name="runs")

_plugins_attached = False


def attach_plugin_commands() -> None:
    """Let ``skillopt.commands`` plugins add their sub-apps (``skillopt sleep`` ...)."""
    global _plugins_attached
    if _plugins_attached:
        return
    _plugins_attached = True
    from skillopt.plugins import get_host

    host = get_host()
    host.load_kind("commands")
    host.pm.hook.skillopt_register_commands(app=app)


def main(argv: list[str] | None = None) -> None:
    attach_plugin_commands()
    from skillopt.errors import SkillOptError

    try:
        app(args=argv, prog_name="skillopt", standalone_mode=True)
    except SkillOptError as exc:  # pragma: no cover - typer handles most exits itself
        sys.stderr.write(f"error: {exc}\n")
        raise SystemExit(2) from None


__all__ = ["app", "attach_plugin_commands", "main"]
