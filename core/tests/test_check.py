"""``skillopt check`` on the toy env with the scripted backend (a stand-in model whose
replies a rules file scripts), through the real CLI."""

from __future__ import annotations

import json

BASE = ("check", "--env", "toy", "--backend", "scripted", "--json")


def names(result) -> list[str]:
    return [c["name"] for c in json.loads(result.stdout)]


def test_everything_ready_passes_and_probes_the_model_once(run_cli, toy_registered):
    result = run_cli(*BASE)
    assert result.exit_code == 0, result.output
    checks = {c["name"]: c for c in json.loads(result.stdout)}
    assert list(checks) == [
        "config", "env data", "gate", "target backend", "target text call", "target structured call",
        "optimizer backend", "optimizer text call", "optimizer structured call", "estimate",
    ]
    assert all(c["ok"] for c in checks.values())
    assert checks["env data"]["facts"]["items"]["val"] > 0
    assert checks["target structured call"]["facts"]["parsed"] == {"ok": False, "word": ""}  # the smallest valid reply
    assert "same as target" in checks["optimizer text call"]["detail"]
    estimate = checks["estimate"]["facts"]
    assert estimate["steps"] >= 1 and estimate["target_calls"]["rollout"] > 0
    assert estimate["prompt_cost_usd"] == {"target": 0.0, "optimizer": 0.0}  # the scripted stand-in is free
    assert "≈ $0.00 for prompts" in checks["estimate"]["detail"]


def test_no_call_checks_without_calling(run_cli, toy_registered):
    result = run_cli(*BASE, "--no-call")
    assert result.exit_code == 0
    assert names(result) == ["config", "env data", "gate", "target backend", "optimizer backend", "estimate"]


def test_a_val_set_too_small_for_the_gate_to_ever_accept_fails_the_check_and_names_the_fix(run_cli, toy_registered):
    """A backend plugin's end-to-end test with a scripted optimizer that clearly fixes a tiny
    val set ended in a rejection and nothing said why: the paired gate cannot reach its
    confidence on 4 items. The check says so, from the gate's own minimum (5 here)."""
    small = run_cli(*BASE, "--no-call", "--set", "env.n_val=4")
    assert small.exit_code == 1
    gate = {c["name"]: c for c in json.loads(small.stdout)}["gate"]
    assert not gate["ok"] and "cannot accept any candidate on 4 val items" in gate["detail"]
    assert "at least 5" in gate["detail"] and "evaluation.gate=strict" in gate["detail"]
    enough = run_cli(*BASE, "--no-call", "--set", "env.n_val=5")
    checks = {c["name"]: c for c in json.loads(enough.stdout)}
    assert enough.exit_code == 0 and checks["gate"]["facts"] == {"val_items": 5, "min_items_to_accept": 5}
    strict = run_cli(*BASE, "--no-call", "--set", "env.n_val=4", "--set", "evaluation.gate=strict")
    assert strict.exit_code == 0, strict.output  # the fix it names works
    subset = run_cli(*BASE, "--no-call", "--set", "evaluation.sel_env_num=3")  # the items the gate uses, not the split's
    assert subset.exit_code == 1 and "on 3 val items" in subset.stdout


def test_a_config_typo_fails_the_first_check_by_name(run_cli, toy_registered):
    result = run_cli(*BASE, "--set", "train.batch_sise=4")
    assert result.exit_code == 1
    [config] = json.loads(result.stdout)
    assert not config["ok"] and "batch_sise" in config["detail"] and "batch_size" in config["detail"]


def test_a_model_that_breaks_json_schemas_is_caught(run_cli, toy_registered, tmp_path):
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([{"stage": "preflight", "match": "Reply with JSON", "reply": "Sure, here you go: ok!"}]))
    result = run_cli(*BASE, "--set", f"model.options.rules={rules}")
    assert result.exit_code == 1
    checks = {c["name"]: c for c in json.loads(result.stdout)}
    assert checks["target text call"]["ok"]
    assert not checks["target structured call"]["ok"] and "schema" in checks["target structured call"]["detail"]


def test_an_unknown_backend_fails_its_role_check(run_cli, toy_registered):
    result = run_cli("check", "--env", "toy", "--target-backend", "nosuch", "--optimizer-backend", "scripted", "--json")
    assert result.exit_code == 1
    checks = {c["name"]: c for c in json.loads(result.stdout)}
    assert not checks["target backend"]["ok"] and "nosuch" in checks["target backend"]["detail"]
    assert checks["optimizer structured call"]["ok"]


def test_an_empty_split_is_reported(run_cli, toy_registered):
    result = run_cli(*BASE, "--no-call", "--set", "env.n_val=0")
    checks = {c["name"]: c for c in json.loads(result.stdout)}
    assert result.exit_code == 1 and not checks["env data"]["ok"] and "val" in checks["env data"]["detail"]


def test_the_data_source_is_said_once(run_cli, toy_registered):
    """`check` reads the env's data for the data check and the estimate: one line saying
    where the data comes from, not one per use."""
    result = run_cli(*BASE, "--no-call")
    assert result.exit_code == 0, result.output
    said = [line for line in result.stderr.splitlines() if line.startswith("toy data:")]
    assert len(said) == 1, result.stderr
