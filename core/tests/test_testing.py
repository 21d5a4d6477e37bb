"""``skillopt.testing``: the contract checkers catch broken plugins."""

from __future__ import annotations

import pytest
from toy import ToyEnv

from skillopt.backends import BackendSettings
from skillopt.records import Completion, Score
from skillopt.scripted import ScriptedBackend
from skillopt.testing import ContractError, check_backend_contract, check_env_contract


def test_toy_env_passes_the_env_contract():
    env = check_env_contract(ToyEnv)
    assert env.name == "toy"


def test_an_env_whose_splits_overlap_fails():
    class Leaky(ToyEnv):
        def load_split(self, split):
            return super().load_split("train")

    with pytest.raises(ContractError, match="in both"):
        check_env_contract(Leaky)


def test_an_env_that_lets_an_empty_prediction_pass_fails():
    class Lenient(ToyEnv):
        def score(self, task, prediction):
            return Score(hard=1.0, soft=1.0)

    with pytest.raises(ContractError, match="empty prediction"):
        check_env_contract(Lenient)


def test_scripted_backend_passes_the_backend_contract():
    check_backend_contract(ScriptedBackend())


def test_a_backend_leaking_its_key_in_identity_fails():
    class Leaky(ScriptedBackend):
        def identity(self):
            return {"backend": "leaky", "key": self.settings.api_key}

    with pytest.raises(ContractError, match="API key"):
        check_backend_contract(Leaky(BackendSettings(name="leaky", api_key="sk-secret-value-123456")))


def test_a_backend_returning_the_wrong_type_fails():
    class Wrong(ScriptedBackend):
        def complete(self, request):
            return {"text": "hi"}

    with pytest.raises(ContractError, match="Completion"):
        check_backend_contract(Wrong())


def test_rules_file_scripts_replies_by_stage_and_regex(tmp_path):
    import json

    from skillopt.records import CompletionRequest, Message

    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([{"stage": "rollout", "match": "capital", "reply": "Paris"}]))
    backend = ScriptedBackend(BackendSettings(name="scripted", options={"rules": str(rules)}))
    hit = backend.complete(CompletionRequest(messages=(Message(role="user", content="the capital?"),)))
    miss = backend.complete(CompletionRequest(messages=(Message(role="user", content="x"),), stage="analyst",
                                              json_schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}))
    assert isinstance(hit, Completion) and hit.text == "Paris" and json.loads(miss.text) == {"n": 0}


def test_run_skillopt_runs_the_cli_in_a_subprocess_and_checks_run_files(tmp_path):
    import json

    from skillopt.testing import finished_run, run_skillopt

    run = run_skillopt("config", "show", "--env", "nosuchenv", home=tmp_path / "home", timeout=60)
    assert run.returncode != 0 and "nosuchenv" in run.tail
    listed = run_skillopt("backends", "--json", home=tmp_path / "home", timeout=60)
    assert listed.returncode == 0 and any(r["name"] == "scripted" for r in json.loads(listed.stdout))
    try:
        finished_run(tmp_path / "no-run", listed)
    except AssertionError as exc:
        assert "best_skill.md missing" in str(exc)
    else:
        raise AssertionError("finished_run accepted a directory without run files")
