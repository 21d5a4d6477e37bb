"""The core's structure: import loops, and where a skill's kind is told apart."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import skillopt

SRC = Path(skillopt.__file__).resolve().parent

#: the mutual imports left (each a pair of modules importing each other, lazily): none; a
#: new one fails the test
KNOWN_LOOPS: set[tuple[str, str]] = set()


def modules() -> dict[str, Path]:
    out = {}
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC.parent).with_suffix("")
        out[".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)] = path
    return out


def imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the skillopt modules it imports anywhere at run time (a function's lazy
    import too)."""

    def resolve(name: str) -> str:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name

    def runtime_nodes(tree: ast.AST):
        """Every node but those under ``if TYPE_CHECKING:`` (read by the type checker only:
        no import happens, so no loop)."""
        todo = [tree]
        while todo:
            node = todo.pop()
            if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
                todo.extend(node.orelse)
                continue
            todo.extend(ast.iter_child_nodes(node))
            yield node

    edges: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        for node in runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in mods else node.module for a in node.names]
            for name in names:
                target = resolve(name) if name.startswith("skillopt") else ""
                if target and target != mod:
                    edges[mod].add(target)
    return edges


def mutual_imports() -> set[tuple[str, str]]:
    edges = imports(modules())
    return {tuple(sorted((a, b))) for a in edges for b in edges[a]
            if a in edges.get(b, ()) and not (a.startswith(b + ".") or b.startswith(a + "."))}


def test_no_new_import_loop_in_core():
    found = mutual_imports()
    assert found - KNOWN_LOOPS == set(), "a new pair of modules importing each other"
    assert KNOWN_LOOPS - found == set(), "a known loop is gone: remove it from KNOWN_LOOPS"


def test_skill_text_and_folder_edits_and_the_two_exports_do_not_import_each_other():
    found = mutual_imports()
    assert ("skillopt.skilldoc", "skillopt.skillfolder.edits") not in found
    assert not any("skillopt.export" in pair for pair in found)


def test_a_skill_is_one_of_two_kinds():
    from skillopt.errors import ConfigError
    from skillopt.skillfolder import HEAD, SingleFile, SkillFolder, skill_of

    assert skill_of("# Rules\n- be brief\n") == SingleFile("# Rules\n- be brief\n")
    folder = skill_of(HEAD + "---\nname: demo\ndescription: d\n---\nbody\n<!-- skillopt:file references/a.md -->\nref\n")
    assert isinstance(folder, SkillFolder) and [f.path for f in folder.files] == ["SKILL.md", "references/a.md"]
    with pytest.raises(ConfigError, match="saved skill"):
        skill_of(HEAD + "body\n<!-- skillopt:file ../escape.md -->\nx\n", "saved skill")


#: where a skill's text may still be tested for folder-ness directly: the value's own
#: module, and blame, which reads a saved text's file-marker lines as text
SNIFFING_ALLOWED = {"skillfolder/__init__.py", "blame.py"}


def test_folder_ness_is_told_apart_in_one_place():
    """Code that treats the two kinds differently asks :func:`skill_of` for the value and
    dispatches on it, instead of testing the text itself."""
    found = []
    for path in SRC.rglob("*.py"):
        rel = str(path.relative_to(SRC))
        if rel in SNIFFING_ALLOWED:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "is_folder":
                found.append(rel)
    assert found == []
