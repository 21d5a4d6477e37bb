"""The tools this server offers, each mapped onto one ``skillopt`` command.

Option names, types and ranges follow ``skillopt sleep``'s CLI (enums come from
``skillopt_sleep.options``); ``tests/test_arguments.py`` parses every argument list
built from here with the real click commands.
"""

from __future__ import annotations

from skillopt_mcp.skillopt_tools import skillopt_tools
from skillopt_mcp.spec import (
    NAME_PATTERN,
    NIGHT_PATTERN,
    PAIRS,
    POSITIONAL,
    REPEAT,
    SERVER,
    SWITCH,
    TEXT_PATTERN,
    Param,
    ToolSpec,
    boolean,
    choice,
    integer,
    name,
    number,
    text,
)

PROJECT = Param(
    "project",
    text(
        "The project directory (absolute path of the repository you are working in). "
        "A relative path is resolved against the server's working directory.",
        min_length=1,
    ),
    required=True,
)
NIGHT = Param(
    "night",
    {
        "type": "string",
        "pattern": NIGHT_PATTERN,
        "description": "Night name as listed by sleep_status (YYYYmmdd-HHMMSS). Default: the latest one.",
    },
    style=POSITIONAL,
)
SKILLS = Param(
    "skills",
    {
        "type": "array",
        "items": name("Skill name"),
        "minItems": 1,
        "uniqueItems": True,
        "description": "Only these fan-out skills' proposals (names as sleep_status lists them). Default: the main proposal.",
    },
    "--skill",
    REPEAT,
)
ALL_SKILLS = Param("all_skills", boolean("Every fan-out skill's proposal of the night."), "--all-skills", SWITCH)
BREAK_LOCK = Param(
    "break_lock",
    boolean("Take over an adoption lock left by a process that no longer exists."),
    "--break-lock",
    SWITCH,
)
CONFIRM = Param(
    "confirm",
    boolean(
        "Must be true. Set it only after the user has seen what this changes (sleep_diff) "
        "and has explicitly asked for it in this conversation."
    ),
    required=True,
    style=SERVER,
)


def timeout_param(default: int) -> Param:
    return Param(
        "timeout_seconds",
        integer(
            f"Stop the command after this many seconds (default {default}); an interrupted night stages nothing.",
            minimum=10,
            maximum=86_400,
        ),
        style=SERVER,
    )


HARVEST_SCOPE = (
    Param(
        "source",
        {
            "type": "array",
            "items": name("Harvester name"),
            "minItems": 1,
            "uniqueItems": True,
            "description": (
                "Transcript sources to read: claude-code, codex, copilot-cli, vscode-copilot, cursor, "
                "opencode, pi (or any installed harvester), or auto (every source with data). Default: auto."
            ),
        },
        "--source",
        REPEAT,
    ),
    Param(
        "roots",
        {
            "type": "object",
            "propertyNames": {"pattern": NAME_PATTERN},
            "additionalProperties": text("Directory or database path"),
            "description": "Read a source from another location: {source name: path}.",
        },
        "--root",
        PAIRS,
    ),
    Param(
        "scope",
        choice("invoked: only sessions run in this project (default); all: every session.", ("invoked", "all")),
        "--scope",
    ),
    Param(
        "lookback_hours",
        number("Harvest sessions from the last N hours (0 = all history; default 168).", minimum=0),
        "--lookback-hours",
    ),
    Param("max_sessions", integer("Most sessions harvested (default 200).", minimum=1), "--max-sessions"),
    Param(
        "val_fraction",
        number("Share of sessions held out for validation (default 0.34).", exclusiveMinimum=0, exclusiveMaximum=1),
        "--val-fraction",
    ),
    Param(
        "test_fraction",
        number("Share of sessions held out as a write-only test split (default 0).", minimum=0, exclusiveMaximum=1),
        "--test-fraction",
    ),
    Param("seed", integer("Split and sampling seed (default 42)."), "--seed"),
)


def _night_params() -> tuple[Param, ...]:
    from skillopt_sleep.options import GATE_METRICS, MINERS, REFLECTORS

    return (
        PROJECT,
        *HARVEST_SCOPE,
        Param("agent", name("Agent whose memory file to evolve (default: the one with most sessions)."), "--agent"),
        Param(
            "target_skill_path",
            text("Skill file to evolve, relative to the project (default: the agent's project skill folder)."),
            "--target-skill-path",
        ),
        Param("memory", text("Memory file: auto (per agent, default), a path relative to the project, or none."), "--memory"),
        Param(
            "backend",
            name("Model backend for replay and judging (see skillopt_backends), handoff, or auto (default)."),
            "--backend",
        ),
        Param("model", text("Model name for the backend."), "--model"),
        Param("optimizer_backend", name("Backend for mining, reflection and rubric judging."), "--optimizer-backend"),
        Param("optimizer_model", text("Model for the optimizer backend."), "--optimizer-model"),
        Param(
            "backend_options",
            {
                "type": "object",
                "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_.-]{0,63}$"},
                "additionalProperties": {"type": ["string", "number", "boolean"], "pattern": TEXT_PATTERN},
                "description": "Options passed to the backend, e.g. {\"base_url\": \"http://127.0.0.1:8080/v1\"}.",
            },
            "--backend-option",
            PAIRS,
        ),
        Param("no_cache", boolean("Do not read or write the model call cache."), "--no-cache", SWITCH),
        Param("workers", integer("Parallel replays (default 4).", minimum=1, maximum=64), "--workers"),
        Param("timeout", number("Seconds one model call may take (default: fitted to the backend).", exclusiveMinimum=0),
              "--timeout"),
        Param("miner", choice("Task miner (default auto).", MINERS), "--miner"),
        Param("reflector", choice("Edit proposer (default auto).", REFLECTORS), "--reflector"),
        Param("edit_budget", integer("Most edits proposed per night (default 4).", minimum=1), "--edit-budget"),
        Param("preferences", text("House rules shown to the LLM reflector (the text, or a file relative to the project)."),
              "--preferences"),
        Param("fan_out", boolean("Also consolidate each skill the sessions used, from its own SKILL.md, as its own "
              "proposal (adopt it with sleep_adopt skills)."), "--fan-out", SWITCH),
        Param("recall_k", integer("Add the K most similar tasks from earlier nights (default 0).", minimum=0), "--recall-k"),
        Param("dream_factor", integer("Rephrased, train-only variants of each real train task (default 0).",
              minimum=0, maximum=8), "--dream-factor"),
        Param("dream_rollouts", integer("Train replays per task; above 1 the optimizer sees GOOD vs BAD attempts "
              "(default 1).", minimum=1, maximum=16), "--dream-rollouts"),
        Param("gate", name("Validation gate: strict (default) or paired."), "--gate"),
        Param("gate_metric", choice("Score the gate compares (default mixed).", GATE_METRICS), "--gate-metric"),
        Param("no_regression", boolean("Reject a candidate that makes any val task worse."), "--no-regression", SWITCH),
        Param("repeats", integer("Samples per val task (default 1).", minimum=1, maximum=50), "--repeats"),
        Param("min_val", integer("Fewest comparable val tasks a gate decision needs (default 2).", minimum=1), "--min-val"),
        Param("max_tasks", integer("Most tasks replayed (default 40).", minimum=1), "--max-tasks"),
        Param("max_calls", integer("Stop cleanly after this many paid model calls.", minimum=1), "--max-calls"),
        Param("max_tokens", integer("Stop cleanly after this many tokens.", minimum=1), "--max-tokens"),
        Param("max_cost", number("Stop cleanly once this many USD are spent.", exclusiveMinimum=0), "--max-cost"),
        Param(
            "tasks_file",
            text("Replay a reviewed tasks file (from sleep_harvest output, relative to the project) instead of harvesting."),
            "--tasks-file",
        ),
        timeout_param(3600),
    )


NIGHT_TIMEOUT = 3600.0


def build_catalog() -> tuple[ToolSpec, ...]:
    night = _night_params()
    return (
        ToolSpec(
            name="sleep_status",
            title="SkillOpt sleep: status",
            description=(
                "Show skillopt sleep's state for a project: nights run, the latest results, and which nights are "
                "staged (waiting for review) or adopted. Read-only; start here."
            ),
            command=("sleep", "status"),
            params=(PROJECT,),
            timeout=120,
        ),
        ToolSpec(
            name="sleep_dry_run",
            title="SkillOpt sleep: dry run",
            description=(
                "Harvest this project's coding-agent sessions, mine recurring tasks, replay them with the current "
                "skill and gate candidate edits, exactly like sleep_run, but stage nothing and save no state. "
                "Model calls still happen (use backend/max_calls to control cost). Returns the night report."
            ),
            command=("sleep", "dry-run"),
            params=night,
            timeout=NIGHT_TIMEOUT,
            ok_exit_codes=frozenset({0, 3}),
        ),
        ToolSpec(
            name="sleep_run",
            title="SkillOpt sleep: run tonight's cycle",
            description=(
                "Run the full cycle and, if the validation gate accepts an edit, stage the proposal under "
                "<project>/.skillopt-sleep/ for review. Changes no live file: show the result with sleep_diff and "
                "let the user decide about sleep_adopt. status handoff_pending means prompts wait in the handoff folder."
            ),
            command=("sleep", "run"),
            params=night,
            timeout=NIGHT_TIMEOUT,
            read_only=False,
            ok_exit_codes=frozenset({0, 3}),
        ),
        ToolSpec(
            name="sleep_diff",
            title="SkillOpt sleep: diff a staged night",
            description=(
                "Unified diffs of what adopting a staged night would change in each live file (skill, memory). "
                "Read-only. Show these to the user before any sleep_adopt."
            ),
            command=("sleep", "diff"),
            params=(PROJECT, NIGHT),
            timeout=120,
        ),
        ToolSpec(
            name="sleep_adopt",
            title="SkillOpt sleep: adopt a staged night",
            description=(
                "Write a staged night's accepted edits into the live files (atomic, with backups; undo with "
                "sleep_rollback). Changes the user's instructions for every later session, so call it only when the "
                "user has reviewed sleep_diff and explicitly asked to adopt, and pass confirm: true."
            ),
            command=("sleep", "adopt"),
            params=(PROJECT, NIGHT, CONFIRM, SKILLS, ALL_SKILLS, BREAK_LOCK),
            timeout=120,
            needs_confirm=True,
            read_only=False,
            destructive=True,
        ),
        ToolSpec(
            name="sleep_rollback",
            title="SkillOpt sleep: roll back an adopted night",
            description=(
                "Restore, byte for byte, the files an adopted night replaced (default: the latest adopted night). "
                "Call it only when the user asked for it, and pass confirm: true."
            ),
            command=("sleep", "rollback"),
            params=(
                PROJECT,
                NIGHT,
                CONFIRM,
                SKILLS,
                ALL_SKILLS,
                BREAK_LOCK,
                Param(
                    "force",
                    boolean("Restore even if the live file was edited after adoption (those edits are lost)."),
                    "--force",
                    SWITCH,
                ),
            ),
            timeout=120,
            needs_confirm=True,
            read_only=False,
            destructive=True,
        ),
        ToolSpec(
            name="sleep_harvest",
            title="SkillOpt sleep: harvest and mine (no model)",
            description=(
                "Read this project's coding-agent transcripts (secrets redacted) and mine checkable tasks and "
                "lessons with no model call. Returns the tasks; with output, also writes a tasks file to review "
                "(set \"reviewed\": true) and replay with sleep_run tasks_file."
            ),
            command=("sleep", "harvest"),
            params=(
                PROJECT,
                *HARVEST_SCOPE,
                Param(
                    "output",
                    text("Also write the mined tasks to this file (relative to the project) for review.", min_length=1),
                    "--output",
                ),
                timeout_param(600),
            ),
            timeout=600,
        ),
        *skillopt_tools(PROJECT, CONFIRM),
    )


_CATALOG: dict[str, ToolSpec] | None = None


def catalog() -> dict[str, ToolSpec]:
    global _CATALOG
    if _CATALOG is None:
        _CATALOG = {spec.name: spec for spec in build_catalog()}
    return _CATALOG


TOOL_NAMES = (
    "sleep_status",
    "sleep_dry_run",
    "sleep_run",
    "sleep_diff",
    "sleep_adopt",
    "sleep_rollback",
    "sleep_harvest",
    "skillopt_envs",
    "skillopt_backends",
    "skillopt_runs",
    "skillopt_run_show",
    "skillopt_export",
)
