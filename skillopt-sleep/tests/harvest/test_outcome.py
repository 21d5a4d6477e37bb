"""Exit status and test outcome read from each agent's result text (table-driven)."""

import pytest

from skillopt_sleep.harvest.outcome import count_tests, exit_status


@pytest.mark.parametrize(
    "text, status",
    [
        ("Exit code: 1\nWall time: 0.2 seconds\nOutput:\nboom", 1),  # Codex shell / shell_command
        ("Chunk ID: 3a1f\nWall time: 1.2 seconds\nProcess exited with code 2\nOriginal token count: 4\nOutput:\nx", 2),  # exec_command
        ("Chunk ID: 3a1f\nWall time: 10.0 seconds\nProcess running with session ID 7\nOutput:\n...", None),  # still running
        ("Exit code 127\n/bin/bash: line 1: pytest: command not found", 127),  # Claude Code Bash
        ("bash: pytest: command not found\n\nCommand exited with code 127", 127),  # pi
        ("ModuleNotFoundError: No module named 'shop'\n<exited with exit code 1>", 1),  # Copilot CLI
        ("FAILED: build step\nexit status 2", 2),  # go-style
        ("3 passed in 0.12s", None),
        ("line 1\nthe docs say exit code 3 means misuse\nline 3\nline 4\nline 5", None),  # a program talking about exit codes
        ("", None),
    ],
)
def test_exit_status_is_read_where_each_agent_writes_it(text, status):
    assert exit_status(text) == status


@pytest.mark.parametrize(
    "text, passed, failed",
    [
        ("....F\nFAILED tests/x.py::t - assert 1 == 2\n1 failed, 4 passed in 0.61s", 4, 1),  # pytest -q
        ("===== 2 failed, 10 passed, 1 skipped, 1 error in 3.2s =====", 10, 3),  # pytest, errors count as failures
        ("26 passed in 2.41s", 26, 0),
        ("Ran 12 tests in 0.010s\n\nFAILED (failures=2, errors=1)", 9, 3),  # unittest
        ("Ran 5 tests in 0.002s\n\nOK", 5, 0),
        ("Tests:       1 failed, 4 passed, 5 total", 4, 1),  # jest
        (" Test Files  1 failed (1)\n      Tests  1 failed | 6 passed (7)", 6, 1),  # vitest
        ("--- FAIL: TestTotal (0.00s)\nFAIL\tshop/orders\t0.01s", 0, 1),  # go test
        ("ok  \tshop/orders\t0.02s\nok  \tshop/cart\t0.01s", 2, 0),
        ("test result: FAILED. 3 passed; 1 failed; 0 ignored", 3, 1),  # cargo
        ("12 examples, 2 failures", 10, 2),  # rspec
        ("  3 passing (12ms)\n  1 failing", 3, 1),  # mocha
    ],
)
def test_test_summaries_of_common_runners(text, passed, failed):
    counts = count_tests(text)
    assert (counts.passed, counts.failed) == (passed, failed)


def test_no_summary_is_not_a_test_outcome():
    assert count_tests("Formatted 14 files") is None
    assert count_tests("passed the parcel to the courier in 3s") is None
