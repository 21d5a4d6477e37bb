"""``skillopt.api``'s ``TYPE_CHECKING`` block: what a type checker sees of the lazy names."""

from __future__ import annotations

import ast
from pathlib import Path

import skillopt.api as api
from skillopt.api_gen import BEGIN, regenerate, render_block

API = Path(api.__file__)


def checked_names(source: str) -> dict[str, str]:
    """``{public name: "module:attribute"}`` imported by the source's ``if TYPE_CHECKING:`` block."""
    found: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom) and stmt.module, ast.unparse(stmt)
                for alias in stmt.names:
                    # `import a as a` marks an explicit re-export (mypy --strict: no implicit re-export)
                    assert alias.asname is not None, f"{alias.name}: import it `as` its public name"
                    found[alias.asname] = f"{stmt.module}:{alias.name}"
    return found


def test_the_block_imports_exactly_the_public_names_from_where_they_live():
    assert checked_names(API.read_text(encoding="utf-8")) == api._WHERE, "regenerate: python -m skillopt.api_gen"


def test_the_block_is_the_generated_text():
    source = API.read_text(encoding="utf-8")
    assert source.endswith(render_block(api._WHERE)), "regenerate: python -m skillopt.api_gen"


def test_a_name_added_to_a_group_without_regenerating_is_caught_and_regeneration_fixes_it(tmp_path):
    copy = tmp_path / "api.py"
    added = API.read_text(encoding="utf-8").replace(
        '"hookimpl": "skillopt.hookspecs:hookimpl",', '"hookimpl": "skillopt.hookspecs:hookimpl",\n        "hookspec": "skillopt.hookspecs:hookspec",', 1)
    copy.write_text(added, encoding="utf-8")
    assert "hookspec" not in checked_names(added)
    assert regenerate(copy) is True
    fixed = copy.read_text(encoding="utf-8")
    assert checked_names(fixed) == {**api._WHERE, "hookspec": "skillopt.hookspecs:hookspec"}
    assert regenerate(copy) is False  # stable
    assert fixed.count(BEGIN) == 1


def test_the_hook_register_type_is_public():
    from skillopt.hookspecs import Register

    assert api.Register is Register
