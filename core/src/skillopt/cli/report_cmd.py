"""``skillopt report``: a self-contained HTML report of one run or several."""

from pathlib import Path
from typing import Annotated

import typer

from skillopt.cli.output import fail

RunsArg = Annotated[list[str], typer.Argument(metavar="RUN...", help="Runs (ids as `skillopt runs` lists them, or run directories).")]
OutOpt = Annotated[Path, typer.Option("-o", "--out", help="The HTML file to write.")]
RunsDirOpt = Annotated[list[Path] | None, typer.Option("--runs-dir", help="Folder of run directories to find ids in (repeatable).")]


def report(runs: RunsArg, out: OutOpt = Path("report.html"), runs_dir: RunsDirOpt = None) -> None:
    """One HTML file (charts, skill diff per accepted step, edits applied or not, test by task type;
    several runs: compared) that opens offline."""
    from skillopt.cli.output import info
    from skillopt.errors import SkillOptError
    from skillopt.runstore import find_run
    from skillopt.ui.report import build

    found: dict[str, Path] = {}
    try:
        for run in runs:
            path = find_run(run, list(runs_dir or []))
            name = path.name if path.name not in found else f"{path.parent.name}/{path.name}"
            found[name] = path
    except SkillOptError as exc:
        raise fail(str(exc)) from None
    if out.is_dir():
        raise fail(f"-o {out} is a folder; name the HTML file to write")
    try:
        build(found, out)
    except SkillOptError as exc:
        raise fail(str(exc)) from None
    info(f"wrote {out} ({len(found)} run{'s' if len(found) > 1 else ''}; opens offline)")
