"""``skillopt envs|backends|plugins``: what is installed and who provides it.

Listing reads installed metadata only; nothing is imported unless ``--load`` asks to
check that each plugin actually imports.
"""

from typing import TYPE_CHECKING, Annotated, Any

import typer

from skillopt.cli.output import print_json

if TYPE_CHECKING:
    from skillopt.registry import Component

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")]
LoadOpt = Annotated[bool, typer.Option("--load", help="Import each plugin to check it loads and read its summary.")]


def _rows(kind: str, load: bool) -> list[dict[str, Any]]:
    from skillopt.plugins import declared, get_host, is_disabled
    from skillopt.registry import get_registry

    eps = declared(kind)
    by_value: dict[tuple[str, str], list[Any]] = {}
    for ep in eps:
        by_value.setdefault((ep.distribution, ep.value), []).append(ep)
    counts: dict[str, set[Any]] = {}
    for ep in eps:
        counts.setdefault(ep.name, set()).add(ep.distribution)
    summaries: dict[str, str] = {}
    registered: dict[str, Component] = {}  # plugin name -> the component it registered
    comp: Component | None
    if load:
        for comp in get_registry().load_all(kind):
            summaries[comp.name] = comp.summary
            registered.setdefault(comp.plugin_name, comp)
    host = get_host()
    rows = []
    for (_dist, _value), group in by_value.items():
        # Without importing, only entry-point names are known: a plugin declares one entry
        # point per component, named like the component (``Env.name``), and gives aliases
        # to ``register()``. Several entry points on one module (older plugins) show the
        # longest as the name; ``--load`` shows what the plugin itself registered.
        group = sorted(group, key=lambda e: (-len(e.name), e.name))
        main, aliases = group[0], [e.name for e in group[1:]]
        comp = next((registered[e.plugin_name] for e in group if e.plugin_name in registered), None)
        if comp is not None:  # the plugin's own word on its name (Env.name) and aliases
            names = [comp.name, *comp.aliases, *(e.name for e in group)]
            display = comp.name
            aliases = sorted({n for n in names if n != display})
        status = "ok"
        if is_disabled(main):
            status = "disabled"
        elif main.plugin_name in host.failures:
            status = "broken: " + host.failures[main.plugin_name]
        elif len(counts[main.name]) > 1:
            status = "conflict: also provided by " + ", ".join(sorted(counts[main.name] - {main.distribution}))
        rows.append(
            {
                "name": comp.name if comp is not None else main.name,
                "aliases": aliases,
                "module": main.value,
                "distribution": main.distribution,
                "version": main.version,
                "status": status,
                "summary": summaries.get(comp.name if comp is not None else main.name, ""),
            }
        )
    return sorted(rows, key=lambda r: r["name"])


def _show(kind: str, rows: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        print_json(rows)
        return
    from rich.console import Console
    from rich.table import Table

    from skillopt.plugins import KIND_LABEL
    from skillopt.richtext import literal

    table = Table(title=f"installed {KIND_LABEL[kind]}s", title_justify="left")
    for col in ("name", "aliases", "distribution", "version", "status"):
        table.add_column(col)
    if any(r["summary"] for r in rows):
        table.add_column("summary")
    for r in rows:
        cells = [r["name"], ", ".join(r["aliases"]), r["distribution"], r["version"], r["status"]]
        if any(x["summary"] for x in rows):
            cells.append(r["summary"])
        table.add_row(*(literal(cell) for cell in cells))
    Console().print(table)
    if not rows:
        Console(stderr=True).print(f"no {KIND_LABEL[kind]}s installed")


def envs(as_json: JsonOpt = False, load: LoadOpt = False) -> None:
    """List installed benchmark envs with their providing distribution."""
    _show("envs", _rows("envs", load), as_json)


def backends(as_json: JsonOpt = False, load: LoadOpt = False) -> None:
    """List installed model backends with their providing distribution."""
    _show("backends", _rows("backends", load), as_json)


def plugins(as_json: JsonOpt = False, load: LoadOpt = False) -> None:
    """List every installed plugin of every kind."""
    from skillopt.plugins import GROUPS

    rows = []
    for kind in GROUPS:
        for row in _rows(kind, load):
            rows.append({"kind": kind, **row})
    if as_json:
        print_json(rows)
        return
    from rich.console import Console
    from rich.table import Table

    from skillopt.richtext import literal

    table = Table(title="installed plugins", title_justify="left")
    for col in ("kind", "name", "aliases", "distribution", "version", "status"):
        table.add_column(col)
    for r in rows:
        cells = (r["kind"], r["name"], ", ".join(r["aliases"]), r["distribution"], r["version"], r["status"])
        table.add_row(*(literal(cell) for cell in cells))
    Console().print(table)
