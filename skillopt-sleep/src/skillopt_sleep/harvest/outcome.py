"""What a command's result says: its exit status and, for a test run, how many passed.

Agents record a shell command's outcome in different places: a structured field
(Codex ``metadata.exit_code``, OpenCode ``metadata.exit``, Cursor ``exitCode``, VS Code
``terminalCommandState.exitCode``) or a line of the text the model was shown — Codex
puts ``Exit code: 1`` (shell) or ``Process exited with code 1`` (exec_command) in the
header before ``Output:``, Claude Code ``Exit code 1`` at the top of a failed Bash
result, pi ``Command exited with code 1`` and Copilot CLI ``<exited with exit code 1>``
at the bottom. Only that header and the last lines are read for a status, so a
program that merely *prints* "exit code" in its output is not mistaken for the agent's
report.

The test summary of the common runners (pytest, unittest, jest, vitest, go test, cargo
test, rspec, mocha) is read from the output too: a run whose exit status was masked
(``pytest || true``) still counts as failing when tests failed.

Harvesters store both in a tag in front of the (redacted, clipped) output, which the
miner parses back: ``[error exit=1 tests=10/2]`` = exit status 1, 10 passed, 2 failed.
"""

from __future__ import annotations

import re

import attrs

_STATUS = (
    re.compile(r"(?i)\bexit code[:=]?\s*(-?\d+)"),
    re.compile(r"(?i)\bexited with code\s+(-?\d+)"),
    re.compile(r"(?i)\bexit status\s+(-?\d+)"),
    re.compile(r"(?i)\bexit_code[\"']?\s*[:=]\s*(-?\d+)"),
)


def exit_status(text: str) -> int | None:
    """The exit status an agent wrote in a command result's header (the first line, or
    the lines before an ``Output:`` line) or on one of its last two lines, or None."""
    lines = [line for line in (text or "").splitlines() if line.strip()]
    if not lines:
        return None
    header = next((lines[:n] for n, line in enumerate(lines[:8]) if line.strip() == "Output:"), lines[:1])
    for line in [*header, *lines[-2:]]:
        for pattern in _STATUS:
            m = pattern.search(line)
            if m:
                return int(m.group(1))
    return None


@attrs.frozen(kw_only=True)
class SuiteCounts:
    """Tests a runner reported as passed and failed (errors count as failed)."""

    passed: int = 0
    failed: int = 0

    @property
    def ok(self) -> bool:
        return self.failed == 0 and self.passed > 0


def _n(m: re.Match | None, group: int = 1) -> int:
    return int(m.group(group)) if m else 0


def _pytest(text: str) -> SuiteCounts | None:
    line = next(
        (ln for ln in reversed(text.splitlines()) if re.search(r"\b\d+ (passed|failed|errors?)\b.*\bin [\d.]+s\b", ln)), None
    )
    if line is None:
        return None
    failed = _n(re.search(r"\b(\d+) failed\b", line)) + _n(re.search(r"\b(\d+) errors?\b", line))
    return SuiteCounts(passed=_n(re.search(r"\b(\d+) passed\b", line)), failed=failed)


def _unittest(text: str) -> SuiteCounts | None:
    ran = re.search(r"(?m)^Ran (\d+) tests? in [\d.]+s", text)
    if not ran:
        return None
    failed = _n(re.search(r"failures=(\d+)", text)) + _n(re.search(r"errors=(\d+)", text))
    return SuiteCounts(passed=int(ran.group(1)) - failed, failed=failed)


def _jest_vitest(text: str) -> SuiteCounts | None:
    line = re.search(r"(?m)^\s*Tests:?\s+(.*\b\d+ (?:passed|failed)\b.*)$", text)
    if not line:
        return None
    body = line.group(1)
    return SuiteCounts(passed=_n(re.search(r"(\d+) passed", body)), failed=_n(re.search(r"(\d+) failed", body)))


def _cargo(text: str) -> SuiteCounts | None:
    results = re.findall(r"test result: \w+\. (\d+) passed; (\d+) failed", text)
    if not results:
        return None
    return SuiteCounts(passed=sum(int(p) for p, _ in results), failed=sum(int(f) for _, f in results))


def _go(text: str) -> SuiteCounts | None:
    fails = len(re.findall(r"(?m)^\s*--- FAIL:", text)) or len(re.findall(r"(?m)^FAIL\s+\S+", text))
    passes = len(re.findall(r"(?m)^\s*--- PASS:", text)) or len(re.findall(r"(?m)^ok\s+\S+\s+[\d.]+s", text))
    return SuiteCounts(passed=passes, failed=fails) if fails or passes else None


def _rspec_mocha(text: str) -> SuiteCounts | None:
    rspec = re.search(r"\b(\d+) examples?, (\d+) failures?", text)
    if rspec:
        return SuiteCounts(passed=int(rspec.group(1)) - int(rspec.group(2)), failed=int(rspec.group(2)))
    passing, failing = re.search(r"(?m)^\s*(\d+) passing\b", text), re.search(r"(?m)^\s*(\d+) failing\b", text)
    if passing or failing:
        return SuiteCounts(passed=_n(passing), failed=_n(failing))
    return None


def count_tests(text: str) -> SuiteCounts | None:
    """The summary a test runner printed at the end of ``text``, or None."""
    for reader in (_pytest, _cargo, _jest_vitest, _unittest, _rspec_mocha, _go):
        counts = reader(text or "")
        if counts is not None and (counts.passed or counts.failed):
            return counts
    return None


# ---------------------------------------------------------------------- the stored tag

_TAG = re.compile(r"^\[(ok|error|unknown)(?: exit=(-?\d+))?(?: tests=(\d+)/(\d+))?\]")


def tag(ok: bool | None, exit_code: int | None, tests: SuiteCounts | None) -> str:
    word = "unknown" if ok is None else "ok" if ok else "error"
    parts = [word]
    if exit_code is not None:
        parts.append(f"exit={exit_code}")
    if tests is not None:
        parts.append(f"tests={tests.passed}/{tests.failed}")
    return "[" + " ".join(parts) + "]"


@attrs.frozen(kw_only=True)
class ResultTag:
    ok: bool | None
    exit_code: int | None = None
    tests: SuiteCounts | None = None


def parse_tag(content: str) -> ResultTag | None:
    """The outcome a harvester stored in front of a tool result, or None."""
    m = _TAG.match(content or "")
    if not m:
        return None
    tests = SuiteCounts(passed=int(m.group(3)), failed=int(m.group(4))) if m.group(3) is not None else None
    ok = None if m.group(1) == "unknown" else m.group(1) == "ok"
    return ResultTag(ok=ok, exit_code=int(m.group(2)) if m.group(2) else None, tests=tests)
