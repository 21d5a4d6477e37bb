"""``skillopt runs``: the dashboard's view of run directories, in the terminal."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from skillopt.cli.output import fail, print_json

if TYPE_CHECKING:
    from rich.console import Console

    from skillopt.ui.runs import RunIndex

app = typer.Typer(help="List runs, show one, diff its skill versions.", no_args_is_help=False, invoke_without_command=True,
                  rich_markup_mode=None)

RunsDirOpt = Annotated[list[Path] | None, typer.Option("--runs-dir", help="Folder of run directories (repeatable). Default: the user data dir's runs.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output on stdout.")]
RunArg = Annotated[str, typer.Argument(
    metavar="RUN", help="Run id (its directory name, as `skillopt runs` lists it) or a run directory path.")]


def _index(runs_dir: list[Path] | None) -> "RunIndex":
    from skillopt import paths
    from skillopt.errors import ConfigError
    from skillopt.runstore import checked_runs_dirs
    from skillopt.ui.runs import RunIndex

    try:
        roots = checked_runs_dirs(runs_dir)
    except ConfigError as exc:
        raise fail(str(exc)) from None
    return RunIndex(roots or [paths.data_dir() / "runs"])


def _resolve(run: str, runs_dir: list[Path] | None) -> tuple[str, Path]:
    from skillopt.runstore import is_run_dir

    as_path = Path(run).expanduser()
    if is_run_dir(as_path):
        return as_path.name, as_path
    found = _index(runs_dir).get(run)
    if found is None:
        raise fail(f"no run named {run!r}; `skillopt runs` lists them (or pass the run directory's path)")
    return run, found


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


@app.callback()
def runs(ctx: typer.Context, runs_dir: RunsDirOpt = None, as_json: JsonOpt = False) -> None:
    """List runs, newest first: status, steps, val and test scores, cost."""
    if ctx.invoked_subcommand is not None:
        return
    from rich.measure import Measurement
    from rich.table import Table

    from skillopt.cli.output import stderr_console
    from skillopt.richtext import literal

    rows = _index(runs_dir).listing()
    if as_json:
        print_json(rows)
        return
    cells = [_listing_cells(r) for r in rows]
    title = f"{len(rows)} run" + ("" if len(rows) == 1 else "s")
    table = Table(title=title)
    for column in ("run", "env", "status", "steps", "val base → best", "test init → best", "cost"):
        table.add_column(column, no_wrap=column == "run")
    for row in cells:
        table.add_row(*(literal(cell) for cell in row))
    console = stderr_console()
    if Measurement.get(console, console.options.update_width(10_000), table).maximum <= console.width:
        console.print(table)
        return
    # too narrow for the table: the id is what `export`, `blame` and `runs show` take, so
    # it gets a line of its own, whole, and the numbers go on the line below it
    console.print(title, highlight=False)
    for run_id, env, status, steps, val, test, cost in cells:
        console.print(literal(run_id, style="bold"), soft_wrap=True)
        console.print(literal(f"  {env}  {status}  steps {steps}  val {val}  test {test}  {cost}"))


def _listing_cells(r: dict[str, Any]) -> list[str]:
    steps = f"{r['steps_done'] or 0}" + (f"/{r['steps_planned']}" if r["steps_planned"] else "")
    cost = "–" if r["cost_usd"] is None else f"${r['cost_usd']:.4f}"
    return [r["id"], r["env"], r["status"], steps, f"{_num(r['baseline_val'])} → {_num(r['best_val'])}",
            f"{_num(r['test_initial'])} → {_num(r['test_best'])}", cost]


@app.command("show")
def show(run: RunArg, runs_dir: RunsDirOpt = None, as_json: JsonOpt = False) -> None:
    """One run: overview and each step's decision."""
    from rich.table import Table
    from rich.text import Text

    from skillopt.cli.output import stderr_console
    from skillopt.ui.runs import detail

    run_id, path = _resolve(run, runs_dir)
    data = detail(run_id, path)
    if as_json:
        print_json(data)
        return
    o = data["overview"]
    console = stderr_console()
    console.print(Text.assemble((run_id, "bold"), f"  {o['env']}  {o['status']}  {path}"), soft_wrap=True)
    table = Table()
    for column in ("step", "epoch", "action", "edits applied/selected", "B", "train", "cand val", "current", "tokens", "cost"):
        table.add_column(column)
    for s in data["history"]:
        table.add_row(
            str(s.get("step")), str(s.get("epoch")), str(s.get("action")),
            f"{s.get('n_edits_applied', 0)}/{s.get('n_edits_selected', 0)}", str(s.get("edit_budget", "–")),
            _num(s.get("rollout_hard")), _num(s.get("candidate_gate_score")), _num(s.get("current_score")),
            str((s.get("prompt_tokens") or 0) + (s.get("completion_tokens") or 0)) + ("*" if s.get("cached_calls") else ""),
            "–" if s.get("cost_usd") is None else f"${s['cost_usd']:.4f}",
        )
    _show_warnings(console, o)  # above the table: what was healed to show it
    console.print(table)
    _show_cached(console, data["history"])
    for s in data["history"]:
        if s.get("raced"):
            console.print(f"step {s.get('step')}: race of {s['raced']} proposals, p{s.get('race_winner', 0)} went to the gate",
                          soft_wrap=True)
    _show_attribution(console, path, data["history"])
    _show_frontier(console, data.get("frontier"))


def _show_frontier(console: "Console", found: dict[str, Any] | None) -> None:
    """The kept skills and their objectives; the final pick and on which items it was made."""
    from rich.table import Table

    if not found:
        return
    if found.get("source") == "pick":
        where = (f"the selection split ({found.get('n_items')} items no gate decision used)" if found.get("split") == "selection"
                 else "val (the gate's items)")
        console.print(f"final pick by '{found.get('rule')}' on {where}: {found.get('reason', '')}", soft_wrap=True, markup=False)
    else:
        console.print(f"pool as it stands: {len(found['members'])} kept skills (objectives on val)", soft_wrap=True)
    table = Table(caption="acc: accuracy on the pick's items; tok/ro: the target's tokens per rollout")
    table.add_column("skill", no_wrap=True)
    for column in ("step", "val", "acc", "skill tok", "tok/ro", "front", ""):
        table.add_column(column, no_wrap=True)
    for m in found["members"]:
        table.add_row(str(m.get("origin")), str(m.get("step")), _num(m.get("val_score")), _num(m.get("accuracy")),
                      "–" if m.get("skill_tokens") is None else f"{m['skill_tokens']:.0f}",
                      "–" if m.get("rollout_tokens") is None else f"{m['rollout_tokens']:.1f}",
                      "yes" if m.get("on_front") else "–", "picked" if m.get("chosen") else "")
    console.print(table)


def _show_warnings(console: "Console", overview: dict[str, Any]) -> None:
    """The run's damaged files, as its dashboard page says them."""
    from rich.markup import escape

    for warning in overview.get("warnings") or ():
        console.print(f"[yellow]warning:[/yellow] {escape(warning)}", soft_wrap=True)


def _show_cached(console: "Console", history: list[dict[str, Any]]) -> None:
    """Steps the call cache answered (their tokens and cost read 0: nothing was paid)."""
    cached = [s for s in history if s.get("cached_calls")]
    if not cached:
        return
    parts = [f"step {s.get('step')}: {s['cached_calls']} calls, {s.get('cached_tokens') or 0} tok"
             + (f", ${s['cached_cost_usd']:.4f}" if s.get("cached_cost_usd") else "") for s in cached]
    console.print("* answered from the call cache, saved: " + "; ".join(parts), soft_wrap=True)


def _show_attribution(console: "Console", path: Path, history: list[dict[str, Any]]) -> None:
    """Accepted steps: which edit changed which val items (``attribution.json``)."""
    from skillopt.blame import step_attribution

    for s in history:
        found = step_attribution(path, int(s.get("step") or 0))
        if not found:
            continue
        console.print(f"step {s.get('step')} attribution: fixed {len(found['fixed'])}, broke {len(found['broke'])} val items "
                      f"({found['rollouts']} rollouts)", soft_wrap=True)
        for e in found["edits"]:
            effect = "not measured" if e.get("effect") is None else f"{e['effect']:+.2f}"
            helped = ", ".join(e.get("helped") or ()) or "–"
            console.print(f"  #{e['index'] + 1} {e['op']} {effect}: fixed {helped} │ {str(e.get('content') or e.get('target'))[:90]}",
                          soft_wrap=True, markup=False)


@app.command("diff")
def diff(
    run: RunArg,
    a: Annotated[str, typer.Argument(help="Skill version number, or 'best'.")] = "0",
    b: Annotated[str, typer.Argument(help="Skill version number, or 'best'.")] = "best",
    runs_dir: RunsDirOpt = None,
) -> None:
    """Unified diff between two skill versions of a run (default: the initial and the best)."""
    import sys

    from skillopt.ui.runs import skill_diff

    _, path = _resolve(run, runs_dir)
    old, new = (v if v == "best" else (int(v) if v.isdigit() else None) for v in (a, b))
    if old is None or new is None:
        raise fail("skill versions are numbers (as in skills/skill_vNNNN.md) or 'best'")
    found = skill_diff(path, old, new)
    if found is None:
        raise fail(f"no such skill version in {path}: {a} or {b}")
    sys.stdout.write((found["diff"] or "(identical)") + "\n")
