"""``skillopt sleep ab`` and ``skillopt sleep prompts``: comparing two skills, and
showing the prompts a night sends (imported only when one of them runs)."""

from __future__ import annotations

import typer

from skillopt.api import SkillOptError, fail, print_json, to_data
from skillopt_sleep.cli.actions import build_options, info


def ab(**kw) -> None:
    from skillopt_sleep.ab.run import compare, load_doc
    from skillopt_sleep.clients import build
    from skillopt_sleep.mine.taskfile import load_tasks

    as_json = kw.pop("as_json")
    try:
        if kw["seeds"] < 1 or kw["resamples"] < 100 or not 0 < kw["confidence"] < 1:
            raise fail("--seeds must be >= 1, --resamples >= 100 and --confidence in (0, 1)")
        tasks = load_tasks(kw["tasks_file"])
        memory = [load_doc(kw["memory"], "memory")] if kw.get("memory") else []
        docs_a = [load_doc(kw["skill_a"], "skill A"), *memory]
        docs_b = [load_doc(kw["skill_b"], "skill B"), *memory]
        opts = build_options(kw)
        clients = build(opts)
        result = compare(
            tasks, docs_a, docs_b, clients, seeds=kw["seeds"], base_seed=kw["seed"], confidence=kw["confidence"],
            resamples=kw["resamples"], workers=kw["workers"], project_name=opts.project_path.name,
            on_progress=None if as_json else lambda arm, s: info(f"  replayed arm {arm.upper()}, seed {s}"),
        )  # fmt: skip
    except KeyboardInterrupt:
        raise fail("interrupted", code=130) from None
    except SkillOptError as exc:
        from skillopt_sleep.options import in_sleep_terms

        raise fail(in_sleep_terms(str(exc))) from None
    if as_json:
        print_json(to_data(result))
        return
    info(f"[bold]{result.verdict}[/bold]")
    rates = "not measured" if result.rate_a is None else f"A {result.rate_a:.3f}, B {result.rate_b:.3f}"
    size = f"{result.tasks} task(s) × {len(result.seeds)} seed(s)"
    info(f"  {size}; success rate {rates}; {result.missing} pair(s) without an answer")
    m = result.mcnemar
    info(f"  McNemar (exact, all pairs): A-only {m.b}, B-only {m.c}, p={m.p_value:.4g}")
    for row in result.per_seed:
        info(f"    seed {row.seed}: A-only {row.mcnemar.b}, B-only {row.mcnemar.c}, p={row.mcnemar.p_value:.4g}")
    if result.bootstrap is not None:
        ci = result.bootstrap
        info(
            f"  B − A: {ci.difference:+.3f}, {ci.confidence:.0%} CI [{ci.low:+.3f}, {ci.high:+.3f}] "
            f"(paired bootstrap over {ci.tasks} task(s), "
            + (f"exact: {ci.resamples} resample composition(s) weighed)" if ci.method == "exact" else f"{ci.resamples} draws)")
        )


def prompts(*, starter: bool, as_json: bool) -> None:
    from skillopt_sleep import prompts as p

    if starter:
        typer.echo(p.starter())
        return
    try:
        found = p.overrides()
    except SkillOptError as exc:
        raise fail(str(exc)) from None
    rows = [
        {"name": d.name, "overridden": d.name in found, "required": list(d.required), "optional": list(d.optional),
         "about": d.about}
        for d in p.DEFAULTS.values()
    ]
    if as_json:
        print_json({"file": str(p.path()), "exists": p.path().is_file(), "prompts": rows})
        return
    info(f"prompt file: {p.path()} ({'found, valid' if p.path().is_file() else 'none: every prompt is the default'})")
    for row in rows:
        keep = ", ".join("{" + r + "}" for r in row["required"]) or "no placeholder"
        state = "[bold]overridden[/bold]" if row["overridden"] else "default   "
        info(f"  {row['name']:<16} {state} needs {keep} — {row['about']}")
