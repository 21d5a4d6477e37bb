"""Installing a trained skill where coding agents look for skills and rules.

A skill document is trained to be used. ``skillopt export`` writes it in each agent's own
format: an Agent Skills folder (``SKILL.md`` with ``name``/``description`` front matter,
read by Claude Code, Codex and other clients), a Cursor rule (``.mdc``) or a Copilot
instructions file. Writes are atomic; an existing different file is never overwritten
without ``force``, and then it is kept as a timestamped backup. A folder skill is
written whole (``SKILL.md``, ``references/``, ``scripts/`` with their modes), the old
folder kept as a hidden ``.NAME.bak-TIME`` sibling (not a valid skill name, so agents
do not load it as a second skill); a one-file target (Cursor, Copilot) gets its inline
rendering, without the scripts.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import attrs

from skillopt.errors import ConfigError
from skillopt.fsio import write_atomic
from skillopt.records import SkillFile, skill_hash
from skillopt.redact import redact_text
from skillopt.skillfolder import MAIN, MAX_DESCRIPTION, MAX_NAME, NAME, SkillFolder, front_matter_fields, skill_of

FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n+", re.DOTALL)
TARGETS = ("agents", "claude-code", "codex", "cursor", "copilot")


@attrs.frozen(kw_only=True)
class Exported:
    target: str
    path: str
    name: str
    replaced: bool
    backup: str = ""
    unchanged: bool = False
    #: what the target could not take (a folder's scripts in a one-file rule)
    note: str = ""


def check_name(name: str) -> str:
    if not (1 <= len(name) <= MAX_NAME) or not NAME.match(name):
        raise ConfigError(
            f"skill name {name!r}: use 1-{MAX_NAME} lowercase letters, digits and single hyphens "
            "(no leading, trailing or double hyphen), as the Agent Skills format requires"
        )
    return name


def default_description(body: str, env: str = "") -> str:
    """The skill's first heading or line, and where it was trained."""
    first = next((line.strip("# ").strip() for line in body.splitlines() if line.strip()), "Trained skill")
    where = f" Trained with SkillOpt on {env}." if env else " Trained with SkillOpt."
    text = f"{first}.{where}" if not first.endswith(".") else f"{first}{where}"
    return text[:MAX_DESCRIPTION]


def _yaml_string(text: str) -> str:
    return json.dumps(" ".join(text.split()), ensure_ascii=False)  # a JSON string is a valid YAML scalar


def destination(target: str, name: str, *, project: Path | None) -> Path:
    """Where ``target`` reads a skill named ``name``: under ``project``, or the user's home."""
    if target not in TARGETS:
        raise ConfigError(f"unknown export target {target!r}; choose one of {', '.join(TARGETS)}")
    home = Path.home()
    if project is None:
        user_roots = {
            "agents": home / ".agents" / "skills",
            "claude-code": Path(os.environ.get("CLAUDE_CONFIG_DIR") or home / ".claude") / "skills",
            "codex": Path(os.environ.get("CODEX_HOME") or home / ".codex") / "skills",
        }
        if target not in user_roots:
            raise ConfigError(f"{target} reads rules per project: pass --project DIR")
        return user_roots[target] / name / "SKILL.md"
    if project.exists() and not project.is_dir():
        raise ConfigError(f"--project {project} is a file, not a project folder")
    return {
        "agents": project / ".agents" / "skills" / name / "SKILL.md",
        "claude-code": project / ".claude" / "skills" / name / "SKILL.md",
        "codex": project / ".agents" / "skills" / name / "SKILL.md",
        "cursor": project / ".cursor" / "rules" / f"{name}.mdc",
        "copilot": project / ".github" / "instructions" / f"{name}.instructions.md",
    }[target]


def render(target: str, name: str, description: str, body: str, *, source: str = "") -> str:
    body = redact_text(FRONT_MATTER.sub("", body).strip()) + "\n"
    digest = skill_hash(body)
    if target == "cursor":
        head = [f"description: {_yaml_string(description)}", "alwaysApply: false"]
    elif target == "copilot":
        head = [f"description: {_yaml_string(description)}", 'applyTo: "**"']
    else:
        head = [f"name: {name}", f"description: {_yaml_string(description)}", "metadata:", '  generator: "skillopt"',
                f'  skill_hash: "{digest}"'] + ([f"  source: {_yaml_string(source)}"] if source else [])
    return "---\n" + "\n".join(head) + "\n---\n\n" + body


def export(body: str, *, target: str, name: str, description: str, project: Path | None, force: bool = False,
           source: str = "") -> Exported:
    """Install ``body`` (a skill's text; a folder skill's canonical text) for ``target``."""
    check_name(name)
    if not description.strip() or len(description) > MAX_DESCRIPTION:
        raise ConfigError(f"the description must be 1-{MAX_DESCRIPTION} characters")
    note = ""
    folder = skill_of(body)
    if isinstance(folder, SkillFolder):
        if target in ("cursor", "copilot"):
            from skillopt.skillfolder import render_inline

            body = render_inline(folder)
            scripts = ", ".join(f.path for f in folder.scripts)
            note = f"{scripts} not installed: a {target} rule is one file" if scripts else ""
        else:
            return export_folder(folder, target=target, name=name, description=description, project=project, force=force)
    path = destination(target, name, project=project)
    text = render(target, name, description, body, source=source)
    backup = ""
    existed = path.exists()
    if existed:
        old = path.read_text(encoding="utf-8", errors="replace")
        if old == text:
            return Exported(target=target, path=str(path), name=name, replaced=False, unchanged=True, note=note)
        if not force:
            raise ConfigError(f"{path} exists with other content; pass --force to replace it (a backup is kept)")
        backup_path = path.with_name(f"{path.name}.bak-{time.strftime('%Y%m%d-%H%M%S')}")
        backup_path.write_text(old, encoding="utf-8")
        backup = str(backup_path)
    write_atomic(path, text)
    return Exported(target=target, path=str(path), name=name, replaced=existed, backup=backup, note=note)


def exported_main(folder: SkillFolder, name: str, description: str) -> str:
    """``SKILL.md`` as installed: as trained when ``name`` and ``description`` are the
    folder's own, else with its front matter rebuilt: those two first, every other key
    of the original after them."""
    if name == folder.name and description == folder.description:
        return folder.main
    import yaml

    rest = {k: v for k, v in front_matter_fields(folder.front_matter, MAIN).items() if k not in ("name", "description")}
    head = f"name: {name}\ndescription: {_yaml_string(description)}\n"
    head += yaml.safe_dump(rest, sort_keys=False, allow_unicode=True) if rest else ""
    return f"---\n{head}---\n{folder.body}"


def export_folder(folder: SkillFolder, *, target: str, name: str, description: str, project: Path | None,
                  force: bool = False) -> Exported:
    """Install ``folder`` as the Agent Skills folder ``name`` for ``target`` (secrets
    masked in every file, scripts with their modes); returns an :class:`Exported`. It is
    written beside its destination and renamed into place
    (:func:`~skillopt.skillfolder.disk.write_folder`), so an agent loading its skills sees
    the old folder or the new one. An existing different folder needs ``force`` and is kept
    as a hidden ``.NAME.bak-TIME`` sibling: a backup named like the skill would be loaded by
    the agent as a second skill of the same name."""
    from skillopt.skillfolder.disk import matches, write_folder

    dest = destination(target, name, project=project).parent
    out = SkillFolder.of([
        SkillFile(path=f.path, content=redact_text(exported_main(folder, name, description) if f.path == MAIN else f.content),
                  mode=f.mode)
        for f in folder.files
    ])
    if matches(out, dest):
        return Exported(target=target, path=str(dest), name=name, replaced=False, unchanged=True)
    keep = None
    if dest.exists() or dest.is_symlink():
        if not force:
            raise ConfigError(f"{dest} exists with other content; pass --force to replace it "
                              "(the old folder is kept as a backup)")
        keep = dest.with_name(f".{dest.name}.bak-{time.strftime('%Y%m%d-%H%M%S')}")
    write_folder(out, dest, keep_old=keep)
    return Exported(target=target, path=str(dest), name=name, replaced=keep is not None, backup=str(keep) if keep else "")
