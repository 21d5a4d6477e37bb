"""A night's learning through the training engine decides as the night's own loop does
(issue 24: the switch must keep the gate decisions on the bundled experiment).

Both paths run on the same persona home (real-format transcripts, the experiment's
scripted agent and its LLM reflector, which also proposes a harmful rule): the legacy
night (``run_night``) and :func:`skillopt_sleep.learn.engine.learn` on the same mined
tasks. They must stage the same rules, score the same on the held-out test split, and
both block the harmful rule; the engine's run directory is a normal run
(``skillopt report`` reads it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillopt.api import ScriptedBackend
from skillopt_sleep.experiments.agents import HARMFUL_RULE, convention_agent, optimizer
from skillopt_sleep.experiments.run import persona_home


def clients_for(opts):
    from skillopt_sleep.clients import from_backends

    return from_backends(ScriptedBackend(script=convention_agent), ScriptedBackend(script=optimizer(harmful=True)), opts=opts)


def engine_night(opts, out: Path):
    """Tonight's tasks mined as the night mines them, then learned through the engine."""
    from skillopt_sleep import documents
    from skillopt_sleep.cycle import Night
    from skillopt_sleep.learn.engine import learn
    from skillopt_sleep.mine import gather

    clients = clients_for(opts)
    night = Night(opts, clients, dry_run=True)
    tasks = gather.tonight(night, list(night.harvest().sessions), None, None)
    docs = [documents.load(t) for t in documents.resolve_targets(opts.project_path, "claude-code")]
    reflectors = ("heuristic", "llm") if night.llm_reflection() else ("heuristic",)
    return learn(opts, tasks, docs, clients, out, reflectors=reflectors), docs


@pytest.mark.parametrize(("persona", "seed"), [("pythonista", 42), ("pythonista", 44), ("webdev", 43)])
def test_the_engine_night_stages_what_the_nights_own_loop_stages(persona, seed, tmp_path, skillopt_home):
    from skillopt_sleep.cycle import run_night
    from skillopt_sleep.nightenv import docs_of

    legacy_opts = persona_home(tmp_path / "legacy", persona, seed)
    legacy = run_night(legacy_opts, clients=clients_for(legacy_opts), dry_run=True).report
    summary, docs = engine_night(persona_home(tmp_path / "engine", persona, seed), tmp_path / "run")

    best = (tmp_path / "run" / "best_skill.md").read_text()
    learned = sorted(line for d in docs_of(docs, best) for line in d.rules().splitlines() if line.strip())
    assert legacy.status == "accepted" and learned == sorted(e.edit.content for e in legacy.accepted_edits)
    assert HARMFUL_RULE not in best and summary.recheck is not None and summary.recheck.accepted
    history = json.loads((tmp_path / "run" / "history.json").read_text())
    assert any(HARMFUL_RULE in json.dumps(h) for h in history) or any(
        HARMFUL_RULE in p.read_text() for p in (tmp_path / "run").rglob("*.json")), "the harmful rule was proposed"
    if persona == "pythonista" and seed == 42:  # the night's order: the first rule, then the model's (harmful) one
        steps = [h for h in history if h.get("step")]
        assert [h["action"] for h in steps[:3]] == ["accept_new_best", "reject", "accept_new_best"]
        assert any(HARMFUL_RULE in f.read_text() for f in (tmp_path / "run" / "steps" / "step_0002" / "apply").glob("*.json"))
    mixed = {k: 0.5 * s.hard + 0.5 * s.soft for k, s in summary.test.items()}
    assert (mixed["initial"], mixed["best"]) == pytest.approx((legacy.scores.baseline_test, legacy.scores.final_test))


def test_an_engine_nights_run_directory_is_read_by_skillopt_report(tmp_path, skillopt_home, run_cli):
    summary, _ = engine_night(persona_home(tmp_path / "engine", "webdev", 42), tmp_path / "run")
    out = tmp_path / "night.html"
    shown = run_cli("report", str(tmp_path / "run"), "-o", str(out))
    assert shown.exit_code == 0, shown.output
    page = out.read_text()
    assert "sleep-night" in page and "pnpm" in page  # the env, and the rule the night learned (its skill diff)
