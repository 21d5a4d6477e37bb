"""Bundled synthetic personas (data written for this project, CC0-1.0).

Each persona is a developer with house conventions a generic agent does not know. A
persona's sessions repeat a handful of jobs in different words; in each, the agent
first does the generic thing, the command fails or the developer corrects it, and the
fix follows — exactly the evidence the miner is built to read.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import attrs

from skillopt_sleep.experiments.transcripts import Event


@attrs.frozen(kw_only=True)
class Job:
    """One recurring job: how it is asked, what a generic agent does, what the developer keeps."""

    name: str
    requests: tuple[str, ...]
    wrong: str
    wrong_output: str
    wrong_exit: int
    right: str
    corrections: tuple[str, ...]  # "" = no words, the failing-then-passing command is the only evidence
    right_output: str = "ok"
    edit_path: str = ""  # an edit job: ``wrong``/``right`` are the texts written to this file


@attrs.frozen(kw_only=True)
class Persona:
    name: str
    project: str
    jobs: tuple[Job, ...]


PYTHONISTA = Persona(
    name="pythonista",
    project="shop-api",
    jobs=(
        Job(
            name="test",
            requests=(
                "The order tests fail after my refactor, run the test suite and fix them",
                "can you run the tests for the cart module and tell me what breaks",
                "please check that the discount tests still pass",
                "I changed the tax helper, are the tests still green?",
                "run the test suite for the refunds service",
            ),
            wrong="python -m pytest -q",
            wrong_output="ModuleNotFoundError: No module named 'shop'",
            wrong_exit=1,
            right="uv run pytest -q",
            corrections=(
                "No, this project uses uv: always run tests with `uv run pytest`, never `python -m pytest`.",
                "use `uv run pytest` instead of `python -m pytest`",
                "",
                "no, run `uv run pytest` please",
                "",
            ),
        ),
        Job(
            name="lint",
            requests=(
                "run the linter on shop/cart.py and fix what it reports",
                "lint the payments package before I push",
                "check the new module for lint errors",
                "are there lint warnings in the orders code?",
                "run the lint step like CI does",
            ),
            wrong="ruff check .",
            wrong_output="ruff: command not found",
            wrong_exit=127,
            right="uv run ruff check .",
            corrections=(
                "don't call ruff directly, use `uv run ruff check` like everything else here",
                "please use `uv run ruff check` instead of bare ruff",
                "",
                "lint goes through `uv run ruff check`, never plain ruff",
                "",
            ),
        ),
        Job(
            name="format",
            requests=(
                "format the whole repo before I commit",
                "can you format the files I touched today",
                "reformat shop/api so the diff is clean",
                "format the new tests before review",
                "the formatting check failed in CI, format everything",
            ),
            wrong="black .",
            wrong_output="black: command not found",
            wrong_exit=127,
            right="uv run ruff format .",
            corrections=(
                "we don't use black, we use `uv run ruff format`",
                "use `uv run ruff format` instead of black",
                "",
                "no black here: format with `uv run ruff format`",
                "",
            ),
        ),
        Job(
            name="migrate",
            requests=(
                "create a migration that adds orders.discount_cents",
                "write a migration for the new coupons table",
                "add a migration dropping the legacy flag column",
                "generate a migration for the renamed customer column",
                "we need a migration adding an index on orders.created_at",
            ),
            wrong="alembic revision -m change",
            wrong_output="alembic: command not found",
            wrong_exit=127,
            right="uv run alembic revision -m change",
            corrections=("", "run it as `uv run alembic` please", "", "", "use `uv run alembic`"),
        ),
    ),
)

WEBDEV = Persona(
    name="webdev",
    project="storefront-web",
    jobs=(
        Job(
            name="test",
            requests=(
                "run the unit tests for the checkout component",
                "the cart tests are red, run them and fix it",
                "make sure the tests pass before I open the PR",
                "run the tests for the search page",
                "are the tests green after the router change?",
            ),
            wrong="npm test",
            wrong_output="npm ERR! This project uses pnpm workspaces",
            wrong_exit=1,
            right="pnpm test",
            corrections=(
                "we use pnpm, not npm: run `pnpm test`",
                "use `pnpm test` instead of `npm test`",
                "",
                "no, `pnpm test` in this repo",
                "",
            ),
        ),
        Job(
            name="lint",
            requests=(
                "lint the src folder",
                "fix the lint errors in the header component",
                "run the linter before commit",
                "lint the hooks directory",
                "check the footer for lint problems",
            ),
            wrong="npx eslint .",
            wrong_output="ESLint couldn't find a configuration file",
            wrong_exit=2,
            right="pnpm lint",
            corrections=(
                "use `pnpm lint` instead of `npx eslint .`",
                "always run `pnpm lint` here",
                "",
                "we lint with `pnpm lint`, not eslint directly",
                "",
            ),
        ),
        Job(
            name="build",
            requests=(
                "build the app and tell me if it compiles",
                "does the production build still work?",
                "run a build after the vite upgrade",
                "build it once more after the env change",
                "check that the app still builds with the new tsconfig",
            ),
            wrong="npm run build",
            wrong_output="npm ERR! missing script: build",
            wrong_exit=1,
            right="pnpm build",
            corrections=(
                "never use npm here, use `pnpm build`",
                "use `pnpm build`, not `npm run build`",
                "",
                "no, `pnpm build` please",
                "",
            ),
        ),
        Job(
            name="install",
            requests=(
                "add zod as a dependency",
                "install the date-fns package",
                "add vitest to the dev dependencies",
                "install the clsx package for the buttons",
                "add msw as a dev dependency",
            ),
            wrong="npm install zod",
            wrong_output='npm ERR! Unsupported URL Type "workspace:"',
            wrong_exit=1,
            right="pnpm add zod",
            corrections=(
                "use `pnpm add` instead of `npm install`",
                "we don't use npm, we use `pnpm add`",
                "",
                "no, `pnpm add` in this monorepo",
                "",
            ),
        ),
    ),
)

PERSONAS = {p.name: p for p in (PYTHONISTA, WEBDEV)}


def sessions(persona: Persona, start: datetime) -> list[tuple[str, list[Event], datetime]]:
    """(session id, events, start time) for every (job, phrasing) of a persona."""
    out = []
    n = 0
    for job in persona.jobs:
        for k, request in enumerate(job.requests):
            n += 1
            events = [
                Event(kind="user", text=request),
                Event(kind="assistant", text="On it."),
                Event(kind="shell", text=job.wrong, exit_code=job.wrong_exit, output=job.wrong_output),
            ]
            correction = job.corrections[k % len(job.corrections)]
            if correction:
                events.append(Event(kind="user", text=correction))
            events += [
                Event(kind="shell", text=job.right, exit_code=0, output=job.right_output),
                Event(kind="assistant", text=f"Done with `{job.right}`."),
                Event(kind="user", text="thanks"),
            ]
            sid = f"{persona.name[:4]}{n:04d}-0000-4000-8000-{n:012d}"
            out.append((sid, events, start + timedelta(hours=3 * n)))
    return out
