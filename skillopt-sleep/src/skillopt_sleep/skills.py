"""Which skills a session used, and where each skill's file is.

A session *used* a skill when the agent invoked it (Claude Code's ``Skill`` tool,
recorded by its harvester as ``metadata["skills_used"]``) or read or edited its
``SKILL.md`` (``…/skills/<name>/SKILL.md`` in a tool call or the files it touched,
which is how Codex, pi, OpenCode and the others load a skill). Every task then
carries the skills of its sessions (:func:`attach`), so a fan-out night can
consolidate each skill from the tasks that used it.

A skill name is one path segment (``[A-Za-z0-9][A-Za-z0-9._-]{0,63}``): a name taken
from a transcript never becomes ``..`` or a path. The file is looked up in the
project's skill folders first (the agent's own, then the other agents'), then the
user's (``~/.claude/skills``, ``~/.agents/skills``); sleep's own managed skill is
never a fan-out target (it is the night's main proposal).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import attrs

from skillopt_sleep.documents import DEFAULT_SKILL_DIR, SKILL_NAME, agent_files

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_SKILL_FILE = re.compile(r"(?:^|[/\\])skills[/\\]([A-Za-z0-9][A-Za-z0-9._-]{0,63})[/\\]SKILL\.md\b", re.IGNORECASE)
#: every project skill folder an agent reads, besides the agent's own
PROJECT_DIRS = (".agents/skills", ".claude/skills", ".cursor/skills", ".github/skills", ".opencode/skills",
                ".pi/skills", ".devin/skills", ".codex/skills")  # fmt: skip
USER_DIRS = (".claude/skills", ".agents/skills")


def valid_name(name: str) -> bool:
    return bool(NAME.match(name or "")) and name not in (".", "..") and name != SKILL_NAME


def used_by(session) -> tuple[str, ...]:
    """The skills ``session`` used, in order of first use."""
    found: list[str] = []

    def add(name: str) -> None:
        if valid_name(name) and name not in found:
            found.append(name)

    for name in (session.metadata or {}).get("skills_used") or ():
        if isinstance(name, str):
            add(name.strip())
    texts: list[str] = list(session.files_touched)
    texts += [t.content for t in session.turns if t.kind == "tool_call"]
    for text in texts:
        for match in _SKILL_FILE.finditer(text or ""):
            add(match.group(1))
    return tuple(found)


def attach(tasks: Sequence, sessions: Iterable) -> list:
    """``tasks`` with ``skills``: every skill any of their sessions used (kept as given
    when a task names its own, as a reviewed tasks file may)."""
    by_session = {s.id: used_by(s) for s in sessions}
    out = []
    for task in tasks:
        if task.skills:
            out.append(task)
            continue
        names: list[str] = []
        for sid in task.sessions:
            for name in by_session.get(sid, ()):
                if name not in names:
                    names.append(name)
        out.append(attrs.evolve(task, skills=tuple(names)) if names else task)
    return out


@attrs.frozen(kw_only=True)
class Located:
    name: str
    path: Path | None
    #: other copies found (the first one wins; reported so nothing is silently ignored)
    others: tuple[Path, ...] = ()
    problem: str = ""


def locate(project: Path, agent: str, name: str, *, home: Path | None = None) -> Located:
    """Where skill ``name``'s ``SKILL.md`` is for this project and agent."""
    if not valid_name(name):
        return Located(name=name, path=None, problem=f"{name!r} is not a skill name")
    project = Path(project).resolve()
    home = Path.home() if home is None else home
    _memory, own = agent_files(agent)
    dirs = [own] + [d for d in (DEFAULT_SKILL_DIR, *PROJECT_DIRS) if d != own]
    candidates = [project / d / name / "SKILL.md" for d in dict.fromkeys(dirs)]
    candidates += [home / d / name / "SKILL.md" for d in USER_DIRS]
    found = [c for c in candidates if c.is_file()]
    if not found:
        return Located(name=name, path=None, problem=f"no SKILL.md for skill {name!r} in the project's or your skill folders")
    if any(p.is_symlink() for p in found[:1]):
        return Located(name=name, path=None, problem=f"{found[0]} is a symlink; skill {name!r} is left alone")
    return Located(name=name, path=found[0], others=tuple(found[1:]))
