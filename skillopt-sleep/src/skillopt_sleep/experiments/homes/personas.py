"""The developers behind generated homes (data written for this project, CC0-1.0).

A persona fixes what stays the same across its homes: the stack and its tools, the
languages its developer writes in (with weights), the projects (each with its package
and the things requests are about), the coding agents it uses, and the conventions
(:mod:`.catalog`) its recurring jobs are drawn from. A seed then picks five of those
jobs, how often each repeats, the phrasings, the agents and the noise
(:mod:`.generate`).
"""

from __future__ import annotations

import attrs


@attrs.frozen(kw_only=True)
class Project:
    name: str
    package: str
    #: what requests are about: (in words, as an identifier)
    objects: tuple[tuple[str, str], ...]
    #: hand-written notes the memory file always has (conventions unrelated to the jobs)
    notes: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class HomePersona:
    name: str
    stack: str
    #: (language, weight)
    languages: tuple[tuple[str, float], ...]
    projects: tuple[Project, ...]
    #: (agent, weight) among the six harvested agents
    agents: tuple[tuple[str, float], ...]
    #: conventions the five jobs are drawn from
    conventions: tuple[str, ...]
    #: a job whose convention the memory file states outright (the agent sometimes ignores it):
    #: a night must not keep a task for it, since a memory-following agent already passes
    memory_job: str = ""
    values: dict[str, str] = attrs.field(factory=dict)


MARIA = HomePersona(
    name="maria",
    stack="python",
    languages=(("en", 0.6), ("de", 0.4)),
    projects=(
        Project(name="billing-api", package="billing",
                objects=(("invoices", "invoices"), ("refunds", "refunds"), ("payouts", "payouts"), ("FX rates", "fx_rates"),
                         ("dunning letters", "dunning")),
                notes=("Keep API handlers in `billing/api/`.",)),
        Project(name="ops-scripts", package="ops",
                objects=(("backups", "backups"), ("cron report", "cron_report"), ("disk usage", "disk_usage"),
                         ("log rotation", "log_rotation")),
                notes=("Scripts must stay runnable with `python3 -m ops.<name>`.",)),
    ),
    agents=(("claude-code", 0.35), ("codex", 0.25), ("cursor", 0.2), ("opencode", 0.2)),
    conventions=("py-tests-runner", "py-tests-xdist", "py-lint", "py-migration", "py-httpx", "py-pathlib", "py-test-place",
                 "release-tag", "changelog-late"),
    memory_job="py-lint",
    values={"run": "uv run", "add": "uv add"},
)  # fmt: skip

THEO = HomePersona(
    name="theo",
    stack="node",
    languages=(("en", 0.5), ("fr", 0.5)),
    projects=(
        Project(name="storefront-web", package="storefront",
                objects=(("cart", "cart"), ("checkout", "checkout"), ("search", "search"), ("wishlist", "wishlist"),
                         ("header", "header")),
                notes=("Components use CSS modules, never inline styles.",)),
    ),
    agents=(("copilot-cli", 0.3), ("cursor", 0.25), ("pi", 0.25), ("claude-code", 0.2)),
    conventions=("js-tests", "js-lint", "js-build", "js-dayjs", "js-apiclient", "js-component-place", "release-tag",
                 "changelog-late", "compose"),
    memory_job="js-build",
    values={"pm": "pnpm"},
)  # fmt: skip

KENJI = HomePersona(
    name="kenji",
    stack="go",
    languages=(("en", 1.0),),
    projects=(
        Project(name="tracker-svc", package="tracker",
                objects=(("shipments", "shipments"), ("carriers", "carriers"), ("webhooks", "webhooks"), ("quotes", "quotes")),
                notes=("Handlers return errors, they never call `log.Fatal`.",)),
    ),
    agents=(("codex", 0.3), ("opencode", 0.25), ("pi", 0.25), ("copilot-cli", 0.2)),
    conventions=("go-tests-race", "go-lint", "go-slog", "release-tag", "changelog-late", "compose"),
)  # fmt: skip

LUCIA = HomePersona(
    name="lucia",
    stack="python",
    languages=(("es", 0.6), ("en", 0.4)),
    projects=(
        Project(name="clinic-scheduler", package="clinic",
                objects=(("appointments", "appointments"), ("patients", "patients"), ("reminders", "reminders"),
                         ("waiting list", "waiting_list")),
                notes=("Never log patient names.",)),
        Project(name="etl-jobs", package="etl",
                objects=(("nightly import", "nightly_import"), ("lab results", "lab_results"), ("billing codes", "billing_codes")),
                notes=("Jobs are idempotent: re-running one must not duplicate rows.",)),
    ),
    agents=(("claude-code", 0.3), ("pi", 0.25), ("codex", 0.25), ("copilot-cli", 0.2)),
    conventions=("py-typecheck", "py-structlog", "py-utc", "py-deps", "py-test-place", "py-tests-runner", "compose",
                 "changelog-late", "release-tag"),
    memory_job="py-tests-runner",
    values={"run": "poetry run", "add": "poetry add"},
)  # fmt: skip

ANKE = HomePersona(
    name="anke",
    stack="node",
    languages=(("de", 0.6), ("en", 0.4)),
    projects=(
        Project(name="fleet-dashboard", package="fleet",
                objects=(("vehicles", "vehicles"), ("drivers", "drivers"), ("routes", "routes"), ("alerts", "alerts")),
                notes=("Every page needs a loading state.",)),
    ),
    agents=(("cursor", 0.3), ("opencode", 0.25), ("claude-code", 0.25), ("codex", 0.2)),
    conventions=("js-tests", "js-build", "js-lint", "js-dayjs", "js-apiclient", "js-component-place", "changelog-late",
                 "release-tag"),
    values={"pm": "yarn"},
)  # fmt: skip

OLU = HomePersona(
    name="olu",
    stack="rust",
    languages=(("en", 0.55), ("fr", 0.45)),
    projects=(
        Project(name="log-shipper", package="shipper",
                objects=(("parser", "parser"), ("sink", "sink"), ("buffer", "buffer"), ("config loader", "config")),
                notes=("No `unsafe` outside `src/ffi/`.",)),
    ),
    agents=(("codex", 0.3), ("pi", 0.25), ("opencode", 0.25), ("copilot-cli", 0.2)),
    conventions=("rs-nextest", "rs-clippy", "rs-anyhow", "release-tag", "changelog-late"),
)  # fmt: skip

PERSONAS = {p.name: p for p in (MARIA, THEO, KENJI, LUCIA, ANKE, OLU)}
