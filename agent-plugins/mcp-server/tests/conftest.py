"""Fixtures: a fake $HOME holding every agent's fixture transcripts for a real project
directory, and a helper that talks to ``python -m skillopt_mcp`` with the SDK's client.

The transcripts are skillopt-sleep's own test fixtures (CC0-1.0, with planted fake
secrets), read from that package's folder and rewritten to point at the temp project.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

SLEEP_FIXTURES = Path(__file__).resolve().parents[3] / "skillopt-sleep" / "tests" / "fixtures"
FIXTURE_PROJECT = "/home/dev/code/shop-api"
PERSONA_RULES = SLEEP_FIXTURES / "persona-rules.json"

# The fake secrets planted in the fixture transcripts (see skillopt-sleep/tests/fixtures/SECRETS.md).
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
AGENT_HOME_VARIABLES = (
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "COPILOT_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "OPENCODE_DB",
    "PI_CODING_AGENT_DIR",
    "VSCODE_PORTABLE",
)


def _materialise(src: Path, dst: Path, project: Path) -> None:
    """Copy a fixture tree with every mention of the fixture project pointed at ``project``."""
    from skillopt_sleep.harvest.cursor import slug

    for path in sorted(src.rglob("*")):
        relative = str(path.relative_to(src)).replace("home-dev-code-shop-api", slug(str(project)))
        target = dst / relative
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        content = path.read_text(encoding="utf-8")
        content = content.replace("file://" + FIXTURE_PROJECT, project.as_uri()).replace(FIXTURE_PROJECT, str(project))
        target.write_text(content, encoding="utf-8")


def _sqlite(sql: Path, db: Path) -> None:
    db.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(db)
    try:
        connection.executescript(sql.read_text(encoding="utf-8"))
        connection.commit()
    finally:
        connection.close()


@pytest.fixture
def agent_home(tmp_path) -> tuple[Path, Path]:
    """(home, project): a home with Claude Code, Codex, Copilot CLI, VS Code Copilot,
    Cursor, OpenCode and Pi transcripts, all recorded in ``project``."""
    project = tmp_path / "work" / "shop-api"
    project.mkdir(parents=True)
    (project / "CLAUDE.md").write_text("# shop-api\n\nHand-written notes: keep me.\n", encoding="utf-8")
    staged = tmp_path / "fixtures"
    _materialise(SLEEP_FIXTURES, staged, project)
    home = tmp_path / "home"
    shutil.copytree(staged / "claude-code", home / ".claude" / "projects")
    shutil.copytree(staged / "codex", home / ".codex")
    _sqlite(staged / "copilot-cli" / "session-store.sql", home / ".copilot" / "session-store.db")
    shutil.copytree(staged / "vscode-copilot" / "workspaceStorage", home / ".config" / "Code" / "User" / "workspaceStorage")
    shutil.copytree(staged / "cursor", home / ".cursor" / "projects")
    _sqlite(staged / "opencode" / "opencode.sql", home / ".local" / "share" / "opencode" / "opencode.db")
    shutil.copytree(staged / "pi", home / ".pi" / "agent")
    shutil.rmtree(staged)
    return home, project


@pytest.fixture
def server_env(tmp_path, agent_home) -> dict[str, str]:
    """The environment the server (and every CLI it starts) runs with: the fake home and
    an isolated SKILLOPT_HOME."""
    home, _project = agent_home
    env = {k: v for k, v in os.environ.items() if k not in AGENT_HOME_VARIABLES}
    env.update({"HOME": str(home), "SKILLOPT_HOME": str(tmp_path / "skillopt-home")})
    env.pop("SKILLOPT_DISABLE_PLUGINS", None)
    return env


class McpHarness:
    """How the tests talk to the server: a real SDK client session over stdio, and
    readers for its results that work with SDK 1.x and 2.x field names."""

    def __init__(self, env: dict[str, str]):
        self.env = env

    @asynccontextmanager
    async def session(self):
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(command=sys.executable, args=["-m", "skillopt_mcp"], env=self.env)
        async with stdio_client(params) as (read_stream, write_stream):
            async with ClientSession(read_stream, write_stream) as session:
                await session.initialize()
                yield session

    @staticmethod
    def text(result) -> str:
        return "".join(getattr(block, "text", "") for block in result.content)

    @staticmethod
    def is_error(result) -> bool:
        return bool(result.is_error if hasattr(result, "is_error") else result.isError)

    @staticmethod
    def input_schema(tool) -> dict:
        return getattr(tool, "input_schema", None) or tool.inputSchema

    async def call_json(self, session, name: str, arguments: dict):
        """Call a tool that must succeed; returns (parsed JSON, raw text)."""
        result = await session.call_tool(name, arguments)
        text = self.text(result)
        assert not self.is_error(result), f"{name} failed: {text}"
        return json.loads(text), text

    async def call_error(self, session, name: str, arguments: dict) -> str:
        """Call a tool that must fail; returns the error text."""
        result = await session.call_tool(name, arguments)
        text = self.text(result)
        assert self.is_error(result), f"{name} should have failed, returned: {text[:500]}"
        return text


@pytest.fixture
def mcp_harness(server_env) -> McpHarness:
    return McpHarness(server_env)


def assert_no_secret(text: str) -> None:
    leaked = [secret for secret in PLANTED_SECRETS if secret in text]
    assert not leaked, f"planted secrets reached a tool output: {leaked}"


@pytest.fixture
def no_secret():
    return assert_no_secret


@pytest.fixture
def persona_rules() -> Path:
    """skillopt-sleep's scripted-backend rules: a stand-in for a coding model that follows
    the conventions written in the skill/memory it is shown."""
    return PERSONA_RULES
