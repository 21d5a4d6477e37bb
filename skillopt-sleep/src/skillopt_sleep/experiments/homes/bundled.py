"""The bundled fixture home (:mod:`skillopt_sleep.experiments.home`) as one home among
the generated ones: built by its own module, described as a :class:`HomePlan` so the
same scoring applies. Its migration job is the one the project's CLAUDE.md already
states (``uv run alembic revision``), so it is a memory-stated job here: a night keeps
no task for it.
"""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.experiments import home as fixture
from skillopt_sleep.experiments.homes.catalog import Act, Convention
from skillopt_sleep.experiments.homes.generate import BuiltHome, HomePlan, PlacedJob, PlannedSession
from skillopt_sleep.experiments.homes.personas import HomePersona, Project
from skillopt_sleep.experiments.homes.sets import HomeId

#: what a document must say for the stand-in model to do each job the developer's way
CUES = {
    "tests": r"uv run pytest",
    "lint": r"uv run ruff check",
    "migration": r"uv run alembic",
    "changelog": r"version heading",
    "release-tag": r"git tag v|prefixed with v",
}
FAMILY = {"changelog": "late"}


def _act(job, right: bool) -> Act:
    text = job.right if right else job.wrong
    if job.edit_path:
        return Act(kind="edit", path=job.edit_path, text=text)
    if right and job.name == "release-tag":
        text = "git tag v1.9.0"
    return Act(kind="shell", text=text, exit_code=0 if right else job.wrong_exit, output=job.right_output if right else job.wrong_output)


def convention(job) -> Convention:
    return Convention(
        name=job.name,
        stacks=("python",),
        family=FAMILY.get(job.name, "tool"),
        requests={"en": job.requests},
        generic=_act(job, right=False),
        right=_act(job, right=True),
        prefer="",
        avoid="",
        cue=CUES[job.name],
    )


def build_bundled(home_id: HomeId, root: Path) -> BuiltHome:
    home, project = fixture.build_home(root)
    jobs = tuple(PlacedJob(convention=convention(j), project=fixture.PROJECT, repeats=5, memory_stated=j.name == "migration")
                 for j in fixture.JOBS)  # fmt: skip
    by_name = {j.convention.name: j for j in jobs}
    sessions = []
    n = 0
    for k in range(5):
        for job in fixture.JOBS:
            sid = f"{job.name[:4]}{k}{n:03d}-0000-4000-8000-{n:012d}"
            events = fixture.job_events(job, k)
            sessions.append(PlannedSession(sid=sid, agent="", project=fixture.PROJECT, when=fixture.datetime(2025, 9, 22),
                                           events=tuple(events), label=job.name, intents=((events[0].text, job.name),)))  # fmt: skip
            n += 1
    for m in range(len(fixture.AUTOMATED)):
        sid = f"auto{m:04d}-0000-4000-8000-{900 + m:012d}"
        sessions.append(PlannedSession(sid=sid, agent="", project=fixture.PROJECT, when=fixture.datetime(2025, 9, 22),
                                       events=(), label="automation"))  # fmt: skip
    persona = HomePersona(
        name="bundled",
        stack="python",
        languages=(("en", 1.0),),
        projects=(Project(name=fixture.PROJECT, package="ledger", objects=()),),
        agents=(),
        conventions=tuple(by_name),
        memory_job="migration",
    )
    planned = HomePlan(id=home_id, persona=persona, jobs=jobs, sessions=tuple(sessions),
                       memory={fixture.PROJECT: ("CLAUDE.md", fixture.MEMORY)}, planted=fixture.PLANTED)  # fmt: skip
    return BuiltHome(plan=planned, home=home, projects={fixture.PROJECT: project}, roots=fixture.roots(home))
