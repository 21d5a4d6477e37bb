"""Keeping secrets out of everything we write.

Two mechanisms, both cheap enough to run on every file and log line:

* values we *know* are secrets (the API keys a run resolved) are registered once and
  masked wherever they appear, whatever their shape;
* values that *look* like secrets (provider key formats, bearer tokens, private keys,
  ``.env``-style assignments) are masked by pattern.

Config mappings are also redacted by key name (``api_key``, ``token``, ``secret`` ...).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from typing import Any

MASK = "***REDACTED***"

_known: set[str] = set()
_known_lock = threading.Lock()

SECRET_KEY_NAME = re.compile(
    r"(^|[_-])(api[_-]?key|secret|client[_-]?secret|password|passwd|access[_-]?token|"
    r"auth[_-]?token|refresh[_-]?token|bearer|token|credentials?|private[_-]?key|sas)$",
    re.IGNORECASE,
)

# Every pattern here runs over text an attacker may shape (a pasted log, a tool's output,
# an MCP argument), so each costs time linear in its input: a repeat that can run long is
# possessive (``++``, ``{n,}+``: it never gives characters back to retry), and a pattern
# that scans a run starts only where the run starts (``(?<![class])``), so no run is
# rescanned from each of its positions. ``core/tests/test_redact.py`` checks both.

# Provider key formats. Each pattern is anchored on a distinctive prefix, so ordinary
# prose and hashes are left alone; the prefix, lower-cased, also serves as a literal hint
# (a substring test is ~100x cheaper than a regex scan), so text without it is not scanned.
_PATTERNS_WITH_HINTS: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = (
    # the body stops at the first "-----" (a PEM body has none), so a BEGIN with no END
    # costs the distance to the next dash run, not to the end of the text
    (("-----begin",), re.compile(
        r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----(?:[^-]++|-(?!----))*+-----END [A-Z ]{0,40}PRIVATE KEY-----")),
    (("sk-ant-",), re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{16,}+")),
    (("sk-",), re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}+")),
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}+")),
    (("github_pat_",), re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,}+")),
    (("xox",), re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}+")),
    (("akia",), re.compile(r"\bAKIA[0-9A-Z]{16}\b")),
    (("aiza",), re.compile(r"\bAIza[0-9A-Za-z_\-]{35}")),
    (("hf_",), re.compile(r"\bhf_[A-Za-z0-9]{30,}+")),
    (("glpat-",), re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}+")),
    (("k_live_",), re.compile(r"\b(?:r|s)k_live_[A-Za-z0-9]{20,}+")),
    (("npm_",), re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    (("bearer",), re.compile(r"(?i)\bbearer\s++[A-Za-z0-9._~+/\-]{16,}+=*+")),
    (("accountkey", "sharedaccesssignature", "sig="), re.compile(r"(?i)(AccountKey|SharedAccessSignature|sig)=[A-Za-z0-9%+/=]{20,}+")),
    # a JWT may start at any word of a dash-joined run ("x-eyJ..."); the run is tried once
    # from its start, skipping (and keeping) the words before the first "eyJ" word, instead
    # of once per "eyJ" in it ("eyJ-eyJ-eyJ-...")
    (("eyj",), re.compile(r"(?<![A-Za-z0-9_\-])(?P<keep>(?:(?!eyJ)[A-Za-z0-9_]*+-)*+)"
                          r"eyJ[A-Za-z0-9_\-]{10,}+\.[A-Za-z0-9_\-]{10,}+\.[A-Za-z0-9_\-]{10,}+")),
)
SECRET_PATTERNS: tuple[re.Pattern[str], ...] = tuple(pattern for _, pattern in _PATTERNS_WITH_HINTS)
_KEEP = r"\g<keep>"  # what a pattern matched only to find where its secret starts

# Credentials inside URLs: the password of ``scheme://user:PASSWORD@host``, a token used as
# the whole userinfo (``https://TOKEN@host``), and key-like query parameters (``?api-key=``,
# ``&sig=``, ``?access_token=`` ...). The rest of the URL stays readable. The scheme is the
# whole run of scheme characters before ``://`` (scanned once from its start).
_SCHEME = r"(?<![a-z0-9+.\-])([a-z0-9+.\-]++://)"
URL_USERINFO = re.compile(r"(?i)" + _SCHEME + r"([^/\s:@'\"]*+):([^@/\s'\"]++)@")
URL_TOKEN_USER = re.compile(r"(?i)" + _SCHEME + r"([A-Za-z0-9._~\-]{16,}+)@")
URL_QUERY_SECRET = re.compile(
    r"(?i)([?&](?:api[-_]?key|key|token|access[-_]?token|auth|sig|signature|secret|password|code|x-api-key)=)([^&#\s'\"]++)"
)

# KEY=value lines whose key name says "secret" (.env files, shell exports, headers): the line
# is matched with its whole key name, and the name is checked for a secret word afterwards,
# so a name is read once instead of being split at every position.
ASSIGNMENT = re.compile(r"(?m)^[ \t]*+(?:export[ \t]++)?([A-Za-z_][A-Za-z0-9_]*+)\s*+[=:]\s*+")
ASSIGNMENT_VALUE = re.compile(r"(['\"]?)([^'\"\s#]{6,}+)\1")
ASSIGNMENT_NAME = re.compile(r"(?i)API_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|PRIVATE_KEY|ACCESS_KEY")
_ASSIGNMENT_HINTS = ("api_key", "apikey", "secret", "token", "passw", "private_key", "access_key")


def _mask_assignments(text: str) -> str:
    """The value of each ``NAME=value`` line whose name holds a secret word, masked. Each
    name is read once; after a name that is not a secret the search goes on right after it
    (its separator may run into the next line, which must still be read as a line)."""
    out, done, pos = [], 0, 0
    while (name := ASSIGNMENT.search(text, pos)) is not None:
        pos = name.end(1)
        value = ASSIGNMENT_VALUE.match(text, name.end()) if ASSIGNMENT_NAME.search(name.group(1)) else None
        if value is not None:
            out += [text[done : value.start(2)], MASK]
            done = pos = value.end(2)
    return "".join(out) + text[done:] if out else text


def register_secret(value: str | None) -> None:
    """Mask this exact value from now on (called for every resolved credential)."""
    if value and len(value) >= 6:
        with _known_lock:
            _known.add(value)


def redact_text(text: str) -> str:
    """``text`` with known and pattern-shaped secrets masked."""
    if not text:
        return text
    with _known_lock:
        known = sorted(_known, key=len, reverse=True)
    for secret in known:
        if secret in text:
            text = text.replace(secret, MASK)
    lowered = text.lower()
    for hints, pattern in _PATTERNS_WITH_HINTS:
        for hint in hints:
            if hint in lowered:
                text = pattern.sub(_KEEP + MASK if "keep" in pattern.groupindex else MASK, text)
                break
    if "://" in text and "@" in text:
        text = URL_USERINFO.sub(lambda m: f"{m.group(1)}{m.group(2)}:{MASK}@", text)
        text = URL_TOKEN_USER.sub(lambda m: f"{m.group(1)}{MASK}@", text)
    if "=" in text and ("?" in text or "&" in text):
        text = URL_QUERY_SECRET.sub(lambda m: f"{m.group(1)}{MASK}", text)
    if any(hint in lowered for hint in _ASSIGNMENT_HINTS):
        text = _mask_assignments(text)
    return text


def is_secret_key(name: str) -> bool:
    return bool(SECRET_KEY_NAME.search(name)) and not name.lower().endswith("_env")


def redact_data(data: Any) -> Any:
    """A copy of JSON-like data with secret-named keys masked and strings scrubbed."""
    if isinstance(data, Mapping):
        out = {}
        for key, value in data.items():
            if is_secret_key(str(key)) and value not in (None, "", {}, []):
                out[key] = MASK
            else:
                out[key] = redact_data(value)
        return out
    if isinstance(data, (list, tuple)):
        return [redact_data(item) for item in data]
    if isinstance(data, str):
        return redact_text(data)
    return data
