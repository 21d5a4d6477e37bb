"""Every tutorial in docs/tutorials/ is a real distribution: built from the markdown,
pip-installed into a temp dir (``--target``, never into the test venv) and tested with its
own tests in a subprocess that sees it only through its installed metadata."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TUTORIALS = Path(__file__).resolve().parents[1] / "docs" / "tutorials"
BLOCK = re.compile(r"```[a-z]*\n# ([\w./-]+)\n(.*?)```", re.DOTALL)


def files_of(doc: Path) -> dict[str, str]:
    """``{relative path: content}`` of every fenced block whose first line names its path."""
    return {path: body for path, body in BLOCK.findall(doc.read_text(encoding="utf-8"))}


def test_blocks_are_found():
    files = files_of(TUTORIALS / "env.md")
    assert "pyproject.toml" in files and "tests/test_quiz.py" in files


@pytest.mark.parametrize("doc", sorted(p.name for p in TUTORIALS.glob("*.md") if p.name != "README.md"))
def test_tutorial_builds_installs_and_passes_its_own_tests(doc, tmp_path):
    files = files_of(TUTORIALS / doc)
    assert "pyproject.toml" in files and any(p.startswith("tests/test_") for p in files), doc
    pkg = tmp_path / "pkg"
    for rel, body in files.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(body, encoding="utf-8")
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--target", str(site), str(pkg)],
                   check=True, timeout=300)
    for rel in files:  # the tests must exercise the installed copy, not the source tree
        if rel.startswith("src/"):
            (pkg / rel).unlink()
    env = {**os.environ, "PYTHONPATH": str(site), "SKILLOPT_HOME": str(tmp_path / "home")}
    env.pop("SKILLOPT_DISABLE_PLUGINS", None)
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "tests"],
                         cwd=pkg, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert re.search(r"\d+ passed", out.stdout) and "failed" not in out.stdout
