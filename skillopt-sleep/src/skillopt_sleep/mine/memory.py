"""The project's memory files, read as conventions a mined check must not contradict.

A developer's CLAUDE.md / AGENTS.md / Copilot instructions / Cursor rules already say
how things are done here ("Create migrations with `uv run alembic revision
--autogenerate`"). A check mined from one odd session ("never use `alembic revision`")
that the memory's own command would fail is wrong about this project, and a rule that
says the opposite of the memory would fight it. Commands in backticks are read from
each line: ones after a negation (never, don't, avoid, instead of, rather than, not)
are what the project avoids, the others what it uses.
"""

from __future__ import annotations

import re
from pathlib import Path

import attrs

from skillopt_sleep.mine.tasks import Check, Lesson
from skillopt_sleep.replay.judging import run_check

MEMORY_FILES = ("CLAUDE.md", "AGENTS.md", "GEMINI.md", ".github/copilot-instructions.md", ".cursorrules")
MEMORY_GLOBS = (".cursor/rules/*.mdc", ".github/instructions/*.md", ".claude/CLAUDE.md")
_SPAN = re.compile(r"`([^`\n]{2,80})`")
_NEGATION = re.compile(r"(?i)\b(?:never|don't|do not|avoid|no longer|instead of|rather than|not|stop)\b[^`,;.]*$")
MAX_BYTES = 256 * 1024


@attrs.frozen(kw_only=True)
class ProjectMemory:
    """Commands the project's memory files prefer and avoid, and which files said so."""

    prefer: tuple[str, ...] = ()
    avoid: tuple[str, ...] = ()
    files: tuple[str, ...] = ()


def conventions(text: str) -> tuple[list[str], list[str]]:
    """(preferred, avoided) backticked commands of a memory text, line by line."""
    prefer: list[str] = []
    avoid: list[str] = []
    for line in text.splitlines():
        for m in _SPAN.finditer(line):
            token = m.group(1).strip()
            (avoid if _NEGATION.search(line[: m.start()]) else prefer).append(token)
    return prefer, avoid


def read_memory(project: Path) -> ProjectMemory:
    project = Path(project)
    paths = [project / name for name in MEMORY_FILES] + [p for g in MEMORY_GLOBS for p in sorted(project.glob(g))]
    prefer: list[str] = []
    avoid: list[str] = []
    files: list[str] = []
    for path in paths:
        try:
            if not path.is_file() or path.stat().st_size > MAX_BYTES:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        p, a = conventions(text)
        if p or a:
            files.append(str(path.relative_to(project)))
        prefer += p
        avoid += a
    return ProjectMemory(prefer=tuple(dict.fromkeys(prefer)), avoid=tuple(dict.fromkeys(avoid)), files=tuple(files))


NEGATIVE_OPS = ("not_contains", "not_regex")


def contradicts(check: Check, memory: ProjectMemory) -> bool:
    """A "must not" check the memory's own commands break, or a "must" check only an
    avoided command passes."""
    if check.op in NEGATIVE_OPS:
        return any(not run_check(check, token)[0] for token in memory.prefer)
    if check.op in ("contains", "regex"):
        passes_avoided = any(run_check(check, token)[0] for token in memory.avoid)
        return passes_avoided and not any(run_check(check, token)[0] for token in memory.prefer)
    return False


def lesson_contradicts(lesson: Lesson, memory: ProjectMemory) -> bool:
    """A lesson preferring what the memory avoids, or avoiding what it prefers."""
    mine = [q.lower() for q in lesson.prefer]
    if any(q in {t.lower() for t in memory.avoid} for q in mine):
        return True
    for a in (t.lower() for t in lesson.avoid):
        for p in (t.lower() for t in memory.prefer):
            # avoids what the memory uses, with no way to still use it (refining it — `uv run pytest -n auto`
            # for the memory's `uv run pytest` — is a way)
            if a in p and not any(q in p or p in q for q in mine):
                return True
    return False


def memory_answer(memory: ProjectMemory) -> str:
    """What an agent that follows the memory files alone answers: every command and name
    they prefer. A check this answer passes is one the memory already guarantees — a
    memory-following agent scores 1.00 on it before anything is learned, so the gate
    could only tie on it."""
    if not memory.prefer:
        return ""
    return "```bash\n" + "\n".join(memory.prefer) + "\n```\n" + " ".join(memory.prefer)
