"""``skillopt sleep …``: the typer sub-app attached to the root CLI.

This module is imported on every ``skillopt`` start, so it imports only typer (and the
hook marker); each command imports its implementation from :mod:`.actions` when run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from skillopt.api import hookimpl

sleep_app = typer.Typer(
    name="sleep",
    help="Learn from your own coding-agent sessions: harvest, mine, replay, gate, stage, adopt, roll back.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

Project = Annotated[Path, typer.Option("--project", "-p", help="Project directory (default: current directory).")]
Source = Annotated[
    list[str] | None,
    typer.Option(
        "--source",
        help="Harvester to read (repeatable): claude-code, codex, copilot-cli, vscode-copilot, cursor, opencode, pi, or auto.",
    ),
]
Root = Annotated[list[str] | None, typer.Option("--root", help="Override a harvester's roots: SOURCE=PATH (repeatable).")]
Scope = Annotated[str, typer.Option("--scope", help="invoked: sessions run in this project; all: every session.")]
Lookback = Annotated[float, typer.Option("--lookback-hours", help="Harvest sessions from the last N hours (0 = all history).")]
Agent = Annotated[str, typer.Option("--agent", help="Agent whose memory file to evolve (default: the one with most sessions).")]
SkillPath = Annotated[
    str, typer.Option("--target-skill-path", help="Skill file to evolve (default: the agent's project skill dir).")
]
Memory = Annotated[str, typer.Option("--memory", help="Memory file: auto (per agent), a path, or none.")]
Backend = Annotated[
    str, typer.Option("--backend", "-b", help="Backend for replay and judging (see `skillopt backends`), or handoff.")
]
Model = Annotated[str, typer.Option("--model", "-m", help="Model name for the backend.")]
OptBackend = Annotated[str, typer.Option("--optimizer-backend", help="Backend for mining, reflection and rubric judging.")]
OptModel = Annotated[str, typer.Option("--optimizer-model", help="Model for the optimizer backend.")]
BackendOption = Annotated[
    list[str] | None, typer.Option("--backend-option", help="KEY=VALUE passed to the backend (repeatable).")
]
NoCache = Annotated[bool, typer.Option("--no-cache", help="Do not read or write the model call cache.")]
Workers = Annotated[int, typer.Option("--workers", help="Parallel replays.")]
Timeout = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        help="Seconds one model call may take (default: fitted to the backend: 300 for the embedded CPU model, "
        "600 for an agent CLI in mode=agent, else 120).",
    ),
]
Miner = Annotated[str, typer.Option("--miner", help="heuristic (no model), llm, or auto (both when a capable model is set).")]
Reflector = Annotated[str, typer.Option("--reflector", help="heuristic (no model), llm, or auto.")]
EditBudget = Annotated[int, typer.Option("--edit-budget", help="Most edits proposed per night.")]
Preferences = Annotated[
    str | None,
    typer.Option(
        "--preferences",
        help="House rules for the reflector (LLM reflection): the text, or a file holding it.",
    ),
]
RecallK = Annotated[
    int, typer.Option("--recall-k", help="Add the K most similar train tasks from this project's earlier nights.")
]
DreamFactor = Annotated[
    int,
    typer.Option(
        "--dream-factor",
        help="Add N rephrased variants of each real train task (train only; written by the optimizer when the miner may "
        "use a model, deterministic otherwise).",
    ),
]
DreamRollouts = Annotated[
    int,
    typer.Option(
        "--dream-rollouts",
        help="Replay each train task K times (distinct seeds); K > 1 shows the optimizer GOOD vs BAD attempts.",
    ),
]
Gate = Annotated[str, typer.Option("--gate", help="strict (default) or paired (per-task test, with --no-regression).")]
GateMetric = Annotated[str, typer.Option("--gate-metric", help="hard, soft or mixed.")]
NoRegression = Annotated[
    bool, typer.Option("--no-regression", help="Reject a candidate that makes any val task worse (paired gate).")
]
Repeats = Annotated[int, typer.Option("--repeats", help="Samples per val task (stochastic models).")]
MinVal = Annotated[int, typer.Option("--min-val", help="Fewest comparable val tasks a gate decision needs.")]
ValFraction = Annotated[float, typer.Option("--val-fraction", help="Share of sessions held out for validation.")]
TestFraction = Annotated[float, typer.Option("--test-fraction", help="Share of sessions held out as a write-only test split.")]
Seed = Annotated[int, typer.Option("--seed", help="Split and sampling seed.")]
MaxSessions = Annotated[int, typer.Option("--max-sessions", help="Most sessions harvested per night.")]
MaxTasks = Annotated[int, typer.Option("--max-tasks", help="Most tasks replayed per night.")]
MaxCalls = Annotated[int | None, typer.Option("--max-calls", help="Stop cleanly after this many paid model calls.")]
MaxTokens = Annotated[int | None, typer.Option("--max-tokens", help="Stop cleanly after this many tokens.")]
MaxCost = Annotated[float | None, typer.Option("--max-cost", help="Stop cleanly once this many USD are spent.")]
AutoAdopt = Annotated[bool, typer.Option("--auto-adopt", help="Adopt an accepted night right away (opt-in).")]
TasksFile = Annotated[
    Path | None,
    typer.Option("--tasks-file", help="Replay a reviewed tasks file (from `harvest --output`) instead of harvesting."),
]
Json = Annotated[bool, typer.Option("--json", help="Print the result as JSON on stdout.")]
Night = Annotated[str | None, typer.Argument(help="Night name (YYYYmmdd-HHMMSS); default: the latest.")]
BreakLock = Annotated[bool, typer.Option("--break-lock", help="Take over an adoption lock held by a process that is gone.")]
SkillSelect = Annotated[
    list[str] | None,
    typer.Option("--skill", help="A fan-out skill's proposal, by skill name (repeatable); default: the main proposal."),
]
AllSkills = Annotated[bool, typer.Option("--all-skills", help="Every fan-out skill's proposal of the night.")]
FanOut = Annotated[
    bool,
    typer.Option(
        "--fan-out",
        help="Also consolidate each skill tonight's sessions used, from its own SKILL.md, as its own proposal "
        "(adopt with --skill NAME).",
    ),
]


def _night_command(dry_run: bool):
    def command(
        project: Project = Path("."),
        source: Source = None,
        root: Root = None,
        scope: Scope = "invoked",
        lookback_hours: Lookback = 168.0,
        agent: Agent = "",
        target_skill_path: SkillPath = "",
        memory: Memory = "auto",
        backend: Backend = "auto",
        model: Model = "",
        optimizer_backend: OptBackend = "",
        optimizer_model: OptModel = "",
        backend_option: BackendOption = None,
        no_cache: NoCache = False,
        workers: Workers = 4,
        timeout: Timeout = None,
        miner: Miner = "auto",
        reflector: Reflector = "auto",
        edit_budget: EditBudget = 4,
        preferences: Preferences = None,
        recall_k: RecallK = 0,
        dream_factor: DreamFactor = 0,
        dream_rollouts: DreamRollouts = 1,
        gate: Gate = "strict",
        gate_metric: GateMetric = "mixed",
        no_regression: NoRegression = False,
        repeats: Repeats = 1,
        min_val: MinVal = 2,
        val_fraction: ValFraction = 0.34,
        test_fraction: TestFraction = 0.0,
        seed: Seed = 42,
        max_sessions: MaxSessions = 200,
        max_tasks: MaxTasks = 40,
        max_calls: MaxCalls = None,
        max_tokens: MaxTokens = None,
        max_cost: MaxCost = None,
        fan_out: FanOut = False,
        auto_adopt: AutoAdopt = False,
        tasks_file: TasksFile = None,
        as_json: Json = False,
    ) -> None:
        kw = {k: v for k, v in locals().items() if k != "dry_run"}
        from skillopt_sleep.cli import actions

        actions.night(dry_run=dry_run, **kw)

    command.__doc__ = (
        "Harvest, mine and replay like `run`, but stage nothing and save no state (model calls still happen)."
        if dry_run
        else "Run tonight's cycle and stage an accepted proposal for review (adopt it with `adopt`)."
    )
    return command


sleep_app.command("run")(_night_command(False))
sleep_app.command("dry-run")(_night_command(True))


@sleep_app.command("harvest")
def harvest(
    project: Project = Path("."),
    source: Source = None,
    root: Root = None,
    scope: Scope = "invoked",
    lookback_hours: Lookback = 168.0,
    max_sessions: MaxSessions = 200,
    val_fraction: ValFraction = 0.34,
    test_fraction: TestFraction = 0.0,
    seed: Seed = 42,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the mined tasks (reviewed: false) to this file.")
    ] = None,
    as_json: Json = False,
) -> None:
    """Harvest sessions and mine tasks with no model; print them (or write a tasks file to review)."""
    kw = dict(locals())
    from skillopt_sleep.cli import actions

    actions.harvest(**kw)


@sleep_app.command("ab")
def ab(
    tasks_file: Annotated[Path, typer.Option("--tasks-file", help="The fixed task manifest (a reviewed tasks file).")],
    skill_a: Annotated[Path, typer.Option("--skill-a", help="Skill document of arm A (e.g. the live SKILL.md).")],
    skill_b: Annotated[Path, typer.Option("--skill-b", help="Skill document of arm B (e.g. a staged proposal).")],
    memory: Annotated[
        Path | None, typer.Option("--memory", help="Memory file both arms see (default: none).")
    ] = None,
    seeds: Annotated[int, typer.Option("--seeds", help="Seeds per task and arm (distinct samples).")] = 3,
    seed: Seed = 42,
    confidence: Annotated[float, typer.Option("--confidence", help="Confidence of the bootstrap interval.")] = 0.95,
    resamples: Annotated[
        int, typer.Option("--resamples", help="Bootstrap draws when the distribution is too large to enumerate.")
    ] = 10_000,
    project: Project = Path("."),
    backend: Backend = "auto",
    model: Model = "",
    optimizer_backend: OptBackend = "",
    optimizer_model: OptModel = "",
    backend_option: BackendOption = None,
    no_cache: NoCache = False,
    workers: Workers = 4,
    timeout: Timeout = None,
    max_calls: MaxCalls = None,
    max_cost: MaxCost = None,
    as_json: Json = False,
) -> None:
    """Paired A/B evaluation of two skills on a fixed task manifest: exact McNemar test and a
    task-level bootstrap interval on the success-rate difference (B − A), over several seeds."""
    kw = dict(locals())
    from skillopt_sleep.cli import evaluation

    evaluation.ab(**kw)


@sleep_app.command("prompts")
def prompts_command(
    starter: Annotated[
        bool, typer.Option("--starter", help="Print a prompt file holding every default (commented) to copy and edit.")
    ] = False,
    as_json: Json = False,
) -> None:
    """The prompts a night sends, which ones your prompt file overrides, and where that file is."""
    from skillopt_sleep.cli import evaluation

    evaluation.prompts(starter=starter, as_json=as_json)


@sleep_app.command("status")
def status(project: Project = Path("."), as_json: Json = False) -> None:
    """Nights run, the latest result, staged and adopted nights."""
    from skillopt_sleep.cli import actions

    actions.status(project=project, as_json=as_json)


@sleep_app.command("adopt")
def adopt(
    night: Night = None,
    project: Project = Path("."),
    skill: SkillSelect = None,
    all_skills: AllSkills = False,
    break_lock: BreakLock = False,
    as_json: Json = False,
) -> None:
    """Write a staged night's proposal into the live files (atomically, with backups);
    --skill / --all-skills adopt a fan-out night's per-skill proposals instead."""
    from skillopt_sleep.cli import actions

    actions.adopt(night=night, project=project, skills=tuple(skill or ()), all_skills=all_skills, break_lock=break_lock,
                  as_json=as_json)  # fmt: skip


@sleep_app.command("rollback")
def rollback(
    night: Night = None,
    project: Project = Path("."),
    skill: SkillSelect = None,
    all_skills: AllSkills = False,
    break_lock: BreakLock = False,
    force: Annotated[bool, typer.Option("--force", help="Restore even if the live file changed after adoption.")] = False,
    as_json: Json = False,
) -> None:
    """Restore the files an adopted night replaced, byte for byte (default: the latest adopted night);
    --skill / --all-skills restore only those fan-out skills."""
    from skillopt_sleep.cli import actions

    actions.rollback(night=night, project=project, skills=tuple(skill or ()), all_skills=all_skills,
                     break_lock=break_lock, force=force, as_json=as_json)  # fmt: skip


@sleep_app.command("diff")
def diff(night: Night = None, project: Project = Path("."), as_json: Json = False) -> None:
    """Show what adopting a staged night would change in each live file."""
    from skillopt_sleep.cli import actions

    actions.diff(night=night, project=project, as_json=as_json)


@sleep_app.command("schedule")
def schedule(
    project: Project = Path("."),
    hour: Annotated[int, typer.Option("--hour", help="Hour (0-23).")] = 3,
    minute: Annotated[int, typer.Option("--minute", help="Minute (0-59).")] = 17,
    source: Source = None,
    backend: Backend = "auto",
    model: Model = "",
    backend_option: BackendOption = None,
    lookback_hours: Lookback = 168.0,
    max_calls: MaxCalls = None,
    max_tokens: MaxTokens = None,
    max_cost: MaxCost = None,
    auto_adopt: AutoAdopt = False,
    print_only: Annotated[bool, typer.Option("--print", help="Print the crontab line instead of installing it.")] = False,
    crontab_file: Annotated[
        Path | None, typer.Option("--crontab-file", help="Edit this file instead of the user crontab.", hidden=True)
    ] = None,
    as_json: Json = False,
) -> None:
    """Install a user crontab entry that runs this project's cycle every night."""
    kw = dict(locals())
    from skillopt_sleep.cli import scheduling

    scheduling.schedule(**kw)


@sleep_app.command("session-end")
def session_end(
    min_hours: Annotated[
        float, typer.Option("--min-hours", help="Start no night if the last one started less than this many hours ago.")
    ] = 6.0,
    source: Source = None,
    backend: Backend = "auto",
    model: Model = "",
    backend_option: BackendOption = None,
    lookback_hours: Lookback = 168.0,
    max_calls: MaxCalls = None,
    max_cost: MaxCost = None,
) -> None:
    """For a SessionEnd hook: read the hook's JSON on stdin and stage a night for its
    project in the background (never adopts; returns at once; always exits 0)."""
    kw = dict(locals())
    from skillopt_sleep.cli import scheduling

    scheduling.session_end(**kw)


@sleep_app.command("unschedule")
def unschedule(
    project: Project = Path("."),
    everything: Annotated[bool, typer.Option("--all", help="Remove every skillopt sleep entry.")] = False,
    crontab_file: Annotated[Path | None, typer.Option("--crontab-file", hidden=True)] = None,
    as_json: Json = False,
) -> None:
    """Remove this project's crontab entry."""
    from skillopt_sleep.cli import scheduling

    scheduling.unschedule(project=project, everything=everything, crontab_file=crontab_file, as_json=as_json)


@sleep_app.command("experiment")
def experiment(
    persona: Annotated[str, typer.Option("--persona", help="Bundled persona: pythonista or webdev (or all).")] = "all",
    seeds: Annotated[int, typer.Option("--seeds", help="Number of seeds to run.")] = 3,
    assert_improves: Annotated[
        bool, typer.Option("--assert-improves", help="Exit 1 unless held-out improves and the harmful edit is blocked.")
    ] = False,
    home: Annotated[
        bool,
        typer.Option(
            "--home",
            help="Run the fixture-home experiment instead: seven agents' real formats, recurring jobs, traps and "
            "planted secrets; reports what was found, mined and staged.",
        ),
    ] = False,
    homes: Annotated[
        str,
        typer.Option("--homes", help="Run the generated-homes experiment on a set: tune, held-out or all (a table per home)."),
    ] = "",
    as_json: Json = False,
) -> None:
    """The deterministic experiments: personas (the gated cycle improves held-out score and blocks a harmful edit),
    with --home a realistic home directory, with --homes many generated ones."""
    from skillopt_sleep.cli import actions

    actions.experiment(persona=persona, seeds=seeds, assert_improves=assert_improves, home=home, as_json=as_json, homes=homes)


@hookimpl
def skillopt_register_commands(app):
    app.add_typer(sleep_app, name="sleep")
