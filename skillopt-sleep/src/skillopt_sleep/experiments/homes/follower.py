"""The scripted stand-in for the coding model on a generated home.

It stands for a capable model that understands which of the developer's jobs a
request asks for and does it the way its documents say: the developer's way when the
skill or memory names the job's convention (its ``cue``), the coarser way when the
memory states only that (``base``), and otherwise what any agent does (``generic``).
It never fixes a job because a rule names another job's tool; a harmful rule makes it
answer uselessly, like a model obeying a bad instruction. It recognises a request by
the developer's own words (a rephrased or dreamed request still contains them), which
is what a real model would do by reading it.
"""

from __future__ import annotations

import re

from skillopt.api import CompletionRequest
from skillopt_sleep.experiments.agents import _HARM, read_replay
from skillopt_sleep.experiments.homes.catalog import Act
from skillopt_sleep.experiments.homes.generate import PlacedJob, fill, fill_act

USELESS = "Done — the work is complete."
VAGUE = "I would look into it and make the change."
_PROJECT = re.compile(r"in the project (\S+?)\. ")


def _norm(text: str) -> str:
    return " ".join((text or "").lower().split())


def level(job: PlacedJob, docs: str, values: dict) -> str:
    """``right``, ``base`` or ``generic``: how a model reading ``docs`` does ``job``."""
    conv = job.convention
    if re.search(fill(conv.cue, values), docs):
        return "right"
    if conv.base is not None and conv.memory_line and fill(conv.memory_line, values) in docs:
        return "base"
    return "generic"


def attempt(job: PlacedJob, lvl: str, values: dict) -> Act:
    conv = job.convention
    act = conv.right if lvl == "right" else conv.base if lvl == "base" and conv.base is not None else conv.generic
    return fill_act(act, values)


def answer_text(act: Act) -> str:
    if act.kind == "edit":
        return f"I would write `{act.path}`:\n```\n{act.text}\n```"
    return f"```bash\n{act.text}\n```\nThen I fix what fails and re-run."


class HomeFollower:
    """A callable for :class:`~skillopt.api.ScriptedBackend`, bound to one built home."""

    def __init__(self, built):
        self.plan = built.plan
        self.index: list[tuple[str, str, PlacedJob, dict]] = []  # (project, request prefix, job, values)
        jobs = {(j.project, j.convention.name): j for j in self.plan.jobs}
        for s in self.plan.sessions:
            for text, label in s.intents:
                job = jobs.get((s.project, label))
                if job is not None and text:
                    self.index.append((s.project, _norm(text)[:40], job, {**self.plan.values(s.project), **s.values}))

    def find(self, project: str, request: str) -> tuple[PlacedJob, dict] | None:
        wanted = _norm(request)
        for where, prefix, job, values in self.index:
            if (not project or where == project) and prefix and prefix in wanted:
                return job, values
        return None

    def __call__(self, request: CompletionRequest) -> str:
        system, docs, req = read_replay(request)
        if _HARM.search(docs):
            return USELESS
        m = _PROJECT.search(system)
        found = self.find(m.group(1) if m else "", req)
        if found is None:
            return VAGUE
        job, values = found
        return answer_text(attempt(job, level(job, docs, values), values))
