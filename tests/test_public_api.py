"""The public surface: plugins import only ``skillopt.api``; it is documented and complete."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = sorted([*ROOT.glob("skillopt-*/src"), *ROOT.glob("agent-plugins/*/src")])
ENVS = sorted(p.parent.name for p in ROOT.glob("skillopt-envs-*/src"))


def private_imports(src: Path) -> list[str]:
    """Every import of a core module other than ``skillopt.api`` under ``src``."""
    found = []
    for path in sorted(src.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                mods = [node.module] if node.module != "skillopt" else [f"skillopt.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            else:
                continue
            for mod in mods:
                if (mod == "skillopt" or mod.startswith("skillopt.")) and mod != "skillopt.api":
                    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                    found.append(f"{where}:{node.lineno} imports {mod}")
    return found


def test_the_scan_sees_a_private_import(tmp_path):
    (tmp_path / "m.py").write_text("def f():\n    from skillopt.records import Task\n    from skillopt import paths\n")
    assert len(private_imports(tmp_path)) == 2


@pytest.mark.parametrize("src", BUNDLED, ids=lambda p: p.parent.name)
def test_bundled_plugins_import_only_the_public_api(src):
    assert private_imports(src) == []


def test_every_bundled_env_is_a_distribution_we_scan():
    assert len(ENVS) == 6


def test_every_public_name_resolves_and_is_documented():
    import skillopt.api as api
    from skillopt.apidoc import render_markdown

    doc = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert doc == render_markdown(), "regenerate: python -m skillopt.apidoc > docs/api.md"
    for name in api.__all__:
        getattr(api, name)
        assert f"### `{name}" in doc, name


# the objects a plugin author said had no reference, and the vocabularies with them
REFERENCED = ["Task", "Score", "Rollout", "Turn", "TurnKind", "RolloutContext", "CompletionRequest", "Message",
              "Completion", "Usage", "BackendSettings", "Evaluation", "Verdict", "StepRecord", "StepAction",
              "RunInfo", "RunSummary", "GateAction", "RunStatus"]


@pytest.mark.parametrize("name", REFERENCED)
def test_each_record_has_every_field_explained(name):
    import attrs

    import skillopt.api as api
    from skillopt.apidoc import render

    lines = render(name, getattr(api, name))
    rows = [line for line in lines if line.startswith("| `")]
    obj = getattr(api, name)
    expected = len(attrs.fields(obj)) if attrs.has(obj) else len(list(obj))
    assert len([r for r in rows if "(property)" not in r]) == expected
    empty = [r for r in rows if r.rstrip().endswith("|  |") or r.rstrip().endswith("| |")]
    assert not empty, f"document these fields of {name} with #: comments: {empty}"


def test_unknown_public_name_says_where_the_list_is():
    import skillopt.api as api

    with pytest.raises(AttributeError, match="docs/api.md"):
        api.NoSuchThing  # noqa: B018


def test_every_optimizer_reply_schema_is_in_the_reference():
    import inspect

    from skillopt.apidoc import _schemas
    from skillopt.policies import schemas

    rendered = "\n".join(_schemas())
    makers = [f for name, f in inspect.getmembers(schemas, inspect.isfunction) if name.endswith("_schema") and name != "edit_schema"]
    for make in makers:  # each schema's properties appear in the reference
        params = inspect.signature(make).parameters
        args = {"kind": "failure", "budget": 4, "sar": False, "n_items": 6, "key": "slow_update_content"}
        example = make(**{k: v for k, v in args.items() if k in params})
        for prop in example.get("properties", {}):
            assert f'"{prop}"' in rendered, (make.__name__, prop)
