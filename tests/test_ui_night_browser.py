"""A Sleep night learned through the engine (``skillopt_sleep.learn.engine``) is a run like
any other: listed by ``skillopt ui`` with its steps, in a real headless Chromium. The night
runs on the bundled pythonista persona home with the experiment's scripted agent and
reflector (which also proposes a harmful rule, rejected by the gate). Fails on any SEVERE
console entry."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from browserkit import Served, browser, console_errors, driver, js, text_of, wait_for  # noqa: F401 (fixtures)


@pytest.fixture(scope="module")
def run_root(tmp_path_factory):
    from skillopt.api import ScriptedBackend
    from skillopt_sleep import documents
    from skillopt_sleep.clients import from_backends
    from skillopt_sleep.cycle import Night
    from skillopt_sleep.experiments.agents import convention_agent, optimizer
    from skillopt_sleep.experiments.isolation import skillopt_home
    from skillopt_sleep.experiments.personas import PERSONAS, sessions
    from skillopt_sleep.experiments.transcripts import WRITERS
    from skillopt_sleep.learn.engine import learn
    from skillopt_sleep.mine import gather
    from skillopt_sleep.options import SleepOptions

    root = tmp_path_factory.mktemp("nights")
    persona = PERSONAS["pythonista"]
    project = root / "work" / persona.project
    project.mkdir(parents=True)
    writers = list(WRITERS.values())
    for n, (sid, events, start) in enumerate(sessions(persona, datetime(2025, 9, 1, 9, 0))):
        writers[n % len(writers)](root / "home", project, sid, events, start)
    roots = {"claude-code": (root / "home" / ".claude" / "projects",), "codex": (root / "home" / ".codex" / "sessions",)}
    opts = SleepOptions(project=project, sources=("claude-code", "codex"), roots=roots, lookback_hours=0, seed=42,
                        val_fraction=0.34, test_fraction=0.25, min_val_items=2, edit_budget=5, agent="claude-code")
    with skillopt_home(root / "skillopt-home"):
        clients = from_backends(ScriptedBackend(script=convention_agent), ScriptedBackend(script=optimizer(harmful=True)),
                                opts=opts)
        night = Night(opts, clients, dry_run=True)
        tasks = gather.tonight(night, list(night.harvest().sessions), None, None)
        docs = [documents.load(t) for t in documents.resolve_targets(project, "claude-code")]
        learn(opts, tasks, docs, clients, root / "runs" / "night-0001", reflectors=("heuristic", "llm"))
    return root / "runs"


@pytest.fixture
def served(run_root):
    server = Served([run_root])
    yield server
    server.stop()


def test_a_night_is_listed_and_its_gated_edits_are_its_steps(driver, served, run_root):
    history = [h for h in json.loads((run_root / "night-0001" / "history.json").read_text()) if h.get("step")]
    assert [h["action"] for h in history[:3]] == ["accept_new_best", "reject", "accept_new_best"]
    driver.get(served.url())
    wait_for(lambda: js(driver, "return document.querySelectorAll('#runs tr').length") >= 1, what="the runs list")
    assert js(driver, "return [...document.querySelectorAll('#runs tr')].map(r => r.dataset.id)") == ["night-0001"]
    assert "sleep-night" in text_of(driver, "#runs")
    driver.get(served.url("#/run/night-0001"))
    wait_for(lambda: text_of(driver, "#run-head h2") == "night-0001", what="the night's page")
    driver.get(served.url("#/run/night-0001/step/2"))
    wait_for(lambda: "reject" in text_of(driver, "#step").lower(), what="the rejected edit's step")
    assert console_errors(driver) == []
