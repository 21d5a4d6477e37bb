"""Shared fixtures: isolated SKILLOPT_HOME (from skillopt.testing), the planted-secret
list every harvester fixture contains, and helpers that materialise fixture homes."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from skillopt.testing import run_cli, scripted_client, skillopt_home  # noqa: F401 - pytest fixtures

FIXTURES = Path(__file__).parent / "fixtures"
PROJECT = "/home/dev/code/shop-api"

PLANTED_SECRETS = (
    "sk-proj-Q9x7LmN2pR4tV6wY8zA1bC3dE5fG7hJ9kL",
    "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s00",
    "Tr0ub4dor-3xyz",
    "AKIAZ7Q2R4T6Y8U0I2O4",
    "q8Zr2Lx9Vt4Nw7Pk3Hs6Jd1Fg5Mb0Cy",
    "N0tS0S3cr3tPw",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXYifQ.c2lnbmF0dXJlLXZhbHVlLWhlcmU",
    "npm_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zA7bC",
)


@pytest.fixture
def planted_secrets() -> tuple[str, ...]:
    return PLANTED_SECRETS


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES


def build_sqlite(sql_file: Path, db: Path) -> Path:
    db.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(db)
    conn.executescript("BEGIN;\n" + sql_file.read_text(encoding="utf-8") + "\nCOMMIT;")
    conn.commit()
    conn.close()
    return db


def _copy_rewritten(src: Path, dst: Path, project: Path) -> None:
    """Copy a fixture tree, pointing every reference to the fixture project at ``project``."""
    from skillopt_sleep.harvest.cursor import slug

    for path in sorted(src.rglob("*")):
        rel = Path(str(path.relative_to(src)).replace("home-dev-code-shop-api", slug(str(project))))
        target = dst / rel
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        text = path.read_text(encoding="utf-8")
        text = text.replace("file://" + PROJECT, project.as_uri()).replace(PROJECT, str(project))
        target.write_text(text, encoding="utf-8")


def make_home(root: Path, project: Path) -> Path:
    """A fake $HOME holding every agent's fixture transcripts at its default location,
    all recorded in ``project``."""
    home = root / "home"
    home.mkdir(parents=True)
    staged = root / "fixture-src"
    _copy_rewritten(FIXTURES, staged, project)
    shutil.copytree(staged / "claude-code", home / ".claude" / "projects")
    shutil.copytree(staged / "codex", home / ".codex")
    build_sqlite(staged / "copilot-cli" / "session-store.sql", home / ".copilot" / "session-store.db")
    shutil.copytree(staged / "vscode-copilot" / "workspaceStorage", home / ".config" / "Code" / "User" / "workspaceStorage")
    shutil.copytree(staged / "cursor", home / ".cursor" / "projects")
    build_sqlite(staged / "opencode" / "opencode.sql", home / ".local" / "share" / "opencode" / "opencode.db")
    shutil.copytree(staged / "pi", home / ".pi" / "agent")
    shutil.rmtree(staged)
    return home


@pytest.fixture
def fixture_home(tmp_path, monkeypatch):
    """(home, project): a fake $HOME with every agent's transcripts for a real project dir."""
    project = tmp_path / "work" / "shop-api"
    project.mkdir(parents=True)
    (project / "CLAUDE.md").write_text("# shop-api\n\nHand-written notes: keep me.\n", encoding="utf-8")
    home = make_home(tmp_path, project)
    monkeypatch.setenv("HOME", str(home))
    for var in (
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "COPILOT_HOME",
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "OPENCODE_DB",
        "PI_CODING_AGENT_DIR",
        "VSCODE_PORTABLE",
    ):
        monkeypatch.delenv(var, raising=False)
    return home, project


def assert_no_secret(text: str, secrets=PLANTED_SECRETS) -> None:
    leaked = [s for s in secrets if s in text]
    assert not leaked, f"secrets leaked: {leaked}"


@pytest.fixture
def no_secret():
    return assert_no_secret


@pytest.fixture
def sqlite_from_sql():
    return build_sqlite
