"""The tools over plain ``skillopt`` commands (not ``sleep``): installed plugins, training
runs, and installing a trained skill into the project."""

from __future__ import annotations

from skillopt_mcp.spec import NAME_PATTERN, POSITIONAL, REPEAT, SWITCH, Param, ToolSpec, boolean, text

RUN = Param(
    "run",
    {"type": "string", "pattern": NAME_PATTERN, "description": "Run id as skillopt_runs lists it."},
    style=POSITIONAL,
    required=True,
)
RUNS_DIR = Param(
    "runs_dir",
    {"type": "array", "items": text("Directory", min_length=1), "description": "Folders of run directories (default: the user's runs)."},
    "--runs-dir",
    REPEAT,
)


def skillopt_tools(project: Param, confirm: Param) -> tuple[ToolSpec, ...]:
    """``project`` and ``confirm`` are the catalog's shared parameters (one definition)."""
    return (
        ToolSpec(
            name="skillopt_envs",
            title="SkillOpt: installed benchmark envs",
            description="List the installed SkillOpt benchmark environments and the distribution providing each.",
            command=("envs",),
            params=(Param("load", boolean("Import each plugin to check it loads and read its summary."), "--load", SWITCH),),
            timeout=300,
            takes_project=False,
        ),
        ToolSpec(
            name="skillopt_backends",
            title="SkillOpt: installed model backends",
            description=(
                "List the installed model backends (usable as backend in sleep_run) and the distribution providing each."
            ),
            command=("backends",),
            params=(Param("load", boolean("Import each plugin to check it loads and read its summary."), "--load", SWITCH),),
            timeout=300,
            takes_project=False,
        ),
        ToolSpec(
            name="skillopt_runs",
            title="SkillOpt: training runs",
            description=(
                "List the user's SkillOpt training runs, newest first: status, steps, baseline and best "
                "validation score, initial and best test score, cost."
            ),
            command=("runs",),
            params=(RUNS_DIR,),
            timeout=120,
            takes_project=False,
        ),
        ToolSpec(
            name="skillopt_run_show",
            title="SkillOpt: one training run",
            description="One run's overview and every step's decision (action, edits, budget, scores, tokens, cost).",
            command=("runs", "show"),
            params=(RUN, RUNS_DIR),
            timeout=120,
            takes_project=False,
        ),
        ToolSpec(
            name="skillopt_export",
            title="SkillOpt: install a trained skill into the project",
            description=(
                "Write a run's best skill where coding agents read skills in this project: an Agent Skills "
                "folder (claude-code, codex, agents), a Cursor rule or Copilot instructions. An existing "
                "different file is only replaced with force (a backup is kept)."
            ),
            command=("export",),
            params=(
                project,
                confirm,
                RUN,
                Param(
                    "to",
                    {
                        "type": "array",
                        "items": {"type": "string", "enum": ["agents", "claude-code", "codex", "cursor", "copilot"]},
                        "minItems": 1,
                        "uniqueItems": True,
                        "description": "Where to install it: agents, claude-code, codex, cursor, copilot.",
                    },
                    "--to",
                    REPEAT,
                    required=True,
                ),
                Param("name", {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$", "maxLength": 64,
                               "description": "Skill name: lowercase letters, digits and single hyphens."}, "--name"),
                Param("description", text("When the agent should use the skill (default: its first line).", min_length=1),
                      "--description"),
                Param("force", boolean("Replace an existing different file (kept as a .bak- backup)."), "--force", SWITCH),
            ),
            timeout=120,
            needs_confirm=True,
            read_only=False,
            destructive=True,  # with force it replaces an existing different file (a backup is kept)
        ),
    )
