"""The documents a night may change: a skill file and the agent's memory file.

Edits only ever touch the learned block between :data:`LEARNED_START` and
:data:`LEARNED_END`; text the developer wrote outside it is never modified. The memory
target follows the agent whose sessions were harvested (CLAUDE.md for Claude Code,
AGENTS.md for Codex/OpenCode/pi, ``.cursor/rules`` for Cursor,
``.github/copilot-instructions.md`` for Copilot) instead of always CLAUDE.md, and the
default skill lives in the project, not in one user-global file shared by every project.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from skillopt.api import ConfigError, Edit, EditResult, apply_edits, get_block, set_block

LEARNED_START = "<!-- SKILLOPT-SLEEP:LEARNED START -->"
LEARNED_END = "<!-- SKILLOPT-SLEEP:LEARNED END -->"
LEARNED_HEADING = (
    "## Learned from your sessions (skillopt sleep)\n"
    "_Reviewed and adopted with `skillopt sleep adopt`; undo with `skillopt sleep rollback`._\n"
)
SKILL_NAME = "skillopt-sleep-learned"
SKILL_SCAFFOLD = (
    "---\n"
    f"name: {SKILL_NAME}\n"
    "description: Conventions and procedures of this project learned from the developer's own agent sessions. "
    "Use for any coding task in this project.\n"
    "---\n\n# Project conventions learned by skillopt sleep\n"
)
DEFAULT_MEMORY = "AGENTS.md"
DEFAULT_SKILL_DIR = ".agents/skills"
CURSOR_RULE_HEADER = "---\ndescription: Project conventions learned by skillopt sleep\nalwaysApply: true\n---\n"


@attrs.frozen(kw_only=True)
class DocTarget:
    role: str  # "skill" or "memory"
    path: Path


@attrs.frozen(kw_only=True)
class Doc:
    """A target's live bytes (None when the file does not exist yet) and its working text."""

    role: str
    path: Path
    original: bytes | None
    text: str

    @property
    def changed(self) -> bool:
        before = self.original.decode("utf-8", errors="replace") if self.original is not None else ""
        return self.text != before

    def rules(self) -> str:
        """The learned block's rules, without its heading."""
        body = get_block(self.text, LEARNED_START, LEARNED_END) or ""
        head = LEARNED_HEADING.strip("\n")
        if body.startswith(head):
            body = body[len(head) :]
        return body.strip("\n")


@attrs.frozen(kw_only=True)
class DocEdit:
    """An edit aimed at one document's learned block."""

    doc: str
    edit: Edit
    #: which reflector proposed it: ``heuristic``, ``llm``, ``contrast``
    origin: str = "heuristic"
    #: the key of the mined lesson it states ('' for model proposals)
    lesson: str = ""
    #: where the rule comes from: sessions and the developer's lines or commands
    evidence: tuple[str, ...] = ()


def agent_files(agent: str) -> tuple[str, str]:
    """(memory file, skill dir) an agent reads, from its harvester plugin when it says."""
    from skillopt.api import get_component

    try:
        cls = get_component("harvesters", agent).obj
    except Exception:  # noqa: BLE001 - unknown or third-party agent: the open standard files
        return DEFAULT_MEMORY, DEFAULT_SKILL_DIR
    return getattr(cls, "memory_file", DEFAULT_MEMORY) or DEFAULT_MEMORY, getattr(
        cls, "skill_dir", DEFAULT_SKILL_DIR
    ) or DEFAULT_SKILL_DIR


def resolve_targets(project: Path, agent: str, *, skill_path: str = "", memory: str = "auto") -> list[DocTarget]:
    project = Path(project).resolve()
    memory_file, skill_dir = agent_files(agent)
    skill = Path(skill_path).expanduser() if skill_path else project / skill_dir / SKILL_NAME / "SKILL.md"
    if not skill.is_absolute():
        skill = project / skill
    targets = [DocTarget(role="skill", path=skill)]
    if memory not in ("none", "off", ""):
        mem = Path(memory_file if memory == "auto" else memory).expanduser()
        targets.append(DocTarget(role="memory", path=mem if mem.is_absolute() else project / mem))
    for t in targets:
        if t.path.exists() and t.path.is_dir():
            raise ConfigError(f"{t.role} target {t.path} is a directory; name a file")
    return targets


def load(target: DocTarget) -> Doc:
    try:
        raw = target.path.read_bytes()
    except FileNotFoundError:
        raw = None
    text = raw.decode("utf-8", errors="replace") if raw is not None else ""
    return Doc(role=target.role, path=target.path, original=raw, text=text)


def with_rules(doc: Doc, edits: list[Edit] | tuple[Edit, ...]) -> tuple[Doc, list[EditResult]]:
    """``doc`` with ``edits`` applied inside its learned block (created on first use)."""
    new_body, results = apply_edits(doc.rules(), list(edits))
    return with_rules_text(doc, new_body), results


def with_rules_text(doc: Doc, rules: str) -> Doc:
    """``doc`` whose learned block holds ``rules`` (created on first use, removed when
    ``rules`` is empty); the same ``doc`` when its rules are already those."""
    if rules.strip() == doc.rules().strip():
        return doc
    base = doc.text
    if not base.strip():
        if doc.role == "skill":
            base = SKILL_SCAFFOLD
        elif doc.path.suffix == ".mdc":
            base = CURSOR_RULE_HEADER
    if rules.strip():
        text = set_block(base, LEARNED_START, LEARNED_END, rules.strip() + "\n", heading=LEARNED_HEADING)
    else:
        text = remove_block(base)
    return attrs.evolve(doc, text=text)


def remove_block(text: str) -> str:
    """``text`` without the learned block (used when its last rule is deleted)."""
    i, j = text.find(LEARNED_START), text.find(LEARNED_END)
    if i < 0 or j < i:
        return text
    head, tail = text[:i].rstrip("\n"), text[j + len(LEARNED_END) :].lstrip("\n")
    return (head + "\n" if head else "") + (("\n" + tail) if tail and head else tail)


def apply_doc_edits(docs: list[Doc], edits: list[DocEdit]) -> tuple[list[Doc], list[str]]:
    """``docs`` with ``edits`` applied to their learned blocks, and what could not be applied."""
    out, problems = [], []
    for doc in docs:
        mine = [e.edit for e in edits if e.doc == doc.role]
        if mine:
            doc, results = with_rules(doc, mine)
            problems += [f"{r.edit.op} {r.status}: {r.detail}" for r in results if r.status != "applied"]
        out.append(doc)
    return out, problems
