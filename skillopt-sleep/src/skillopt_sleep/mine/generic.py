"""What a generic answer looks like, and which checks it already passes.

A check is worth replaying only if an agent that does not know this developer's
conventions fails it. "The answer mentions `python -m pytest`" is passed by any agent
asked to run tests, so a gate comparing two skills on it sees a tie every time (the
issue measured most mined checks were like that). Each kind of job has the answers an
agent gives by default — the commands its training makes likely, plus a vague promise
to look into it — and a check is *discriminative* when at least one of those, or one
of the attempts the developer rejected in the session itself, fails it, while the
attempt the developer accepted passes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from skillopt_sleep.mine.tasks import Check
from skillopt_sleep.replay.judging import run_check, score_checks

#: the commands an agent reaches for when nothing tells it otherwise, per kind of job
GENERIC_COMMANDS: dict[str, tuple[str, ...]] = {
    "test": ("python -m pytest", "pytest", "npm test", "go test ./...", "cargo test"),
    "lint": ("ruff check .", "flake8 .", "npx eslint .", "golangci-lint run"),
    "format": ("black .", "ruff format .", "npx prettier --write .", "gofmt -w ."),
    "migrate": ("alembic revision --autogenerate -m change", "python manage.py makemigrations"),
    "install": ("pip install requests", "npm install lodash"),
    "build": ("npm run build", "make", "python -m build"),
    "tag": ("git tag 1.4.0",),
    "commit": ('git commit -am "Update"',),
    "push": ("git push",),
}
VAGUE = "I would look into it, make the change and check that everything still works."


def generic_answers(categories: Iterable[str]) -> list[str]:
    """Answers a convention-blind agent gives for jobs of these kinds (every kind when
    none is known), each shaped like a replay answer."""
    cats = [c for c in categories if c in GENERIC_COMMANDS] or list(GENERIC_COMMANDS)
    answers = [f"```bash\n{command}\n```\nThen I fix what fails and re-run." for c in cats for command in GENERIC_COMMANDS[c]]
    return [*answers, VAGUE]


def discriminative(check: Check, *, rejected: Sequence[str], accepted: str, categories: Iterable[str]) -> bool:
    """True when some rejected attempt or generic answer fails ``check`` and what the
    developer accepted passes it. A "must" the developer stated in their own words is
    kept even when the accepted attempt is not on record (some stores keep no commands);
    a "must not" the accepted attempt breaks is wrong whoever said it."""
    stated = check.why == "developer correction" and check.op not in ("not_contains", "not_regex")
    if accepted and not stated and not run_check(check, accepted)[0]:
        return False
    return any(not run_check(check, text)[0] for text in [*rejected, *generic_answers(categories)])


def generic_passes(checks: Sequence[Check], categories: Iterable[str], extra: Iterable[str] = (), unless: str = "") -> bool:
    """True when some generic answer (or one of ``extra``, e.g. what the memory files alone
    suggest) passes every check: the task cannot tell skills apart. A default command
    found in ``unless`` (what the developer kept, when the sessions show the agent did
    something else first) does not count: there it is this project's convention."""
    cats = [c for c in categories if c in GENERIC_COMMANDS] or list(GENERIC_COMMANDS)
    commands = [c for cat in cats for c in GENERIC_COMMANDS[cat] if not (unless and c in unless)]
    answers = [f"```bash\n{c}\n```\nThen I fix what fails and re-run." for c in commands]
    return any(score_checks(tuple(checks), answer).hard == 1.0 for answer in [*answers, VAGUE, *extra])
