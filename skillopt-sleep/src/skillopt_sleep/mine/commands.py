"""Shell evidence: which commands ran, what kind they were, and which failed then passed.

A failing ``python -m pytest`` followed by a passing ``uv run pytest`` is the
clearest lesson a transcript holds: same job (category), different invocation
(signature). The same signature failing then passing means the *code* was fixed,
which says the task ended well but teaches no command rule.
"""

from __future__ import annotations

import re

import attrs

from skillopt.api import Session
from skillopt_sleep.harvest.fields import is_edit_tool
from skillopt_sleep.harvest.outcome import SuiteCounts, parse_tag

CATEGORIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "format",
        re.compile(r"\b(black|ruff\s+format|prettier|gofmt|isort|rustfmt|cargo\s+fmt|(?:npm|pnpm|yarn)\s+(?:run\s+)?format)\b"),
    ),
    (
        "test",
        re.compile(
            r"\b(pytest|py\.test|unittest|go\s+test|cargo\s+test|jest|vitest|mocha|rspec|phpunit|tox|nox|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test|make\s+test|mvn\s+test|gradle\s+test|dotnet\s+test)\b"
        ),
    ),
    (
        "lint",
        re.compile(
            r"\b(ruff(?:\s+check)?|flake8|pylint|mypy|pyright|eslint|golangci-lint|clippy|biome|(?:npm|pnpm|yarn)\s+(?:run\s+)?lint|make\s+lint)\b"
        ),
    ),
    ("migrate", re.compile(r"\b(alembic|manage\.py\s+migrate|db:migrate|prisma\s+migrate|flyway)\b")),
    (
        "install",
        re.compile(
            r"\b(pip\s+install|uv\s+(?:add|sync|pip)|poetry\s+(?:add|install)|(?:npm|pnpm|yarn|bun)\s+(?:install|add|i)\b)"
        ),
    ),
    (
        "build",
        re.compile(r"\b((?:npm|pnpm|yarn)\s+(?:run\s+)?build|cargo\s+build|go\s+build|tsc|mvn\s+package|gradle\s+build|make)\b"),
    ),
    ("tag", re.compile(r"\bgit\s+tag\b")),
    ("commit", re.compile(r"\bgit\s+commit\b")),
    ("push", re.compile(r"\bgit\s+push\b")),
)
REVERT = re.compile(r"\bgit\s+(revert|restore|reset\s+--hard|checkout\s+--|stash)\b")
_ENV_PREFIX = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+")
_WORDISH = re.compile(r"^[A-Za-z][A-Za-z0-9_.:@+-]*$")
_FILE_EXT = re.compile(r"\.(py|js|ts|tsx|jsx|go|rs|rb|java|json|toml|yaml|yml|md|txt|cfg|ini|sh)$")


@attrs.frozen(kw_only=True)
class CommandRun:
    command: str
    category: str
    signature: str
    ok: bool | None
    exit_code: int | None
    index: int
    #: the command segment the signature was taken from (arguments included)
    segment: str = ""
    #: for a test run, what its summary counted
    tests: SuiteCounts | None = None


@attrs.frozen(kw_only=True)
class CommandFix:
    category: str
    failed: str
    fixed: str
    evidence: str


def segments(command: str) -> list[str]:
    parts = re.split(r"\s*(?:&&|\|\||;|\n)\s*", command or "")
    out = []
    for part in parts:
        part = _ENV_PREFIX.sub("", part.strip())
        if part and not part.startswith("cd "):
            out.append(part)
    return out


def category_of(segment: str) -> str:
    for name, pattern in CATEGORIES:
        if pattern.search(segment):
            return name
    return ""


def signature(segment: str) -> str:
    """The invocation without its arguments: ``uv run pytest tests/x.py -q`` → ``uv run pytest``."""
    tokens = segment.split()
    out: list[str] = []
    i = 0
    while i < len(tokens) and len(out) < 4:
        tok = tokens[i]
        if tok == "-m" and i + 1 < len(tokens) and out and out[-1] in ("python", "python3", "py", "uv"):
            out.extend([tok, tokens[i + 1]])
            i += 2
            continue
        if not _WORDISH.match(tok) or "/" in tok or _FILE_EXT.search(tok):
            break
        out.append(tok)
        i += 1
    return " ".join(out)


WRAPPERS = (
    ("uv", "run"),
    ("poetry", "run"),
    ("pipx", "run"),
    ("pdm", "run"),
    ("hatch", "run"),
    ("bundle", "exec"),
    ("npm", "run"),
    ("pnpm", "run"),
    ("pnpm", "exec"),
    ("yarn", "run"),
    ("bun", "run"),
    ("python", "-m"),
    ("python3", "-m"),
    ("uv", "tool"),
    ("npx",),
    ("bunx",),
    ("uvx",),
    ("pnpx",),
)
_SUBCOMMAND = re.compile(r"^[a-z][a-z-]{1,11}$")


def core(signature_text: str) -> str:
    """The tool a signature invokes, without positional arguments: wrapper, program and
    at most one subcommand. ``pnpm add zod`` → ``pnpm add``; ``uv run ruff check .`` →
    ``uv run ruff check``; ``git tag v1.4.0`` → ``git tag``."""
    tokens = signature_text.split()
    out: list[str] = []
    for wrapper in WRAPPERS:
        if tuple(tokens[: len(wrapper)]) == wrapper:
            out, tokens = list(wrapper), tokens[len(wrapper) :]
            break
    if not tokens:
        return " ".join(out)
    out.append(tokens[0])
    if len(tokens) > 1 and _SUBCOMMAND.match(tokens[1]):
        out.append(tokens[1])
    return " ".join(out)


def preferred_form(fixed: str, failed: str) -> str:
    """What a check should look for: the fixed tool when the tool changed, the full
    (number-generalised) invocation when only its arguments did (``git tag v1.4.0``)."""
    if failed and core(fixed) == core(failed):
        return fixed
    return core(fixed) or fixed


def pattern_of(signature_text: str) -> tuple[str, str]:
    """A check for a signature: ``("contains", sig)``, or ``("regex", …)`` with version
    numbers generalised so ``git tag v1.4.0`` also accepts ``v2.0.1``."""
    if re.search(r"\d", signature_text):
        parts = [re.sub(r"\d+", r"\\d+", re.escape(tok)) for tok in signature_text.split()]
        return "regex", r"\s+".join(parts)
    return "contains", signature_text


def runs(session: Session) -> list[CommandRun]:
    """Shell commands in order, each paired with the result that followed it."""
    out: list[CommandRun] = []
    turns = session.turns
    for i, turn in enumerate(turns):
        if turn.kind != "tool_call" or not turn.content or is_edit_tool(turn.name):
            continue  # an edit's text may name commands; only what ran counts
        segs = segments(turn.content)
        cats = [(category_of(s), s) for s in segs]
        main = [pair for pair in cats if pair[0]]
        if not main:
            continue
        category, seg = main[-1]
        outcome = None
        for later in turns[i + 1 : i + 4]:
            if later.kind == "tool_result" and later.name == turn.name:
                outcome = parse_tag(later.content)
                break
        out.append(
            CommandRun(
                command=turn.content,
                category=category,
                signature=signature(seg),
                segment=seg,
                ok=outcome.ok if outcome else None,
                exit_code=outcome.exit_code if outcome else None,
                tests=outcome.tests if outcome else None,
                index=i,
            )
        )
    return out


def avoided_form(failed: CommandRun, fixed: str, later_signature: str) -> str:
    """What a lesson avoids: the failed invocation when the tool changed, its arguments
    too when only they did (``git tag 1.8.0`` against ``git tag v1.8.0``: the bare
    ``git tag`` signature would forbid the fix itself)."""
    if fixed.startswith(failed.signature + " ") and failed.segment:
        return " ".join(failed.segment.split()[: len(fixed.split())])
    return failed.signature if fixed == later_signature else (core(failed.signature) or failed.signature)


def fixes(command_runs: list[CommandRun]) -> list[CommandFix]:
    """Failed-then-passed pairs of the same category with different invocations."""
    out: list[CommandFix] = []
    for i, run in enumerate(command_runs):
        if run.ok is not False or not run.signature:
            continue
        for later in command_runs[i + 1 :]:
            if later.category != run.category:
                continue
            if later.ok and later.signature and later.signature != run.signature:
                fixed = preferred_form(later.signature, run.signature)
                failed = avoided_form(run, fixed, later.signature)
                out.append(
                    CommandFix(
                        category=run.category,
                        failed=failed,
                        fixed=fixed,
                        evidence=f"`{run.signature}` failed (exit {run.exit_code}), then `{later.signature}` passed",
                    )
                )
            break
    return out


