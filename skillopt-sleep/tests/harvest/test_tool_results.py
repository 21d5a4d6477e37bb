"""Every harvester reads the current tool-result format of its agent: the exit status
where that agent records it, and the test summary of a test run.

The fixtures (``fixtures/formats/``, see its README) follow each agent's documented
on-disk format. Before this was read, a failing Codex ``exec_command`` (``Process exited
with code 1``) and a failure stored as ``{"content": <JSON with metadata.exit_code>,
"success": false}`` were recorded as passes.
"""

import pytest

from skillopt_sleep.harvest.claude_code import ClaudeCodeHarvester
from skillopt_sleep.harvest.codex import CodexHarvester
from skillopt_sleep.harvest.copilot_cli import CopilotCliHarvester
from skillopt_sleep.harvest.cursor import CursorHarvester
from skillopt_sleep.harvest.opencode import OpenCodeHarvester
from skillopt_sleep.harvest.outcome import parse_tag
from skillopt_sleep.harvest.pi import PiHarvester


def _pairs(session):
    """(command, outcome tag) for every tool call followed by its result."""
    out, last = [], None
    for turn in session.turns:
        if turn.kind == "tool_call":
            last = turn.content
        elif turn.kind == "tool_result":
            out.append((last, turn.content.split("]", 1)[0] + "]"))
    return out


def _one(harvester, root):
    (session,) = list(harvester.sessions([root]))
    assert session.project == "/home/dev/code/shop-api"
    return session


def test_codex_current_shell_outputs(fixtures_dir):
    s = _one(CodexHarvester(), fixtures_dir / "formats" / "codex" / "sessions")
    assert _pairs(s) == [
        ("python -m pytest tests/test_refunds.py -q", "[error exit=1]"),  # exec_command: "Process exited with code 1"
        ("uv run pytest tests/test_refunds.py -q", "[error exit=1 tests=4/1]"),  # shell_command: "Exit code: 1"
        ("uv run ruff check shop/refunds.py", "[error exit=2]"),  # {"content": <structured JSON>, "success": false}
        ("uv run pytest tests/test_refunds.py -q", "[ok exit=0]"),  # still running, settled by exec_command_end
        ("uv run pytest -q", "[ok exit=0 tests=26/0]"),
    ]


def test_copilot_cli_event_log(fixtures_dir):
    s = _one(CopilotCliHarvester(), fixtures_dir / "formats" / "copilot-cli" / "session-state")
    assert s.id == "copilot-cli:5e0c2a77-1b3d-4c5e-9f60-7a8b9c0d1e2f" and s.metadata["branch"] == "main"
    assert [t.content for t in s.turns if t.role == "user" and t.kind == "message"] == [
        "the checkout tests are red, run them",
        "use uv run pytest here",
    ]
    assert _pairs(s) == [
        ("python -m pytest tests/test_checkout.py", "[error exit=1]"),  # "<exited with exit code 1>", success true
        ("uv run pytest tests/test_checkout.py -q", "[error exit=1 tests=3/1]"),
        ("shop/checkout.py\nround(total, 2)", "[error]"),  # an edit (path and what it writes): success false
        ("uv run pytest tests/test_checkout.py -q", "[ok exit=0 tests=4/0]"),
    ]
    assert "shop/checkout.py" in s.files_touched


def test_copilot_cli_default_roots_cover_the_event_log_and_the_store(monkeypatch, tmp_path):
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path))
    assert CopilotCliHarvester().default_roots() == [tmp_path / "session-state", tmp_path / "session-store.db"]


def test_cursor_tool_results_and_stream_json_events(fixtures_dir):
    s = _one(CursorHarvester(), fixtures_dir / "formats" / "cursor")
    assert _pairs(s) == [
        ("npm test -- cart", "[error exit=1]"),  # tool_result block, is_error, "Exit code 1"
        ("pnpm test -- cart", "[error exit=1 tests=6/1]"),  # shellToolCall result.failure.exitCode
        ("pnpm test -- cart", "[ok exit=0 tests=7/0]"),  # result.success.exitCode
    ]


def test_pi_failed_bash_results(fixtures_dir):
    s = _one(PiHarvester(), fixtures_dir / "formats" / "pi" / "sessions")
    assert _pairs(s) == [("pytest tests/test_tax.py", "[error exit=127]"), ("uv run pytest tests/test_tax.py -q", "[ok tests=3/0]")]


def test_opencode_tool_parts(tmp_path, fixtures_dir, sqlite_from_sql):
    db = sqlite_from_sql(fixtures_dir / "formats" / "opencode" / "opencode.sql", tmp_path / "opencode.db")
    s = _one(OpenCodeHarvester(), db)
    assert _pairs(s) == [
        ("uv run pytest tests/test_invoices.py -q", "[error exit=1 tests=2/1]"),  # status completed, metadata.exit 1
        ("/home/dev/code/shop-api/shop/invoices.py\n0.20", "[error]"),  # an edit (path and what it writes): status error
        ("uv run pytest tests/test_invoices.py -q", "[ok exit=0 tests=3/0]"),
    ]


def test_claude_code_2x_bash_results(fixtures_dir):
    s = _one(ClaudeCodeHarvester(), fixtures_dir / "formats" / "claude-code")
    assert _pairs(s) == [
        ("pytest tests/test_discounts.py", "[error exit=127]"),
        ("uv run pytest tests/test_discounts.py -q", "[ok exit=0 tests=6/0]"),
    ]


@pytest.mark.parametrize(
    "stored, ok, code, tests",
    [("[error exit=1 tests=4/1] x", False, 1, (4, 1)), ("[ok exit=0]", True, 0, None), ("[unknown] running", None, None, None)],
)
def test_the_stored_tag_reads_back(stored, ok, code, tests):
    tag = parse_tag(stored)
    assert (tag.ok, tag.exit_code, (tag.tests.passed, tag.tests.failed) if tag.tests else None) == (ok, code, tests)
