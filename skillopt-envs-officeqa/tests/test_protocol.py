"""Malformed tool calls and huge documents: errors the agent sees, bounded memory."""

import pytest


@pytest.mark.parametrize("body", [
    '{[1]: 2}',
    "[" * 5000 + "]" * 5000,
    '{"a": ' * 3000 + "1" + "}" * 3000,
    '{"name": "read", "args": {"path": "' + "x" * 6000 + '"}}',
    "grep(" * 2000,
    '{"name": "read", "args": {"path": "' + "y" * 500 + '"}}',
])
def test_malformed_calls_are_errors_the_agent_sees_never_exceptions(body):
    from skillopt_envs_officeqa.protocol import parse_reply

    parsed = parse_reply(f"<tool>{body}</tool>")
    [call] = parsed.calls
    assert call.error or call.name  # parsed or explained, never raised


def test_an_overlong_path_is_a_tool_error(tmp_path):
    from skillopt_envs_officeqa.docs import DocsIndex, ToolError
    from skillopt_envs_officeqa.tools import run_tool

    (tmp_path / "a.txt").write_text("hello\n")
    index = DocsIndex.build((tmp_path,))
    with pytest.raises(ToolError, match="characters long"):
        run_tool(index, (), "read", {"path": "z" * 6000})


def test_reads_are_windowed_on_a_large_document(tmp_path):
    import tracemalloc

    from skillopt_envs_officeqa.docs import DocsIndex
    from skillopt_envs_officeqa.tools import run_tool

    big = tmp_path / "big.txt"
    with big.open("w") as fh:
        for i in range(400_000):
            fh.write(f"line {i} of a long bulletin with some padding text to make it wide enough\n")
    assert big.stat().st_size > 30_000_000
    index = DocsIndex.build((tmp_path,))
    tracemalloc.start()
    out = run_tool(index, (), "read", {"path": "big.txt", "start": 399_990, "limit": 5})
    grep = run_tool(index, (), "grep", {"pattern": "line 399999 ", "path": "big.txt"})
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert "lines 399990-399994 of 400000" in out and "399999" in grep
    assert peak < 5_000_000  # the 30 MB file is streamed, never held whole
