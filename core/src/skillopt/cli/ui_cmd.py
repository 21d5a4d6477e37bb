"""``skillopt ui``: serve the dashboard until Ctrl-C."""

from pathlib import Path
from typing import Annotated

import typer

RunsDirOpt = Annotated[
    list[Path] | None,
    typer.Option("--runs-dir", help="A folder of run directories, or one run directory (repeatable). Default: the user data dir's runs."),
]
HostOpt = Annotated[str, typer.Option("--host", help="Interface to listen on. Anything but loopback exposes your runs to the network.")]
PortOpt = Annotated[int, typer.Option("--port", min=0, max=65535, help="Port (0 picks a free one).")]
TokenOpt = Annotated[str | None, typer.Option("--token", envvar="SKILLOPT_UI_TOKEN", help="Access token (default: a fresh random one).")]


def launch_root_of(roots: list[Path]) -> Path:
    """Where the dashboard's launched runs go: the first ``--runs-dir`` (the folder
    holding it when that is itself one run), so they appear in the list it shows."""
    from skillopt.runstore import is_run_dir

    first = roots[0]
    return first.parent if is_run_dir(first) else first


def ui(runs_dir: RunsDirOpt = None, host: HostOpt = "127.0.0.1", port: PortOpt = 7860, token: TokenOpt = None) -> None:
    """Dashboard over your runs: live progress, step decisions, skill diffs; launch and stop runs."""
    from skillopt import paths
    from skillopt.cli.output import fail, info, stderr_console
    from skillopt.errors import ConfigError
    from skillopt.runstore import checked_runs_dirs
    from skillopt.ui.server import LOOPBACK, Dashboard, make_server

    try:
        roots = checked_runs_dirs(runs_dir) or [paths.data_dir() / "runs"]
        launch_root = launch_root_of(roots)
        launch_root.mkdir(parents=True, exist_ok=True)
    except ConfigError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"--runs-dir {launch_root}: cannot make that folder: {exc.strerror or exc}") from None
    dashboard = Dashboard(roots, launch_root=launch_root, token=token)
    try:
        server = make_server(dashboard, host, port)
    except OSError as exc:  # the port taken, an address this machine does not have
        raise fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    if host not in LOOPBACK:
        info(f"[bold yellow]warning:[/bold yellow] listening on {host}: anyone who can reach it and has the token can read runs and start them")
    info(f"runs from: {', '.join(str(r) for r in roots)}; launched runs go to {launch_root}")
    url = f"http://{shown}:{server.server_address[1]}/?token={dashboard.token}"
    stderr_console().print(f"open {url}   (Ctrl-C to stop)", soft_wrap=True, markup=False)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        dashboard.stopping.set()
        server.server_close()
