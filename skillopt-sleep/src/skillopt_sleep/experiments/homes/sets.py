"""Which generated homes the code may be tuned on, and which it is judged on: the one
place this is declared.

``TUNE`` homes are the ones mining, feedback reading and rule writing were developed
against (and the bundled fixture home, which they were first written for). ``HELD_OUT``
homes were not looked at while tuning: three personas whose stacks (Python with
Poetry, Node with Yarn, Rust), languages (Spanish) and conventions (type checking,
structured logging, UTC timestamps, dependency installs, the Rust tools) no tuning
home has, and unseen seeds of the tuning personas; every held-out home uses the ``B``
phrasing pool (:mod:`.phrasing`), so its developer asks, corrects, praises and follows
up in sentences no tuning home contains. Every figure is reported on held-out homes.
The first nine held-out homes were run once after tuning; that run found two faults
(a request containing "instead of" read as a late correction; a check only the
project's own default passes, on a stack the generic answers did not cover), which
were fixed, so the last six held-out homes were added then and first run for the
final figures.
"""

from __future__ import annotations

import attrs


@attrs.frozen(kw_only=True)
class HomeId:
    persona: str  # a name in personas.PERSONAS, or "bundled" for experiments/home.py
    seed: int
    pool: str  # phrasing pool: A (tuning) or B (held out)

    @property
    def name(self) -> str:
        return "bundled-ledger-api" if self.persona == "bundled" else f"{self.persona}-{self.seed}"


TUNE: tuple[HomeId, ...] = (
    HomeId(persona="bundled", seed=0, pool="A"),
    HomeId(persona="maria", seed=1, pool="A"),
    HomeId(persona="maria", seed=2, pool="A"),
    HomeId(persona="theo", seed=1, pool="A"),
    HomeId(persona="theo", seed=2, pool="A"),
    HomeId(persona="kenji", seed=1, pool="A"),
    HomeId(persona="kenji", seed=2, pool="A"),
)

HELD_OUT: tuple[HomeId, ...] = (
    HomeId(persona="lucia", seed=11, pool="B"),
    HomeId(persona="lucia", seed=12, pool="B"),
    HomeId(persona="anke", seed=11, pool="B"),
    HomeId(persona="anke", seed=12, pool="B"),
    HomeId(persona="olu", seed=11, pool="B"),
    HomeId(persona="olu", seed=12, pool="B"),
    HomeId(persona="maria", seed=31, pool="B"),
    HomeId(persona="theo", seed=31, pool="B"),
    HomeId(persona="kenji", seed=31, pool="B"),
    # added after the first held-out run (which found two faults, fixed then): never looked at before the final figures
    HomeId(persona="lucia", seed=13, pool="B"),
    HomeId(persona="anke", seed=13, pool="B"),
    HomeId(persona="olu", seed=13, pool="B"),
    HomeId(persona="maria", seed=32, pool="B"),
    HomeId(persona="theo", seed=32, pool="B"),
    HomeId(persona="kenji", seed=32, pool="B"),
)

#: conventions only held-out homes use (a check against a tuning persona drifting onto them)
HELD_OUT_ONLY_CONVENTIONS = ("py-typecheck", "py-structlog", "py-utc", "py-deps", "rs-nextest", "rs-clippy", "rs-anyhow")

SETS = {"tune": TUNE, "held-out": HELD_OUT, "all": TUNE + HELD_OUT}


def homes(which: str) -> tuple[HomeId, ...]:
    if which not in SETS:
        from skillopt.api import ConfigError

        raise ConfigError(f"--homes must be one of {', '.join(SETS)}, not {which!r}")
    return SETS[which]
