"""The core's secret redactor: every shape it masks, what it leaves readable, and that
its cost grows linearly with the input whatever the input is.

Linear time is checked two ways, neither a wall-clock limit: statically (no pattern may
backtrack over a long run: every repeat that can run long is possessive) and by scaling
(eight times the adversarial input costs about eight times the work, not sixty-four).
``benchmarks/redaction.py`` prints the figures.
"""

from __future__ import annotations

import re

import pytest

from skillopt.redact import MASK, redact_data, redact_text
from skillopt.testing.regex_cost import backtracking_repeats, compiled_patterns, scaling_ratio

CAUGHT = [
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEA"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nProc-Type: 4,ENCRYPTED\n-----END OPENSSH PRIVATE KEY-----",
     "b3BlbnNzaC1rZXktdjEAAAAA"),
    ("key: sk-ant-api03-abcdefghijklmnop_QRS", "sk-ant-api03-abcdefghijklmnop_QRS"),
    ("OPENAI sk-proj-abcdefghijklmnopqrstuvwxyz0123", "sk-proj-abcdefghijklmnopqrstuvwxyz0123"),
    ("sk-abcdefghijklmnopqrstuvwx", "sk-abcdefghijklmnopqrstuvwx"),
    ("token ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s00", "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s00"),
    ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCD", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCD"),
    ("slack xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij"),
    ("aws AKIAZ7Q2R4T6Y8U0I2O4 here", "AKIAZ7Q2R4T6Y8U0I2O4"),
    ("google AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA1234567890abcdefghijklmnopqrstuv"),
    ("hf hf_abcdefghijklmnopqrstuvwxyz0123456789", "hf_abcdefghijklmnopqrstuvwxyz0123456789"),
    ("gitlab glpat-abcdefghij0123456789", "glpat-abcdefghij0123456789"),
    ("stripe sk_live_abcdefghijklmnopqrstuvwx", "sk_live_abcdefghijklmnopqrstuvwx"),
    ("npm npm_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zA7bC", "npm_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zA7bC"),
    ("Authorization: Bearer abcdefghijklmnop1234567890==", "abcdefghijklmnop1234567890"),
    ("DefaultEndpointsProtocol=https;AccountKey=abcdefghijklmnopqrstuvwxyz0123==;", "abcdefghijklmnopqrstuvwxyz0123"),
    ("https://x.blob.core.windows.net/c?sv=2020&sig=abcdefghijklmnopqrstuvwxyz%2B0123", "abcdefghijklmnopqrstuvwxyz%2B0123"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXYifQ.c2lnbmF0dXJlLXZhbHVlLWhlcmU", "c2lnbmF0dXJlLXZhbHVlLWhlcmU"),
    ("x-jwt-eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXYifQ.c2lnbmF0dXJlLXZhbHVlLWhlcmU", "c2lnbmF0dXJlLXZhbHVlLWhlcmU"),
    ("psql postgres://admin:Sup3rS3cret@db.internal:5432/app", "Sup3rS3cret"),
    ("git clone https://ghs0123456789abcdefXYZ@github.com/o/r", "ghs0123456789abcdefXYZ"),
    ("GET https://api.example.com/v1?api-key=abc123def&x=1", "abc123def"),
    ("https://h/p?x=1&access_token=tok-value-9", "tok-value-9"),
    ("export OPENAI_API_KEY=notAprefixedKey99", "notAprefixedKey99"),
    ("  MY_SECRET_VALUE: 'quoted-value-1'", "quoted-value-1"),
    ("DB_PASSWORD=hunter2-db", "hunter2-db"),
    ("\n\n   GH_TOKEN = ghtokenvalue12", "ghtokenvalue12"),
]

KEPT = [
    "commit 3f2a9c1b7e4d5f6a8b9c0d1e2f3a4b5c6d7e8f90",
    "see https://example.com/docs?page=2&lang=en for details",
    "PORT=8080\nDEBUG=true\nTOKEN_TTL=3600s",
    "mailto:someone@example.com and user@host:path",
    "the token is valid for an hour",
    "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
]


@pytest.mark.parametrize(("text", "secret"), CAUGHT)
def test_every_secret_shape_is_masked(text, secret):
    out = redact_text(text)
    assert secret not in out and MASK in out, out


@pytest.mark.parametrize("text", KEPT)
def test_ordinary_text_stays_readable(text):
    assert redact_text(text) == text


def test_urls_keep_everything_but_the_credential():
    assert redact_text("id x-jwt-eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXYifQ.c2lnbmF0dXJlLXZhbHVl") == f"id x-jwt-{MASK}"
    assert redact_text("postgres://admin:pw123@db:5432/app") == f"postgres://admin:{MASK}@db:5432/app"
    assert redact_text("see https://h/p?api-key=abc&page=2") == f"see https://h/p?api-key={MASK}&page=2"


def test_secret_named_keys_are_masked_in_data():
    data = redact_data({"api_key": "x" * 8, "nested": [{"client_secret": "y" * 8, "note": "DB_PASSWORD=hunter2-db"}],
                        "api_key_env": "OPENAI_API_KEY", "empty_token": ""})
    assert data["api_key"] == MASK and data["nested"][0]["client_secret"] == MASK
    assert "hunter2-db" not in data["nested"][0]["note"] and data["api_key_env"] == "OPENAI_API_KEY"
    assert data["empty_token"] == ""


def test_no_pattern_backtracks_over_a_long_run():
    """A repeat that may run long must be possessive (``*+``, ``++``, ``{n,}+``): a
    backtracking one retries every split of a long run, which is what made three 6,000
    character hex outputs take 50 s. Backtracking repeats stay short (at most 64)."""
    import skillopt.redact as module

    patterns = compiled_patterns(module)
    assert len(patterns) >= 15
    offenders = {p.pattern[:60]: bad for p in patterns if (bad := backtracking_repeats(p, limit=64))}
    assert not offenders, offenders


ADVERSARIAL = {
    "hex": lambda n: "0123456789abcdef" * (n // 16),
    "blank lines": lambda n: "\n" * n,
    "dots": lambda n: "a." * (n // 2) + "://@",
    "jwt prefixes": lambda n: "eyJ-" * (n // 4),
    "begin without end": lambda n: "-----BEGIN RSA PRIVATE KEY-----\n" * (n // 32),
    "keywords": lambda n: "TOKEN" * (n // 5) + "\n",
    "assignments": lambda n: "A=" * (n // 2),
    "userinfo": lambda n: "x://u:" * (n // 6) + "@",
    "query": lambda n: "?key=" * (n // 5),
    "bearer": lambda n: "bearer " * (n // 7),
    "sig": lambda n: "sig=" * (n // 4),
}


@pytest.mark.parametrize("shape", sorted(ADVERSARIAL))
def test_cost_grows_linearly_on_adversarial_input(shape):
    """Eight times the input may cost at most ~2.5 times eight times the work (a quadratic
    pattern costs sixty-four times); each size is timed several times, the best kept."""
    ratio = scaling_ratio(redact_text, ADVERSARIAL[shape], size=20_000, factor=8)
    assert ratio < 20, f"{shape}: 8x the input cost {ratio:.1f}x the time"


def test_a_megabyte_of_any_shape_is_redacted():
    """The shapes above at 1 MB each finish (before: minutes to hours for several)."""
    for make in ADVERSARIAL.values():
        text = make(1_000_000)
        assert len(redact_text(text)) > 0


def test_backtracking_repeats_finds_what_it_should():
    """The static check itself: it flags a long backtracking repeat and passes the fixes."""
    assert backtracking_repeats(re.compile(r"[a-z]*x"), limit=64)
    assert backtracking_repeats(re.compile(r"(?:ab)+c"), limit=64)
    assert backtracking_repeats(re.compile(r"a{0,100}b"), limit=64)
    assert not backtracking_repeats(re.compile(r"[a-z]*+x"), limit=64)
    assert not backtracking_repeats(re.compile(r"(?>[a-z]*)x"), limit=64)
    assert not backtracking_repeats(re.compile(r"[a-z]{0,40}x"), limit=64)
