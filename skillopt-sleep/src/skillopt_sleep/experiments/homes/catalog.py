"""Every recurring job a generated home's developer may repeat (:mod:`.convention`
says what one is; :mod:`.jobs_python` and :mod:`.jobs_more` hold them)."""

from __future__ import annotations

from skillopt_sleep.experiments.homes.convention import Act, Convention
from skillopt_sleep.experiments.homes.jobs_more import MORE
from skillopt_sleep.experiments.homes.jobs_python import PYTHON

CONVENTIONS: tuple[Convention, ...] = PYTHON + MORE
BY_NAME = {c.name: c for c in CONVENTIONS}

__all__ = ["Act", "BY_NAME", "CONVENTIONS", "Convention"]
