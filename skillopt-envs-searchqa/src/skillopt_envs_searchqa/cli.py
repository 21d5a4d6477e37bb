"""``skillopt searchqa …``: materialise the real split, show which data a run would use.

Loaded at every CLI start through the ``skillopt.commands`` entry point, so this module
imports only typer and ``skillopt.api`` (whose names load on first use) at module level.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from skillopt.api import hookimpl

searchqa_app = typer.Typer(name="searchqa", help="SearchQA env: materialize the real split, inspect the data.", no_args_is_help=True)

SourceOpt = Annotated[
    str,
    typer.Option("--source", help="Hub dataset id, or a local file/directory of JSON/JSONL rows in the same format."),
]
OutDirOpt = Annotated[Path | None, typer.Option("--out", "-o", help="Where to write train/val/test (default: the user data dir).")]
RevisionOpt = Annotated[str | None, typer.Option("--revision", help="Dataset revision (commit or tag) on the Hub.")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Overwrite an existing materialized split.")]


@searchqa_app.command("materialize")
def materialize_cmd(
    source: SourceOpt = "lucadiliello/searchqa",
    out: OutDirOpt = None,
    revision: RevisionOpt = None,
    force: ForceOpt = False,
) -> None:
    """Build the paper's 400/200/1400 split from the dataset by the shipped id manifests."""
    from skillopt.api import SkillOptError, fail, say
    from skillopt_envs_searchqa import data, materialize

    target = out or data.default_materialized_dir()
    try:
        say(f"reading {source} ...")
        rows = materialize.open_source(source, revision)
        report = materialize.materialize(target, rows, source=source, revision=revision or "", force=force)
    except SkillOptError as exc:
        raise fail(str(exc)) from None
    counts = ", ".join(f"{k} {v}" for k, v in report.counts.items())
    say(f"wrote {report.out_dir} ({counts}; scanned {report.scanned} rows)")
    if out is not None and Path(out).expanduser() != data.default_materialized_dir():
        say(f"use it with: skillopt run --env searchqa --set env.split_dir={report.out_dir}")
    else:
        say("`skillopt run --env searchqa --preset paper` now uses it")


@searchqa_app.command("data")
def data_cmd() -> None:
    """Show the bundled sample and whether the real split is materialized."""
    import json
    from importlib import resources

    from skillopt.api import say
    from skillopt_envs_searchqa import data

    manifest = json.loads(resources.files("skillopt_envs_searchqa").joinpath("data", "sample", "manifest.json").read_text(encoding="utf-8"))
    counts = ", ".join(f"{k} {v['count']}" for k, v in manifest["splits"].items())
    say(f"bundled sample: {counts} ({manifest['licence']}, synthetic)")
    real = data.default_materialized_dir()
    if data.is_split_dir(real):
        meta = json.loads((real / "split_manifest.json").read_text(encoding="utf-8"))
        counts = ", ".join(f"{k} {v}" for k, v in meta.get("counts", {}).items())
        say(f"real SearchQA: materialized at {real} ({counts}; source {meta.get('source')}, revision {meta.get('revision')})")
    else:
        say(f"real SearchQA: not materialized (expected at {real}); run `skillopt searchqa materialize`")


@hookimpl
def skillopt_register_commands(app: typer.Typer) -> None:
    app.add_typer(searchqa_app, name="searchqa")
