"""Redaction at ingestion: the core's secret patterns plus what transcripts add.

:func:`skillopt.redact.redact_text` masks provider key formats, bearer tokens, PEM
keys and ``*_API_KEY=`` lines. Coding-agent transcripts leak secrets in more shapes:
``.env`` files pasted or ``cat``-ed (``DB_PASSWORD=…``, ``SECRET=…``), inline
``TOKEN=… cmd`` prefixes, credentials inside URLs and connection strings, JSON
``"password": "…"`` pairs, and random-looking tokens with no known prefix. Those
are handled here, on top of the core (never a copy of it).

Redaction always runs on the full text *before* any clipping, so a secret cut in
half by a length limit can never slip past a pattern.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from skillopt.api import MASK, redact_data as core_redact_data, redact_text as core_redact_text

_SECRETISH_NAME = (
    r"(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|"
    r"credential|auth[_-]?(?:token|key|code)|salt|cookie|session[_-]?key|signing[_-]?key|client[_-]?secret|dsn|webhook)"
)
# Each pattern costs time linear in its input (transcripts hold whatever a tool printed):
# long repeats are possessive and a scanned run is entered at its start only (see
# skillopt.redact). A key name is matched whole and checked for a secret word afterwards
# (``_SECRET_WORD``), instead of trying the word at every position of the name.
_SECRET_WORD = re.compile(r"(?i)" + _SECRETISH_NAME)

# Each of the next three is a key name (group 1) ending where its value starts, and the
# value (group 2, between optional quotes): _mask_values reads them.
# KEY=value lines (.env files, exports) whose key name says "secret", any case.
_ENV_NAME = re.compile(r"(?m)^[ \t]*+(?:(?:export|set)[ \t]++)?([A-Za-z_][A-Za-z0-9_.\-]*+)\s*+[=:]\s*+")
_ENV_VALUE = re.compile(r"(['\"]?)([^'\"\s#]{4,}+)\1")
# Inline assignments inside a command line: ``GITHUB_TOKEN=abc make deploy``.
_INLINE_NAME = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z0-9_]++)=")
_INLINE_VALUE = re.compile(r"(['\"]?)([^'\"\s;&|]{4,}+)\1")
# JSON / YAML style pairs: ``"password": "hunter2"`` or ``api_key: abc``.
_JSON_NAME = re.compile(r"(?<![A-Za-z0-9_\-])[\"']?([A-Za-z0-9_\-]++)[\"']?\s*+:\s*+")
_JSON_VALUE = re.compile(r"([\"'])([^\"'\n]{4,}+)\1")
# Credentials in URLs: scheme://user:password@host (the scheme: its whole run, read once)
_URL_CREDS = re.compile(r"(?i)(?<![a-z0-9+.\-])([a-z0-9+.\-]++://[^\s:/@]++:)([^\s@/]{3,}+)(@)")
# Connection strings: Password=...; Pwd=...
_CONN_STRING = re.compile(r"(?i)\b((?:password|pwd)\s*+=\s*+)([^;\s'\"]{3,}+)")

# Prose: "my secret key is X", "the password was X", "aws_secret_access_key X": whatever the
# entropy of X (a memorable or example key is still a key).
_PROSE_SECRET = re.compile(
    r"(?i)\b((?:aws\s++)?(?:secret(?:\s++access)?(?:\s++key)?|password|passphrase|api\s++key|access\s++token|auth\s++token)"
    r"(?:\s++(?:is|was|=|:|would\s++be))\s++)([`'\"]?)([^\s`'\"]{8,}+)\2"
)
# An AWS secret access key's shape (40 characters of base64) on a line that mentions AWS.
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")

_TOKEN = re.compile(r"(?<![A-Za-z0-9+/=_\-])[A-Za-z0-9+/=_\-]{20,}+")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_HEX = re.compile(r"^[0-9a-fA-F]++$")
_TOKEN_PARTS = re.compile(r"[_\-./+=]")


def _secret_name(name: str) -> bool:
    """Does a key name say "secret" (a secret word anywhere in it)?"""
    return bool(_SECRET_WORD.search(name))


def _inline_name(name: str) -> bool:
    """A command-line variable named as a secret (its name starts with a letter or _, or is the word)."""
    return (name[0].isalpha() or name[0] == "_" or bool(_SECRET_WORD.match(name))) and _secret_name(name)


def _mask_values(text: str, names: re.Pattern[str], values: re.Pattern[str], secret_name) -> str:
    """Every value whose key name ``secret_name`` accepts, masked. Each name is read once; a
    secret name's value is masked and skipped, and the search goes on right after any other
    name (so ``x=a;TOKEN=b`` and a key line after a ``note:`` line are still found)."""
    out, done, pos = [], 0, 0
    while (name := names.search(text, pos)) is not None:
        pos = name.end(1)
        if not secret_name(name.group(1)):
            continue
        value = values.match(text, name.end())
        if value is None:
            continue
        out += [text[done : value.start(2)], MASK]
        done = pos = value.end(2)
    return "".join(out) + text[done:] if out else text


def shannon_entropy(text: str) -> float:
    """Bits per character of ``text``."""
    if not text:
        return 0.0
    counts = Counter(text)
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def looks_random(token: str) -> bool:
    """True for a token that is probably a credential: long, high-entropy, letters and
    digits interleaved. Identifiers, paths, UUIDs and commit hashes are left alone."""
    if len(token) < 20 or _UUID.match(token):
        return False
    if _HEX.match(token):
        return len(token) > 40  # commit ids and short digests stay readable
    digits = sum(ch.isdigit() for ch in token)
    letters = sum(ch.isalpha() for ch in token)
    if digits < 2 or letters < 6:
        return False
    switches = sum(
        1 for a, b in zip(token, token[1:], strict=False) if a.isdigit() != b.isdigit() and (a.isalnum() and b.isalnum())
    )
    if switches < 4:
        return False
    parts = [p for p in _TOKEN_PARTS.split(token) if p]
    if parts and all(p.isalpha() for p in parts):
        return False
    alphabet = min(len(token), 64)
    return shannon_entropy(token) >= 0.8 * math.log2(alphabet)


def _mask_random_tokens(text: str) -> str:
    return _TOKEN.sub(lambda m: MASK if looks_random(m.group(0)) else m.group(0), text)


def scrub(text: str) -> str:
    """``text`` with every known and pattern-shaped secret masked."""
    if not text:
        return text
    text = core_redact_text(text)
    text = _mask_values(text, _ENV_NAME, _ENV_VALUE, _secret_name)
    text = _mask_values(text, _INLINE_NAME, _INLINE_VALUE, _inline_name)
    text = _mask_values(text, _JSON_NAME, _JSON_VALUE, _secret_name)
    text = _URL_CREDS.sub(lambda m: f"{m.group(1)}{MASK}{m.group(3)}", text)
    text = _CONN_STRING.sub(lambda m: f"{m.group(1)}{MASK}", text)
    text = _PROSE_SECRET.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}{m.group(2)}", text)
    if "aws" in text.lower():
        text = "\n".join(_AWS_SECRET.sub(MASK, line) if "aws" in line.lower() else line for line in text.split("\n"))
    return _mask_random_tokens(text)


def scrub_data(data: Any) -> Any:
    """JSON-like data with secret-named keys blanked and every string scrubbed."""
    data = core_redact_data(data)
    if isinstance(data, dict):
        return {k: scrub_data(v) for k, v in data.items()}
    if isinstance(data, list):
        return [scrub_data(v) for v in data]
    if isinstance(data, str):
        return scrub(data)
    return data


def clip(text: str, limit: int) -> str:
    """Scrub first, then clip: a clipped secret must never escape the patterns."""
    text = scrub(text)
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + "…"
