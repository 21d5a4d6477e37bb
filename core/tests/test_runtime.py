"""``runtime.reset()`` forgets every process global, and no new one goes unnoticed."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import skillopt
from skillopt import runtime

SRC = Path(skillopt.__file__).resolve().parent
CACHES = {"cache", "lru_cache"}


def _is_empty_container(node: ast.AST | None) -> bool:
    if isinstance(node, (ast.Dict, ast.Set, ast.List)):
        return not getattr(node, "keys", None) and not getattr(node, "elts", None)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {"dict", "set", "list"} \
        and not node.args


def _decorated_cache(fn: ast.FunctionDef) -> bool:
    for dec in fn.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in CACHES:
            return True
    return False


def process_globals() -> set[str]:
    """"module:name" of every module-level global that holds state: an empty mutable
    container filled later, a name rebound through ``global``, a ``functools`` cache."""
    found = set()
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC.parent).with_suffix("")
        module = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rebound = {name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names}
        for node in tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name) and (t.id in rebound or _is_empty_container(node.value)):
                        found.add(f"{module}:{t.id}")
            elif isinstance(node, ast.FunctionDef) and _decorated_cache(node):
                found.add(f"{module}:{node.name}")
    return found


def test_every_process_global_is_reset_or_kept_for_a_stated_reason():
    found = process_globals()
    known = set(runtime.RESET) | set(runtime.KEPT)
    assert found - known == set(), "a new process global: forget it in runtime.reset() (RESET) or say in KEPT why not"
    assert known - found == set(), "runtime lists a global that no longer exists"


def test_the_finder_sees_each_kind_of_global():
    assert {"skillopt.plugins:_HOST", "skillopt.calls.pipeline:_LIMITERS", "skillopt.policies:_packaged_prompt",
            "skillopt.config.environ:FROM_DOTENV"} <= process_globals()


def test_reset_forgets_every_global_it_lists(tmp_path, monkeypatch):
    import threading

    from skillopt import plugins, policies, registry, report
    from skillopt.calls import pipeline
    from skillopt.config import environ, upstream

    registry.get_registry().names("envs")  # host, entry-point scan and registry built
    pipeline._LIMITERS[("http://127.0.0.1:1", 2)] = threading.BoundedSemaphore(2)
    report.set_reporter(object())
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("SKILLOPT_RESET_PROBE=from-dotenv\n", encoding="utf-8")
    monkeypatch.delenv("SKILLOPT_RESET_PROBE", raising=False)
    assert environ.load_dotenv(tmp_path / ".env") == ["SKILLOPT_RESET_PROBE"]
    (tmp_path / "upstream.yaml").write_text("env: {name: searchqa}\n", encoding="utf-8")
    upstream.load_upstream(tmp_path / "upstream.yaml")
    policies._packaged_prompt("ranking")
    dirty = (plugins._HOST, plugins._SCAN, registry._REGISTRY, dict(pipeline._LIMITERS), report._reporter,
             set(environ.FROM_DOTENV), upstream._load_once.cache_info().currsize, policies._packaged_prompt.cache_info().currsize)
    assert all(dirty), dirty  # each global holds state before the reset

    runtime.reset()

    assert plugins._HOST is None and plugins._SCAN is None and registry._REGISTRY is None
    assert pipeline._LIMITERS == {} and report._reporter is None
    assert environ.FROM_DOTENV == set() and "SKILLOPT_RESET_PROBE" not in os.environ
    assert upstream._load_once.cache_info().currsize == 0 and policies._packaged_prompt.cache_info().currsize == 0
    assert len(runtime.RESET) == 8  # every one of them checked above


def test_reset_keeps_a_variable_of_the_real_environment(tmp_path, monkeypatch):
    from skillopt.config import environ

    monkeypatch.setenv("SKILLOPT_RESET_REAL", "real")
    (tmp_path / ".env").write_text("SKILLOPT_RESET_REAL=from-dotenv\n", encoding="utf-8")
    assert environ.load_dotenv(tmp_path / ".env") == []
    runtime.reset()
    assert os.environ["SKILLOPT_RESET_REAL"] == "real"
