"""``skillopt config show``: the resolved configuration, secrets redacted."""

from types import ModuleType
from typing import TYPE_CHECKING, Any

import typer

from skillopt.cli.options import (
    BackendOpt,
    CfgOptionsOpt,
    ConfigOpt,
    EnvOpt,
    JsonOpt,
    ModelOpt,
    OptBackendOpt,
    OutOpt,
    PresetOpt,
    SetOpt,
    TgtBackendOpt,
    flag_values,
)
from skillopt.cli.output import fail, print_json

if TYPE_CHECKING:
    from skillopt.config.schema import RunConfig

app = typer.Typer(help="Inspect configuration.", no_args_is_help=True, rich_markup_mode=None)


@app.command("show")
def show(
    env: EnvOpt = None,
    config: ConfigOpt = None,
    cfg_options: CfgOptionsOpt = None,
    set_: SetOpt = None,
    out: OutOpt = None,
    backend: BackendOpt = None,
    optimizer_backend: OptBackendOpt = None,
    target_backend: TgtBackendOpt = None,
    model: ModelOpt = None,
    preset: PresetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print the fully resolved config (defaults, preset, file, --set, flags)."""
    from skillopt.config.loading import redacted_config_data
    from skillopt.engine.session import resolve_run_config
    from skillopt.errors import SkillOptError

    try:
        cfg, _env_cls = resolve_run_config(config_file=config, assignments=set_ or [], flags=flag_values(**locals()),
                                           cfg_options=tuple(cfg_options or ()))
        _check_backends(cfg)
    except SkillOptError as exc:
        raise fail(str(exc)) from None
    data = redacted_config_data(cfg)
    if as_json:
        print_json(data)
        return
    typer.echo(to_toml(data))


def _check_backends(cfg: "RunConfig") -> None:
    """An unknown backend is refused here as the run would refuse it: the config shown is one
    that runs."""
    from skillopt.engine.models import backend_name
    from skillopt.registry import get

    for role in ("target", "optimizer"):
        get("backends", backend_name(cfg, role)[0])


@app.command("keys")
def keys(as_json: JsonOpt = False) -> None:
    """List every config key with its type, default and meaning."""
    from skillopt.config.reference import help_for, schema_keys, type_name
    from skillopt.plugin_config import SECTIONS, plugin_keys

    rows = [{"key": k, "type": type_name(t), "default": d, "help": help_for(k)} for k, t, d in schema_keys()]
    for section in SECTIONS:  # every installed plugin's own keys, under its section
        rows += [{"key": k, "type": type_name(t), "default": d, "help": h} for k, t, d, h in plugin_keys(section)]
    if as_json:
        print_json(rows)
        return
    from rich.console import Console
    from rich.table import Table

    from skillopt.richtext import literal

    table = Table("key", "type", "default", "meaning")
    for r in rows:  # a help text says "lists as [a,b]": cells are text, not markup
        table.add_row(*(literal(cell) for cell in (r["key"], r["type"], repr(r["default"]), r["help"])))
    Console().print(table)


def to_toml(data: dict[str, Any], prefix: str = "") -> str:
    """A TOML rendering of config data that ``--config`` can read back (None = commented out)."""
    import json

    scalars, tables = [], []
    for key, value in data.items():
        if isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
            tables.append((key, value))
        elif value is None:
            scalars.append(f"# {key} is unset")
        else:
            scalars.append(f"{key} = {_toml_value(value, json)}")
    out = [f"[{prefix}]"] if prefix else []
    out.extend(scalars)
    for key, value in tables:
        out.append("")
        out.append(to_toml(value, f"{prefix}.{key}" if prefix else key))
    return "\n".join(out)


def _toml_value(value: Any, json: ModuleType) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v, json) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(v, json)}" for k, v in value.items()) + "}"
    return str(json.dumps(str(value), ensure_ascii=False))
