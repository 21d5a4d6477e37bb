"""What each ``skillopt sleep`` command does (imported only when a command runs).

People read stderr, programs read stdout: with ``--json`` the result is one JSON
document on stdout, otherwise a short summary goes to stderr. Errors name what to fix
and exit non-zero: 2 for bad input or a refused operation, 1 for I/O failures,
3 when handoff prompts are waiting for answers.
"""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

import typer

from skillopt.api import SkillOptError, fail, print_json, say as _say, to_data


def info(message: str) -> None:
    """Plain text to stderr: transcript text and paths may contain [brackets] that rich
    would read as markup, so everything is escaped except our own [tags]."""
    from rich.markup import escape

    parts = re.split(r"(\[/?(?:bold|yellow|red|green)\])", message)
    _say("".join(p if re.fullmatch(r"\[/?(?:bold|yellow|red|green)\]", p) else escape(p) for p in parts))


EXIT_HANDOFF = 3


def _pairs(values: list[str] | None, flag: str) -> list[tuple[str, str]]:
    out = []
    for item in values or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise fail(f"{flag} expects KEY=VALUE, got {item!r}")
        out.append((key.strip(), value.strip()))
    return out


def _typed(value: str):
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(value.lower(), value)


#: upstream's ``skillopt-sleep --backend`` names that are spelled differently here
UPSTREAM_BACKENDS = {"mock": "scripted", "azure_openai": "azure-openai"}


def _backend(name: str, flag: str) -> str:
    """Upstream's Sleep backend names, said once: ``mock`` is our ``scripted``."""
    ours = UPSTREAM_BACKENDS.get(name)
    if ours is None:
        return name
    info(f"{flag} {name} is upstream's name; SkillOpt's is {ours}")
    return ours


def build_options(kw: dict):
    from skillopt_sleep.options import SleepOptions, read_preferences

    roots: dict[str, tuple[Path, ...]] = {}
    for src, path in _pairs(kw.get("root"), "--root"):
        roots[src] = roots.get(src, ()) + (Path(path).expanduser(),)
    return SleepOptions(
        project=Path(kw["project"]),
        sources=tuple(kw.get("source") or ("auto",)),
        roots=roots,
        scope=kw.get("scope", "invoked"),
        lookback_hours=kw.get("lookback_hours", 168.0),
        agent=kw.get("agent", ""),
        target_skill_path=kw.get("target_skill_path", ""),
        memory=kw.get("memory", "auto"),
        backend=_backend(kw.get("backend", "auto"), "--backend"),
        model=kw.get("model", ""),
        optimizer_backend=_backend(kw.get("optimizer_backend", ""), "--optimizer-backend"),
        optimizer_model=kw.get("optimizer_model", ""),
        backend_options={k: _typed(v) for k, v in _pairs(kw.get("backend_option"), "--backend-option")},
        use_cache=not kw.get("no_cache", False),
        workers=kw.get("workers", 4),
        timeout_s=kw.get("timeout"),
        miner=kw.get("miner", "auto"),
        reflector=kw.get("reflector", "auto"),
        edit_budget=kw.get("edit_budget", 4),
        preferences=read_preferences(kw.get("preferences")),
        recall_k=kw.get("recall_k", 0),
        dream_factor=kw.get("dream_factor", 0),
        dream_rollouts=kw.get("dream_rollouts", 1),
        gate=kw.get("gate", "strict"),
        gate_metric=kw.get("gate_metric", "mixed"),
        no_regression=kw.get("no_regression", False),
        repeats=kw.get("repeats", 1),
        min_val_items=kw.get("min_val", 2),
        val_fraction=kw.get("val_fraction", 0.34),
        test_fraction=kw.get("test_fraction", 0.0),
        seed=kw.get("seed", 42),
        max_sessions=kw.get("max_sessions", 200),
        max_tasks=kw.get("max_tasks", 40),
        max_calls=kw.get("max_calls"),
        max_tokens=kw.get("max_tokens"),
        max_cost_usd=kw.get("max_cost"),
        fan_out=kw.get("fan_out", False),
        auto_adopt=kw.get("auto_adopt", False),
    )


def night(*, dry_run: bool, **kw) -> None:
    from skillopt_sleep.cycle import HandoffWaiting, run_night
    from skillopt_sleep.harvest import left_out
    from skillopt_sleep.mine.taskfile import load_tasks

    as_json = kw.pop("as_json", False)
    try:
        opts = build_options(kw)
        tasks = load_tasks(kw["tasks_file"]) if kw.get("tasks_file") else None
        result = run_night(opts, dry_run=dry_run, tasks=tasks, progress=True)
    except HandoffWaiting as exc:
        if as_json:
            print_json({"status": "handoff_pending", "prompts": exc.count, "index": str(exc.index)})
        info(f"[yellow]handoff:[/yellow] {exc}")
        raise typer.Exit(EXIT_HANDOFF) from None
    except KeyboardInterrupt:
        raise fail("interrupted; nothing was staged", code=130) from None
    except SkillOptError as exc:
        from skillopt_sleep.options import in_sleep_terms

        raise fail(in_sleep_terms(str(exc))) from None
    report = result.report
    if as_json:
        print_json(
            {
                "status": result.status,
                "reason": result.reason,
                "staging": str(result.staging) if result.staging else None,
                "adopted": result.adopted,
                "report": to_data(report),
            }
        )
        return
    scores = report.scores
    info(f"night {report.night}: [bold]{result.status}[/bold] — {result.reason}")
    if report.backends:
        info("  backends: " + ", ".join(f"{role} {name.rstrip(':').replace(':', ' ')}" for role, name in sorted(report.backends.items())))
    info(
        f"  sessions {report.harvest.sessions}, tasks {report.mining.tasks}, "
        f"val {_score(scores.baseline_val)} → {_score(scores.final_val)}, calls {report.usage.calls}"
    )
    for line in left_out(report.harvest.dropped, report.harvest.skipped_lines, report.harvest.unreadable):
        info(f"  {line}")
    if report.dreams:
        d = report.dreams
        info(f"  dreams: {d.variants} train-only variant(s) ({d.from_model} from the model, {d.rephrased} rephrased)")
    if report.contrast:
        c = report.contrast
        info(f"  contrastive reflection: {len(c.tasks)} task(s) varied across {c.rollouts} rollouts")
    for e in report.accepted_edits:
        info(f"  + [{e.doc}] {e.edit.content}")
    for r in report.skills:
        val = f"val {_score(r.scores.baseline_val)} → {_score(r.scores.final_val)}"
        info(f"  skill {r.name}: [bold]{r.status}[/bold] — {r.reason} ({val})")
        for e in r.accepted_edits:
            info(f"    + {e.edit.content}")
    if result.staging:
        info(f"  staged in {result.staging}; review with `skillopt sleep diff`, then `skillopt sleep adopt`")
        accepted = [r.name for r in report.skills if r.status == "accepted"]
        if accepted:
            info("  per-skill proposals: " + ", ".join(f"`skillopt sleep adopt --skill {n}`" for n in accepted))
    if result.adopted:
        info("  adopted (--auto-adopt); undo with `skillopt sleep rollback`")


def _score(value) -> str:
    """A score for people: two decimals, or 'not measured' (never ``None`` or 0.3333333)."""
    return "not measured" if value is None else f"{value:.2f}"


def harvest(**kw) -> None:
    from skillopt_sleep.harvest import left_out
    from skillopt_sleep.mine.taskfile import harvest_tasks, write_tasks

    as_json, output = kw.pop("as_json"), kw.pop("output")
    try:
        payload = harvest_tasks(kw)
        if output:
            write_tasks(Path(output), payload)
    except SkillOptError as exc:
        raise fail(str(exc)) from None
    if as_json:
        print_json(payload)
        return
    info(
        f"{payload['sessions']} session(s), {len(payload['tasks'])} task(s)"
        + (f'; written to {output} (set "reviewed": true after checking it)' if output else "")
    )
    for line in left_out(payload["dropped"], payload["skipped_lines"], payload["unreadable"]):
        info(f"  {line}")
    for t in payload["tasks"]:
        checks = ", ".join(f"{c['op']} {c['value']!r}" for c in t["checks"])
        info(f"  [{t['split']}] {t['intent'][:90]!r}  ({checks})")


def status(*, project: Path, as_json: bool) -> None:
    from skillopt_sleep.adopt.adopt import adopted_nights, adopted_units, recover_locked, staged_units
    from skillopt_sleep.stage.layout import StagingError, manifest, nights
    from skillopt_sleep.state import SleepState

    project = Path(project).resolve()
    transaction = recover_locked(project)
    recovered = transaction == "recovered"
    state = SleepState.load(project)
    staged = [p.name for p in nights(project)]
    staged_skills = {}
    for night_dir in nights(project):
        try:
            names = [u.split(":", 1)[1] for u in staged_units(manifest(night_dir)) if u.startswith("skill:")]
        except (StagingError, KeyError, TypeError):
            continue
        if names:
            staged_skills[night_dir.name] = names
    data = {
        "project": str(project),
        "nights": state.nights,
        "last_harvest": state.last_harvest,
        "history": state.history[-5:],
        "staged": staged,
        "adopted": adopted_nights(project),
        "staged_skills": staged_skills,
        "adopted_skills": [{"night": n, "skill": u.removeprefix("skill:")} for n, u in adopted_units(project) if u != "main"],
        "recovered_interrupted_transaction": recovered, "adoption_in_progress": transaction == "busy",
    }
    if as_json:
        print_json(data)
        return
    info(
        f"{project}: {state.nights} night(s); staged: {', '.join(staged) or 'none'}; "
        f"adopted: {', '.join(data['adopted']) or 'none'}"
    )
    for name, skills in staged_skills.items():
        adopted_here = {row["skill"] for row in data["adopted_skills"] if row["night"] == name}
        info(f"  night {name} skills: " + ", ".join(f"{s}{' (adopted)' if s in adopted_here else ''}" for s in skills))
    if recovered:
        info("[yellow]an interrupted adopt/rollback was found and undone[/yellow]")
    for row in data["history"]:
        scores = row.get("scores") or {}
        info(
            f"  night {row.get('night')}: {row.get('status')} — {row.get('reason')} "
            f"(val {scores.get('baseline_val')} → {scores.get('final_val')})"
        )


def adopt(
    *, night: str | None, project: Path, skills: tuple[str, ...], all_skills: bool, break_lock: bool, as_json: bool
) -> None:
    from skillopt_sleep.adopt.adopt import adopt as do_adopt, labels

    try:
        receipt = do_adopt(Path(project), night, skills=skills, all_skills=all_skills, break_lock=break_lock)
    except SkillOptError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"adoption failed and was rolled back: {exc}", code=1) from None
    if as_json:
        print_json(receipt)
        return
    paths = ", ".join(e["path"] for e in receipt["entries"])
    info(f"adopted night {receipt['night']} ({labels(receipt['units'])}): {paths}")


def rollback(
    *, night: str | None, project: Path, skills: tuple[str, ...], all_skills: bool, break_lock: bool, force: bool, as_json: bool
) -> None:
    from skillopt_sleep.adopt.adopt import labels, rollback as do_rollback

    try:
        receipt = do_rollback(Path(project), night, skills=skills, all_skills=all_skills, force=force, break_lock=break_lock)
    except SkillOptError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"rollback failed and was undone: {exc}", code=1) from None
    if as_json:
        print_json(receipt)
        return
    paths = ", ".join(e["path"] for e in receipt["entries"])
    info(f"rolled back night {receipt['night']} ({labels(receipt['units'])}): {paths}")



def diff(*, night: str | None, project: Path, as_json: bool) -> None:
    from skillopt_sleep.stage.layout import find_night, manifest

    try:
        night_dir = find_night(Path(project).resolve(), night)
        data = manifest(night_dir)
    except SkillOptError as exc:
        raise fail(str(exc)) from None
    diffs = []
    for t in data["targets"]:
        live = Path(t["live_path"])
        before = live.read_text(encoding="utf-8", errors="replace") if live.exists() else ""
        after = (night_dir / t["proposed"]).read_text(encoding="utf-8")
        shown = _shown(live, project)
        lines = difflib.unified_diff(before.splitlines(True), after.splitlines(True), f"live/{shown}", f"proposed/{shown}")
        text = "".join(lines)
        diffs.append({"unit": t.get("unit", "main"), "role": t["role"], "path": str(live), "diff": text})
    if as_json:
        print_json({"night": night_dir.name, "diffs": diffs})
        return
    for d in diffs:
        typer.echo(d["diff"] or f"(no change to {d['path']})")


def _shown(path: Path, project: Path) -> str:
    """A live file as a diff header names it: relative to the project when inside it."""
    path, root = path.resolve(), Path(project).resolve()
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def experiment(*, persona: str, seeds: int, assert_improves: bool, home: bool, as_json: bool, homes: str = "") -> None:
    from skillopt_sleep.experiments.home_run import home_verdict, run_home_experiment
    from skillopt_sleep.experiments.run import run_experiment, verdict

    if homes:
        from skillopt_sleep.experiments.homes.run import homes_verdict, run_homes, table

        try:
            results = run_homes(homes)
        except SkillOptError as exc:
            raise fail(str(exc)) from None
        ok, summary = homes_verdict(results)
        if as_json:
            print_json({"ok": ok, "summary": summary, "runs": results})
        else:
            typer.echo(table(results) + "\n\n" + json.dumps(summary, indent=2))
        if assert_improves and not ok:
            raise typer.Exit(1)
        return
    try:
        results = run_home_experiment(seeds=seeds) if home else run_experiment(persona=persona, seeds=seeds)
    except SkillOptError as exc:
        raise fail(str(exc)) from None
    ok, summary = home_verdict(results) if home else verdict(results)
    if home and not as_json:
        summary = {**summary, "runs": results}
    if as_json:
        print_json({"ok": ok, "summary": summary, "runs": results})
    else:
        typer.echo(json.dumps(summary, indent=2))
    if assert_improves and not ok:
        raise typer.Exit(1)

