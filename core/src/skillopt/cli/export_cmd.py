"""``skillopt export``: install a trained skill where coding agents read skills."""

from pathlib import Path
from typing import Annotated

import typer

from skillopt.cli.output import fail, print_json

RunArg = Annotated[str, typer.Argument(metavar="RUN|FILE|DIR", help="A run (id as `skillopt runs` lists it, or its directory: exports best_skill.md, a folder skill as its folder), a skill .md file or an Agent Skills folder.")]
ToOpt = Annotated[list[str], typer.Option("--to", help="agents, claude-code, codex, cursor or copilot (repeatable).")]
ProjectOpt = Annotated[Path | None, typer.Option("--project", help="Install into this project; without it, the user-level skills folder.")]
NameOpt = Annotated[str | None, typer.Option("--name", help="Skill name: lowercase letters, digits, hyphens (default: from the env or file).")]
DescOpt = Annotated[str | None, typer.Option("--description", help="When the agent should use it (default: the skill's first line).")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Replace an existing different file (kept as a .bak- backup).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print what was written as JSON.")]


def export(
    run: RunArg,
    to: ToOpt,
    project: ProjectOpt = None,
    name: NameOpt = None,
    description: DescOpt = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Install a trained skill as an Agent Skill (Claude Code, Codex, …), a Cursor rule or Copilot instructions."""
    import re

    import attrs

    from skillopt import export as exporting
    from skillopt.cli.output import info
    from skillopt.errors import SkillOptError
    from skillopt.runstore import is_run_dir, read_json
    from skillopt.skillfolder import SkillFolder, skill_of

    src, env = Path(run).expanduser(), ""
    if src.is_dir() and (src / "SKILL.md").is_file() and not is_run_dir(src):
        body = _folder_text(src)
    else:
        if not src.is_file():
            from skillopt.cli.runs_cmd import _resolve

            _, run_dir = _resolve(run, None) if not is_run_dir(src) else (src.name, src)
            env = ((read_json(run_dir / "config.json") or {}).get("env") or {}).get("name", "")
            src = run_dir / "best_skill.md"
            if not src.is_file():
                raise fail(f"{run_dir} has no best_skill.md yet")
        body = _skill_text(src)
    folder = skill_of(body)
    if isinstance(folder, SkillFolder):  # a folder skill names itself in its front matter
        chosen, text = name or folder.name, description or folder.description
    else:
        default_name = re.sub(r"[^a-z0-9]+", "-", (env or src.stem).lower()).strip("-") or "skill"
        chosen = name or (f"{default_name}-skill" if env else default_name)
        text = description or exporting.default_description(body, env)
    done = []
    try:
        for target in to:
            done.append(exporting.export(body, target=target, name=chosen, description=text, project=project, force=force, source=str(src)))
    except SkillOptError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:  # a folder on the way that is a file, a read-only place
        raise fail(f"{target}: cannot write {exc.filename or project or 'the skill'}: {exc.strerror or exc}") from None
    for item in done:
        what = "unchanged" if item.unchanged else ("replaced" if item.replaced else "wrote")
        info(f"{item.target}: {what} {item.path}" + (f" (backup {item.backup})" if item.backup else "")
             + (f"; {item.note}" if item.note else ""))
    if as_json:
        print_json([attrs.asdict(item) for item in done])


def _skill_text(src: Path) -> str:
    """The skill to install; a run's best skill is checked against the hash its state
    recorded, so a damaged file is never installed into an agent."""
    from skillopt.engine import saved_run
    from skillopt.engine.rundir import RunDir, RunFileError, read_text_file

    try:
        state = saved_run.load_state(RunDir(src.parent)) if src.name == "best_skill.md" else None
        if state is not None:
            return saved_run.best_skill(RunDir(src.parent), state, restore=False)
        return read_text_file(src, "save it as UTF-8 and try again")
    except RunFileError as exc:
        raise fail(str(exc)) from None


def _folder_text(src: Path) -> str:
    """An Agent Skills folder given on the command line, checked, as its canonical text."""
    from skillopt.errors import SkillOptError
    from skillopt.skillfolder.disk import load_folder

    try:
        return load_folder(src, str(src)).text()
    except SkillOptError as exc:
        raise fail(str(exc)) from None
