"""``skillopt.api.train``: the engine's door for a client that holds its own config, env
and model clients (Sleep's night). The toy env and scripted models stand in for a real
benchmark and real models (see toy.py)."""

from __future__ import annotations

import json

import attrs
import pytest
from engine_helpers import make_config
from toy import ToyEnv, toy_optimizer, toy_target

from skillopt import api


def clients(ledger=None):
    ledger = ledger or api.Ledger()
    target = api.ModelClient(api.ScriptedBackend(script=toy_target), role="target", ledger=ledger, cache=None, cache_mode="off")
    optimizer = api.ModelClient(api.ScriptedBackend(script=toy_optimizer()), role="optimizer", ledger=ledger, cache=None,
                                cache_mode="off")
    return target, optimizer, ledger


def run(cfg, out, **kwargs):
    target, optimizer, ledger = clients()
    return api.train(cfg, ToyEnv(cfg.env), target=target, optimizer=optimizer, out_dir=out, ledger=ledger, **kwargs)


def test_train_runs_the_engine_into_the_run_directory_and_returns_its_summary(tmp_path):
    cfg = make_config(train={"num_epochs": 1, "max_steps": 2}, evaluation={"eval_test": False})
    summary = run(cfg, tmp_path / "run")
    assert isinstance(summary, api.RunSummary) and summary.status == "finished" and summary.steps_completed == 2
    assert summary.out_dir == str(tmp_path / "run") and summary.total_accepts >= 1
    assert "RULE-" in (tmp_path / "run" / "best_skill.md").read_text()
    saved = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert saved["status"] == "finished" and saved["config"]["out_dir"] == str(tmp_path / "run")
    assert json.loads((tmp_path / "run" / "config.json").read_text())["train"]["max_steps"] == 2
    from skillopt.engine.lock import RunLock

    RunLock(tmp_path / "run").acquire().release()  # the door let go of the run directory


def test_the_same_call_again_resumes_the_finished_run_without_new_calls(tmp_path):
    cfg = make_config(train={"num_epochs": 1, "max_steps": 1}, evaluation={"eval_test": False})
    first = run(cfg, tmp_path / "run")
    target, optimizer, ledger = clients()
    again = api.train(cfg, ToyEnv(cfg.env), target=target, optimizer=optimizer, out_dir=tmp_path / "run", ledger=ledger)
    assert again.status == "finished" and again.steps_completed == first.steps_completed
    assert not target.backend.requests and not optimizer.backend.requests  # nothing re-run


def test_a_run_directory_with_another_config_is_refused_naming_the_change_unless_forced(tmp_path):
    cfg = make_config(train={"num_epochs": 1, "max_steps": 1}, evaluation={"eval_test": False})
    run(cfg, tmp_path / "run")
    changed = attrs.evolve(cfg, optimizer=attrs.evolve(cfg.optimizer, learning_rate=2))
    with pytest.raises(api.ConfigError, match="optimizer.learning_rate"):
        run(changed, tmp_path / "run")
    forced = run(changed, tmp_path / "run", force_config=True)
    assert forced.status == "finished" and "optimizer.learning_rate: 4 -> 2" in forced.config_changes[0].changes


def test_a_given_gate_replaces_the_configured_one(tmp_path):
    """A client may bring its own gate instance (a night's settings), not only a name."""
    cfg = make_config(train={"num_epochs": 1, "max_steps": 1}, evaluation={"eval_test": False, "gate": "paired"})
    strict = api.get_component("gates", "strict").obj(cfg.evaluation)
    summary = run(cfg, tmp_path / "run", gate=strict)
    assert summary.gate.name == "strict"
