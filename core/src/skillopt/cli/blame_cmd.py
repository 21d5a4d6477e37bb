"""``skillopt blame``: who wrote each line of a run's best skill, and did it help."""

from pathlib import Path
from typing import Annotated

import typer

from skillopt.cli.output import fail, print_json

RunArg = Annotated[str, typer.Argument(metavar="RUN", help="Run id (as `skillopt runs` lists it) or a run directory path.")]
RunsDirOpt = Annotated[list[Path] | None, typer.Option("--runs-dir", help="Folder of run directories (repeatable).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="One record per line of the skill, as JSON.")]


def blame(run: RunArg, runs_dir: RunsDirOpt = None, as_json: JsonOpt = False) -> None:
    """Each line of the best skill with the step and edit that wrote it and its measured effect."""
    import sys

    from skillopt.blame import blame as blame_lines, render
    from skillopt.errors import SkillOptError
    from skillopt.runstore import find_run

    try:
        lines = blame_lines(find_run(run, tuple(runs_dir or ())))
    except SkillOptError as exc:
        raise fail(str(exc)) from None
    if as_json:
        from skillopt.serde import to_data

        print_json([to_data(b) for b in lines])
        return
    sys.stdout.write(render(lines) + "\n")
