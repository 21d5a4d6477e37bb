"""Deterministic checks and the rubric judge."""

import pytest

from skillopt.errors import SchemaError
from skillopt_sleep.mine.tasks import Check
from skillopt_sleep.replay.judging import run_check, score_checks, score_rubric, tools_called, validate_checks


def test_contains_respects_word_edges():
    assert run_check(Check(op="not_contains", value="npm"), "pnpm install")[0]
    assert not run_check(Check(op="not_contains", value="npm"), "npm install")[0]
    assert run_check(Check(op="contains", value="uv run pytest"), "```bash\nUV RUN PYTEST -q\n```")[0]


def test_malformed_regex_is_reported_not_passed():
    ok, why = run_check(Check(op="regex", value="(unclosed"), "anything")
    assert not ok and "malformed" in why


def test_constraints_alone_do_not_earn_credit():
    """An answer that does nothing meets every 'must not'; it must not outscore a real try."""
    checks = (Check(op="contains", value="uv run pytest"), Check(op="not_contains", value="python -m pytest"))
    lazy = score_checks(checks, "Done — the work is complete.")
    trying = score_checks(checks, "python -m pytest")
    right = score_checks(checks, "uv run pytest -q")
    assert lazy.soft == 0.0 and trying.soft == 0.0 and right.hard == 1.0 and right.soft == 1.0


def test_tool_called_uses_sanitised_names():
    assert tools_called("TOOL_CALL: run_tests\nTOOL_CALL: ../../etc/passwd") == {"run_tests"}
    good, problems = validate_checks(
        [{"op": "tool_called", "value": "../../bin/sh; rm -rf /"}, {"op": "regex", "value": "("}, {"op": "exec", "value": "x"}]
    )
    assert [c.value for c in good] == ["bin_sh_rm_-rf"]
    assert len(problems) == 2


def test_rubric_judge_scores_and_schema_failures_raise(scripted_client):
    judge = scripted_client(lambda r: {"score": 0.9, "reason": "follows the convention"}, role="optimizer")
    score = score_rubric(judge, "run tests", "uses uv", "uv run pytest")
    assert score.hard == 1.0 and score.soft == pytest.approx(0.9)
    broken = scripted_client(lambda r: "not json at all", role="optimizer", schema_retries=0)
    with pytest.raises(SchemaError):
        score_rubric(broken, "run tests", "uses uv", "uv run pytest")
