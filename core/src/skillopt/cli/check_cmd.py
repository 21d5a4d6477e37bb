"""``skillopt check``: preflight a run's config, data and models before paying for it."""

from typing import Annotated

import typer

from skillopt.cli.options import (
    BackendOpt,
    BaseUrlOpt,
    ConfigOpt,
    EnvOpt,
    JsonOpt,
    LimitOpt,
    MaxCostOpt,
    ModelOpt,
    OptBackendOpt,
    OptModelOpt,
    PresetOpt,
    SetOpt,
    TgtBackendOpt,
    TgtModelOpt,
    flag_values,
)
from skillopt.cli.output import print_json

NoCallOpt = Annotated[bool, typer.Option("--no-call", help="Check config, data and credentials without calling any model.")]


def check(
    env: EnvOpt = None,
    config: ConfigOpt = None,
    set_: SetOpt = None,
    backend: BackendOpt = None,
    optimizer_backend: OptBackendOpt = None,
    target_backend: TgtBackendOpt = None,
    model: ModelOpt = None,
    optimizer_model: OptModelOpt = None,
    target_model: TgtModelOpt = None,
    base_url: BaseUrlOpt = None,
    preset: PresetOpt = None,
    limit: LimitOpt = None,
    max_cost: MaxCostOpt = None,
    no_call: NoCallOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Preflight: config, env data, each role's backend, one tiny text and JSON call per model, and what the run will spend."""
    import attrs
    from rich.table import Table

    from skillopt.cli.output import stderr_console
    from skillopt.engine.preflight import run_checks
    from skillopt.richtext import literal, styled

    flags = flag_values(**locals())
    checks = run_checks(config_file=config, assignments=set_ or [], flags=flags, call=not no_call)
    table = Table(title="skillopt check", show_lines=False)
    for column in ("check", "", "detail", "s"):
        table.add_column(column, overflow="fold")
    for c in checks:
        verdict = styled("[green]ok[/green]" if c.ok else "[bold red]FAIL[/bold red]")
        table.add_row(literal(c.name), verdict, literal(c.detail), f"{c.seconds:.2f}")  # a detail holds hints: `[local]`
    stderr_console().print(table)
    if as_json:
        print_json([attrs.asdict(c) for c in checks])
    if not all(c.ok for c in checks):
        raise typer.Exit(1)
