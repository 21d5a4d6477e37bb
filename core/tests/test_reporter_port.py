"""The engine reports through one port; only the CLI (or whoever installed a reporter) renders."""

from __future__ import annotations

import ast
from pathlib import Path

import skillopt

SRC = Path(skillopt.__file__).resolve().parent


def test_no_module_outside_the_cli_imports_it():
    """The engine, gates, policies and the rest never reach into the CLI's rendering
    (``engine/session.py`` used to import ``skillopt.cli.output``). ``skillopt.testing``
    builds the CLI app for tests and ``__main__`` starts it."""
    found = []
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC)
        if rel.parts[0] in ("cli", "testing") or rel.name in ("__main__.py", "api.py"):
            continue  # skillopt.api re-exports the CLI's fail/print_json for command plugins (typed, lazily)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            found += [f"{rel}: {n}" for n in names if n == "skillopt.cli" or n.startswith("skillopt.cli.")]
    assert found == []


def test_a_session_says_its_lines_to_the_reporter_it_is_given(toy_registered, tmp_path, capsys):
    """A session's lines (run directory, plan, a gate that cannot accept on this val set)
    reach the injected reporter with their level, and nothing is printed."""
    from skillopt.engine.session import open_session

    heard: list[tuple[str, str]] = []
    session = open_session(config_file=None, assignments=["evaluation.sel_env_num=3", "train.max_steps=1"],
                           flags={"env.name": "toy", "model.backend": "scripted", "out_dir": str(tmp_path / "run"),
                                  "train.num_epochs": 1})
    session.reporter = lambda message, level: heard.append((level, message))
    session.train()
    assert any(level == "info" and message.startswith("run directory: ") for level, message in heard)
    assert any(level == "info" and message.startswith("plan: ") for level, message in heard)
    assert any(level == "warning" and "cannot accept any candidate on 3 val items" in message for level, message in heard)
    assert "run directory:" not in capsys.readouterr().err
