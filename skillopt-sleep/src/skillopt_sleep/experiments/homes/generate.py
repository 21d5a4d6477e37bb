"""Planning a generated home from a persona and a seed, deterministically.

:func:`plan` decides everything (which five jobs, how often each repeats, which agent
recorded each session, in which language each message is written, what the developer
says and when, the noise, the automation and the planted secrets) from
``random.Random(f"{persona}:{seed}")``; :mod:`.write` turns the plan into files.
Nothing here reads the miner: the plan is the ground truth a night is scored against
(which session repeats which job, what each job's accepted attempt is).

A job session goes: the request, the agent's first attempt (the generic one, or what
the memory file alone suggests when it states a coarser convention), the developer's
correction — in words (one of the pool's frames), or none when the failing command
speaks for itself, or late, after the agent said it was done — the attempt the
developer keeps, and an aftermath (praise, a declined offer, a polite follow-up
request, or nothing).
"""

from __future__ import annotations

import random
import string
import uuid
from datetime import datetime, timedelta
from pathlib import Path

import attrs

from skillopt_sleep.experiments.homes import phrasing as ph
from skillopt_sleep.experiments.homes.catalog import BY_NAME, Act, Convention
from skillopt_sleep.experiments.homes.personas import PERSONAS, HomePersona, Project
from skillopt_sleep.experiments.homes.sets import HomeId
from skillopt_sleep.experiments.transcripts import Event

#: how many recurring jobs a home has, and how often each repeats
JOBS_PER_HOME = 5
REPEATS = (3, 11)
START = datetime(2025, 10, 1, 8, 0)
DEPENDENCIES = ("tenacity", "pydantic-settings", "python-dateutil", "rich")


@attrs.frozen(kw_only=True)
class PlacedJob:
    convention: Convention
    project: str
    repeats: int
    #: the memory file states the convention outright (a trap: no task may be kept for it)
    memory_stated: bool = False


@attrs.frozen(kw_only=True)
class PlannedSession:
    sid: str
    agent: str
    project: str  # a project name, or "" for a directory outside every project
    when: datetime
    events: tuple[Event, ...]
    #: job name (the first, when it has two), "noise", "one-off", "automation" or "elsewhere"
    label: str
    #: every job the session does
    jobs: tuple[str, ...] = ()
    #: the request each intent opens with, and what it is (a job name, "follow-up", "noise", "one-off")
    intents: tuple[tuple[str, str], ...] = ()
    #: the values its texts were filled with (obj, mod, ver …)
    values: dict[str, str] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class HomePlan:
    id: HomeId
    persona: HomePersona
    jobs: tuple[PlacedJob, ...]
    sessions: tuple[PlannedSession, ...]
    memory: dict[str, tuple[str, str]]  # project -> (file name, text)
    planted: tuple[str, ...]

    def values(self, project: str) -> dict[str, str]:
        p = next(p for p in self.persona.projects if p.name == project)
        return {**self.persona.values, "pkg": p.package}


@attrs.frozen(kw_only=True)
class BuiltHome:
    """A planned home as written to disk (generated, or the bundled fixture home)."""

    plan: HomePlan
    home: Path
    projects: dict[str, Path]
    #: where each agent's harvester should look in this home
    roots: dict[str, tuple[Path, ...]]

    def session(self, harvested_id: str) -> PlannedSession | None:
        """The planned session a harvested session id (``source:…``) was written from."""
        return next((s for s in self.plan.sessions if s.sid in harvested_id), None)


def fill(text: str, values: dict[str, str]) -> str:
    return text.format(**values) if "{" in text else text


def fill_act(act: Act, values: dict[str, str]) -> Act:
    return attrs.evolve(act, text=fill(act.text, values), path=fill(act.path, values), output=fill(act.output, values))


def _weighted(rng: random.Random, pairs) -> str:
    names, weights = zip(*pairs, strict=True)
    return rng.choices(names, weights=weights)[0]


def _secrets(rng: random.Random) -> dict[str, str]:
    """Fake credentials in real formats, different per home (assembled, never literal)."""
    alnum = string.ascii_letters + string.digits

    def rand(n: int, alphabet: str = alnum) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    return {
        "openai": "sk-" + "proj-" + rand(32),
        "github": "ghp_" + rand(36),
        "aws": "AKIA" + rand(16, string.ascii_uppercase + string.digits),
        "db_password": "Pw-" + rand(12),
        "token": rand(32),
    }


def _speak(rng: random.Random, pool: dict, lang: str) -> str:
    options = pool.get(lang) or pool["en"]
    return rng.choice(options)


def _short(command: str) -> str:
    """How a developer names a command in a sentence: its first words, no paths or values."""
    words = []
    for token in command.split():
        if "/" in token or token in (".", "./...") or token.startswith(('"', "'")) or len(words) == 3:
            break
        words.append(token)
    return " ".join(words)


def _choose_jobs(rng: random.Random, persona: HomePersona) -> list[Convention]:
    """Five jobs (``changelog-late`` always: every home has a real late correction), at
    least one with a command and one with an edit besides it."""
    pool = [BY_NAME[n] for n in persona.conventions if n not in ("changelog-late", persona.memory_job)]
    while True:
        chosen = [BY_NAME["changelog-late"], *rng.sample(pool, JOBS_PER_HOME - 1)]
        families = {c.family for c in chosen[1:]}
        if families & {"tool", "flag"} and families & {"api", "place"}:
            return chosen


def _aftermath(rng: random.Random, lang: str, pool: str, values: dict, force_follow_up: bool) -> tuple[list[Event], str]:
    """What the developer says after the job; a follow-up request is a new intent (its text returned)."""
    roll = 1.0 if force_follow_up else rng.random()
    if roll > 0.78:
        text = fill(_speak(rng, ph.FOLLOW_UP[pool], lang), values)
        edit = Event(kind="edit", path=fill("{pkg}/{mod}.py", values), text=fill('"""{mod}: see the module docs."""', values))
        return [Event(kind="user", text=text), Event(kind="assistant", text=ph.ACK[lang]), edit, Event(kind="assistant", text=ph.DONE[lang])], text
    if roll > 0.62:
        return [Event(kind="assistant", text=ph.OFFER[lang]), Event(kind="user", text=_speak(rng, ph.DECLINE[pool], lang))], ""
    if roll > 0.3:
        return [Event(kind="user", text=_speak(rng, ph.PRAISE[pool], lang))], ""
    return [], ""


def _act_event(act: Act) -> Event:
    if act.kind == "edit":
        return Event(kind="edit", path=act.path, text=act.text)
    return Event(kind="shell", text=act.text, exit_code=act.exit_code, output=act.output)


def _explore(rng: random.Random, values: dict) -> list[Event]:
    """What an agent does before attempting anything: look around (commands with no job of their own)."""
    looks = [
        Event(kind="shell", text="git status --short", output=fill(" M {pkg}/{mod}.py\n?? notes.txt", values)),
        Event(kind="shell", text=fill("ls {pkg}", values), output=fill("__init__.py\napi\n{mod}.py\nmodels", values)),
        Event(kind="shell", text=fill('rg -n "{mod}" {pkg}', values), output=fill("{pkg}/{mod}.py:12:def handle({mod}):", values)),
        Event(kind="assistant", text=fill("Let me look at {pkg}/{mod}.py first.", values)),
    ]
    return rng.sample(looks, rng.randint(0, 2))


def job_events(
    rng: random.Random, job: PlacedJob, values: dict, lang: str, pool: str, *, secret: str = "", memory_name: str = "",
    lead: str = "",
) -> list[Event]:
    """One session of a recurring job (see the module docstring); ``lead`` opens a
    request that follows another job in the same session ("now …")."""
    conv = job.convention
    request = lead + fill(_speak(rng, conv.requests, lang), values)
    right, generic = fill_act(conv.right, values), fill_act(conv.generic, values)
    base = fill_act(conv.base, values) if conv.base else None
    if secret:
        request = f"{request}. {fill(_speak(rng, ph.SECRET_LINES, lang), {'secret': secret})}"
    elif generic.kind == "shell" and generic.exit_code and rng.random() < 0.15:
        request = f"{request}\n\nit said:\n```\n{generic.output}\n```"  # a pasted error
    events = [Event(kind="user", text=request), Event(kind="assistant", text=ph.ACK[lang]), *_explore(rng, values)]
    roll = rng.random()
    if roll < 0.07 and not job.memory_stated:  # the agent got it right: nothing to correct
        return [*events, _act_event(right), Event(kind="assistant", text=ph.DONE[lang])]
    first = base if base is not None and roll < 0.75 else generic
    if first.kind == "shell" and rng.random() < 0.3:
        events.append(Event(kind="assistant", text=f"I'll run `{first.text}`."))
    events.append(_act_event(first))
    prefer, avoid = fill(conv.prefer, values), fill(conv.avoid, values)
    if first is generic and base is not None:
        avoid = _short(generic.text)
    words = ""
    if conv.family == "late":
        events.append(Event(kind="assistant", text=f"Added it to {right.path}."))
        words = _speak(rng, ph.LATE[pool], lang).format(prefer=prefer, avoid=ph.AVOID_WORDS[lang])
    elif conv.family == "place":
        events.append(Event(kind="assistant", text=f"Created {first.path}."))
        words = _speak(rng, ph.PLACE[pool], lang).format(prefer=prefer, avoid=avoid)
    elif conv.family == "api":
        events.append(Event(kind="assistant", text=f"Wrote {first.path}."))
        words = _speak(rng, ph.SWAP[pool], lang).format(prefer=prefer, avoid=avoid)
    elif first.exit_code != 0 and rng.random() < 0.35 and not job.memory_stated:
        words = ""  # the failing command speaks for itself; the agent fixes it unprompted
    else:
        words = _speak(rng, ph.SWAP[pool], lang).format(prefer=prefer, avoid=avoid)
        if job.memory_stated and memory_name:
            words += f" ({memory_name})"
    if words:
        events.append(Event(kind="user", text=words))
    if right.kind == "shell" and right.exit_code == 0 and "test" in conv.name and rng.random() < 0.3:
        # the right runner finds a real failure: the agent fixes the code and runs it again
        failing = attrs.evolve(right, exit_code=1, output=fill("FAILED tests/test_{mod}.py::test_{mod}_rounding - assert 3 == 2\n1 failed, 7 passed in 0.70s", values))
        fix = Event(kind="edit", path=fill("{pkg}/{mod}.py", values), text=fill("def handle({mod}):\n    return round_half_even({mod})", values))
        events += [_act_event(failing), fix]
    return [*events, _act_event(right), Event(kind="assistant", text=ph.DONE[lang])]


#: how a developer opens a second request in the same session, per language
NEXT = {"en": ("now ", "next, ", "ok, and ", "one more: "), "de": ("jetzt ", "als Nächstes: "), "fr": ("maintenant ", "ensuite, "),
        "es": ("ahora ", "luego, ")}  # fmt: skip


def _settled(job: PlacedJob, memory_text: str, persona: HomePersona) -> bool:
    import re

    project = next(p for p in persona.projects if p.name == job.project)
    return re.search(fill(job.convention.cue, {**persona.values, "pkg": project.package}), memory_text) is not None


def _values(rng: random.Random, project: Project, base: dict) -> dict[str, str]:
    obj, mod = rng.choice(project.objects)
    return {
        **base,
        "obj": obj,
        "mod": mod,
        "Mod": "".join(part.capitalize() for part in mod.split("_")),
        "ver": f"{rng.randint(1, 3)}.{rng.randint(0, 14)}.{rng.randint(0, 9)}",
        "dep": rng.choice(DEPENDENCIES),
    }


def _sid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _memory(persona: HomePersona, project: Project, jobs: list[PlacedJob], values: dict) -> tuple[str, str]:
    main_agent = max(persona.agents, key=lambda pair: pair[1])[0]
    name = "CLAUDE.md" if main_agent == "claude-code" else "AGENTS.md"
    lines = [f"# {project.name}", "", "Notes for coding agents (hand-written).", ""]
    lines += [f"- {note}" for note in project.notes]
    for job in jobs:
        conv = job.convention
        if job.project != project.name:
            continue
        if job.memory_stated:
            lines.append(f"- Use `{fill(conv.prefer, values)}` (never `{fill(conv.avoid, values)}`).")
        elif conv.memory_line:
            lines.append(f"- {fill(conv.memory_line, values)}")
    return name, "\n".join(lines) + "\n"


def plan(home: HomeId) -> HomePlan:
    persona = PERSONAS[home.persona]
    rng = random.Random(f"{home.persona}:{home.seed}")
    pool = home.pool
    projects = persona.projects
    while True:  # no job may be one its project's memory file already settles (its cue in the memory)
        chosen = _choose_jobs(rng, persona)
        jobs = [
            PlacedJob(convention=conv, project=projects[0 if i < 3 or len(projects) == 1 else 1].name, repeats=rng.randint(*REPEATS))
            for i, conv in enumerate(chosen)
        ]
        if persona.memory_job:
            jobs.append(PlacedJob(convention=BY_NAME[persona.memory_job], project=projects[0].name, repeats=rng.randint(3, 5),
                                  memory_stated=True))  # fmt: skip
        memory = {p.name: _memory(persona, p, jobs, {**persona.values, "pkg": p.package}) for p in projects}
        if not any(_settled(job, memory[job.project][1], persona) for job in jobs if not job.memory_stated):
            break
    secrets = _secrets(rng)
    agents = persona.agents
    sessions: list[PlannedSession] = []
    secret_slots = [secrets["openai"], secrets["github"], secrets["aws"]]
    follow_ups_left = 2
    instances = [job for job in jobs for _ in range(job.repeats)]
    rng.shuffle(instances)
    while instances:
        job = instances.pop()
        project = next(p for p in projects if p.name == job.project)
        base = {**persona.values, "pkg": project.package}
        values = _values(rng, project, base)
        lang = _weighted(rng, persona.languages)
        secret = secret_slots.pop() if secret_slots and rng.random() < 0.3 else ""
        events = job_events(rng, job, values, lang, pool, secret=secret, memory_name=memory[project.name][0])
        intents = [(events[0].text, job.convention.name)]
        labels = [job.convention.name]
        chained = next((j for j in instances if j.project == job.project and j.convention is not job.convention), None)
        if chained is not None and rng.random() < 0.2:  # a second job in the same session
            instances.remove(chained)
            more = job_events(rng, chained, _values(rng, project, base), lang, pool, lead=rng.choice(NEXT.get(lang, NEXT["en"])))
            events += more
            intents.append((more[0].text, chained.convention.name))
            labels.append(chained.convention.name)
        elif not job.memory_stated:
            after, follow = _aftermath(rng, lang, pool, values, force_follow_up=follow_ups_left > 0 and rng.random() < 0.3)
            follow_ups_left -= bool(follow)
            events += after
            intents += [(follow, "follow-up")] if follow else []
        agent = _weighted(rng, agents)
        if agent == "copilot-cli" and rng.random() < 0.25:
            agent = "copilot-store"  # the older SQLite store: words only
        sessions.append(
            PlannedSession(sid=_sid(rng), agent=agent, project=job.project, when=START, events=tuple(events),
                           label=job.convention.name, jobs=tuple(labels), intents=tuple(intents), values=values)
        )  # fmt: skip
    for project in projects:
        sessions += _noise(rng, persona, project, pool, secrets)
    sessions += _automation(rng, persona, pool)
    sessions += [attrs.evolve(s, project="") for s in _noise(rng, persona, projects[0], pool, secrets, count=2, label="elsewhere")]
    rng.shuffle(sessions)
    timed = [attrs.evolve(s, when=START + timedelta(hours=5 * n, minutes=rng.randint(0, 50))) for n, s in enumerate(sessions)]
    planted = (secrets["openai"], secrets["github"], secrets["aws"], secrets["db_password"], secrets["token"])
    return HomePlan(id=home, persona=persona, jobs=tuple(jobs), sessions=tuple(timed), memory=memory, planted=planted)


def _noise(rng, persona: HomePersona, project: Project, pool: str, secrets: dict, count: int = 0, label: str = "noise"):
    """One-off requests (a command output leaking a connection string among them), and
    one correction the developer makes only once."""
    out = []
    base = {**persona.values, "pkg": project.package}
    for n in range(count or rng.randint(2, 4)):
        values = _values(rng, project, base)
        lang = _weighted(rng, persona.languages)
        text = fill(_speak(rng, ph.NOISE[pool], lang), values)
        events = [Event(kind="user", text=text), Event(kind="assistant", text=ph.ACK[lang])]
        if n == 0:
            url = f"postgres://app:{secrets['db_password']}@db:5432/{project.package}"
            events.append(Event(kind="shell", text="env | grep DATABASE", output=f"DATABASE_URL={url}\nAPI_TOKEN={secrets['token']}"))
        events.append(Event(kind="assistant", text=f"Here is what I found about {values['mod']}."))
        out.append(PlannedSession(sid=_sid(rng), agent=_weighted(rng, persona.agents), project=project.name, when=START,
                                  events=tuple(events), label=label, intents=((text, "noise"),), values=values))  # fmt: skip
    if label == "noise" and project is persona.projects[0]:
        words, prefer, avoid = ph.ONE_OFF[pool]
        values = _values(rng, project, base)
        request = fill("parse the {obj} payload in {pkg}/{mod}.py", values)
        path = fill("{pkg}/{mod}.py", values)
        events = [
            Event(kind="user", text=request),
            Event(kind="assistant", text="On it."),
            Event(kind="edit", path=path, text=f"import {avoid}\n\n\ndef parse(raw):\n    return {avoid}.loads(raw)"),
            Event(kind="user", text=words),
            Event(kind="edit", path=path, text=f"import {prefer}\n\n\ndef parse(raw):\n    return {prefer}.loads(raw)"),
            Event(kind="assistant", text="Done."),
        ]
        out.append(PlannedSession(sid=_sid(rng), agent=_weighted(rng, persona.agents), project=project.name, when=START,
                                  events=tuple(events), label="one-off", intents=((request, "one-off"),), values=values))  # fmt: skip
    return out


AUTOMATED = (
    "You are a strict grader. Score the agent's answer against the rubric.\n\n## CURRENT SKILL\n---\nname: {pkg}\n---\n"
    '- Run tests first.\n\n## Task\nRun the tests.\n\n## Answer\nmake test\n\nReply with JSON {{"score": 0..1, "reason": "..."}}.',
    "## Skill\n- Follow the project conventions.\n\n## Task\nLint the {pkg} package.\n\nComplete the task following the skill. "
    "Return only the final answer.",
    '## Current skill\n- Run tests.\n\n## Failures\n- used the wrong runner\n\nPropose at most 3 edits as JSON {{"edits": [...]}}.',
    "[skillopt-sleep:engine-prompt v1]\nYou are the developer's coding agent. ## Request\nrun the tests",
)


def _automation(rng: random.Random, persona: HomePersona, pool: str) -> list[PlannedSession]:
    """Sessions a program ran: three in the first project, one in a directory outside it
    (which must not be counted as this project's)."""
    out = []
    project = persona.projects[0]
    for n, prompt in enumerate(rng.sample(AUTOMATED, 4)):
        text = fill(prompt, {"pkg": project.package})
        events = (Event(kind="user", text=text), Event(kind="assistant", text='{"score": 1, "reason": "ok"}'))
        agent = _weighted(rng, persona.agents)
        out.append(PlannedSession(sid=_sid(rng), agent=agent, project=project.name if n < 3 else "", when=START,
                                  events=events, label="automation"))  # fmt: skip
    return out
