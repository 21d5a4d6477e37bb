"""Redaction at ingestion: the core patterns plus .env lines, URL credentials, JSON
pairs and unprefixed high-entropy tokens; ordinary identifiers stay readable."""

import pytest

from skillopt.redact import MASK
from skillopt_sleep.redaction import clip, looks_random, scrub, scrub_data


@pytest.mark.parametrize(
    "text, secret",
    [
        ("export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz012345", "sk-proj-abcdefghijklmnopqrstuvwxyz012345"),
        ("SECRET=abcd1234efgh", "abcd1234efgh"),
        ("db_password: hunter2xyz", "hunter2xyz"),
        ("GITHUB_TOKEN=abc123def456 make deploy", "abc123def456"),
        ('{"password": "s3cr3t-value", "user": "bob"}', "s3cr3t-value"),
        ("psql postgres://admin:Sup3rS3cret@db.internal:5432/app", "Sup3rS3cret"),
        ("Server=tcp:x;Password=P4ssw0rd!;", "P4ssw0rd!"),
        ("the token Xk9fQ2mZ7pL4rT8vW1nB6cY3hJ5dG0sA is live", "Xk9fQ2mZ7pL4rT8vW1nB6cY3hJ5dG0sA"),
        ("Authorization: Bearer abcdefghijklmnop1234567890", "abcdefghijklmnop1234567890"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "MIIEow"),
    ],
)
def test_scrub_masks_secret_shapes(text, secret):
    out = scrub(text)
    assert secret not in out
    assert MASK in out


@pytest.mark.parametrize(
    "text",
    [
        "commit 3f2a9c1b7e4d5f6a8b9c0d1e2f3a4b5c6d7e8f90",
        "session 123e4567-e89b-12d3-a456-426614174000",
        "uv run pytest -q tests/test_api.py::test_login_v2 --maxfail=1",
        "src/skillopt_sleep/harvesters/claude_code.py",
        "test_harvest_claude_code_redacts_planted_secrets",
        "DEBUG=true\nPORT=8080\nauthor: Jane Doe",
    ],
)
def test_scrub_keeps_ordinary_text(text):
    assert scrub(text) == text


def test_high_entropy_detector():
    assert looks_random("q8Zr2Lx9Vt4Nw7Pk3Hs6Jd1Fg5Mb0Cy")
    assert not looks_random("averyLongIdentifierWithoutDigits")
    assert not looks_random("version_2_of_the_config_loader")


def test_clip_scrubs_before_clipping():
    """A secret cut in half by a length limit must still be masked."""
    text = "x" * 30 + " sk-proj-abcdefghijklmnopqrstuvwxyz012345"
    out = clip(text, 45)
    assert "sk-proj-abcdefgh" not in out


def test_scrub_data_blanks_secret_keys_and_strings():
    data = scrub_data({"api_key": "zzzzzzzz", "notes": ["DB_PASSWORD=hunter2xyz"], "n": 3})
    assert data["api_key"] == MASK and "hunter2xyz" not in data["notes"][0] and data["n"] == 3


def test_a_low_entropy_aws_secret_in_prose_is_masked():
    from skillopt_sleep.redaction import scrub

    example = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"  # AWS's documented example: memorable, not random
    for text in (
        f"my aws secret access key is {example}, use it for the deploy",
        f"AWS creds: AKIA0000EXAMPLE0000AB / {example}",
        "the password was correcthorsebattery and it still failed",
    ):
        out = scrub(text)
        assert example not in out and "correcthorsebattery" not in out, out
    assert scrub("the secret is to run the tests first") == "the secret is to run the tests first"  # prose stays


def test_what_an_edit_writes_is_redacted_at_ingestion():
    """Edits now keep the text they wrote (the miner compares them); a .env written by
    the agent must not carry its secrets into the session."""
    from skillopt_sleep.harvest.builder import SessionBuilder

    b = SessionBuilder("claude-code", "s")
    b.user("write the local env file for the ledger service")
    b.edit("Write", ".env", "DB_PASSWORD=Hunt3r2-ledger-db\nAPI_TOKEN=zq8Lx2Vt9Nw4Pk7Hs3Jd6Fg1Mb5Cy0Rt\nPORT=8080")
    (call,) = [t for t in b.build().turns if t.kind == "tool_call"]
    assert "Hunt3r2-ledger-db" not in call.content and "zq8Lx2Vt9Nw4Pk7Hs3Jd6Fg1Mb5Cy0Rt" not in call.content
    assert call.content.startswith(".env\n") and "PORT=8080" in call.content


@pytest.mark.parametrize(
    "text, secret",
    [
        ("note: hello\nAPI_TOKEN=zq8Lx2Vt9Nw4 deploy", "zq8Lx2Vt9Nw4"),  # a key line after a line that is not one
        (" key:\n  db_password: hunter2xyz", "hunter2xyz"),
        ("FOO=a;GITHUB_TOKEN=abc123def456 make", "abc123def456"),  # a secret inside another variable's value
        ('{"note": "hi", "client_secret": "s3cr3t-value"}', "s3cr3t-value"),
        ("export\tSESSION_KEY='abcd-efgh'", "abcd-efgh"),
    ],
)
def test_scrub_finds_a_secret_after_a_name_that_is_not_one(text, secret):
    assert secret not in scrub(text)


def test_no_pattern_backtracks_over_a_long_run():
    """A repeat that may run long is possessive, so no run is retried split by split (see
    core/tests/test_redact.py)."""
    import skillopt_sleep.redaction as module
    from skillopt.testing.regex_cost import backtracking_repeats, compiled_patterns

    patterns = compiled_patterns(module)
    assert len(patterns) >= 12
    offenders = {p.pattern[:60]: bad for p in patterns if (bad := backtracking_repeats(p, limit=64))}
    assert not offenders, offenders


ADVERSARIAL = {
    # three 6,000-character hex outputs took 50.7 s to harvest; a 1 MB MCP argument never returned
    "hex": lambda n: "0123456789abcdef" * (n // 16),
    "blank lines": lambda n: "\n" * n,
    "names": lambda n: "password" * (n // 8),
    "json keys": lambda n: '"tokentoken' * (n // 11),
    "pairs": lambda n: "a: " * (n // 3),
    "inline": lambda n: "A=" * (n // 2),
    "schemes": lambda n: "a." * (n // 2) + "://u:p@",
    "prose": lambda n: "password " + " " * n + "x",
    "dashed words": lambda n: "ab-12-" * (n // 6),
    "aws": lambda n: "aws " + "A" * n,
}


@pytest.mark.parametrize("shape", sorted(ADVERSARIAL))
def test_scrub_cost_grows_linearly(shape):
    """Eight times the input costs at most ~2.5 times eight times the CPU time (quadratic: 64)."""
    from skillopt.testing.regex_cost import scaling_ratio

    ratio = scaling_ratio(scrub, ADVERSARIAL[shape], size=20_000, factor=8)
    assert ratio < 20, f"{shape}: 8x the input cost {ratio:.1f}x the time"


def test_a_megabyte_of_any_shape_is_scrubbed():
    for make in ADVERSARIAL.values():
        assert scrub(make(1_000_000))
