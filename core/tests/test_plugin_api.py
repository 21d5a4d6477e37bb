"""What a plugin author found missing: config for every plugin kind, capabilities declared
on the base classes, presets, observers on resume and eval, and the public helpers.

The toy env and the scripted backend stand in for a benchmark and a model (toy.py)."""

from __future__ import annotations

import json
from typing import ClassVar

import attrs
import pytest

from skillopt.api import Backend, Completion, ConfigError, Gate, RateLimitError, Usage, Verdict, hookimpl
from skillopt.plugins import get_host


def register(plugin, name):
    get_host().register(plugin, name=name)


# --------------------------------------------------------------------------- presets


def test_a_flat_key_preset_works_and_a_typo_in_it_names_the_right_section():
    from toy import ToyEnv

    from skillopt.config.presets import resolve_preset

    class Flat(ToyEnv):
        presets: ClassVar[dict] = {"small": {"train.num_epochs": 1, "env.n_val": 3}, "bad": {"train.num_epoch": 1}}

    name, data = resolve_preset(Flat, "small", explicit=True, env_name="flat")
    assert name == "small" and data == {"train": {"num_epochs": 1}, "env": {"n_val": 3}}
    with pytest.raises(ConfigError) as err:
        resolve_preset(Flat, "bad", explicit=True, env_name="flat")
    message = str(err.value)
    assert "preset 'bad' of env 'flat'" in message and "'train.num_epoch'" in message
    assert "Did you mean 'train.num_epochs'" in message and "Valid keys in 'train'" in message
    assert "budget" not in message  # the keys of train, not the top-level sections


def test_small_preset_is_the_shared_overlay_plus_the_envs_sizes():
    from skillopt.api import SMALL_LOCAL, small_preset

    preset = small_preset(train={"batch_size": 8}, **{"env.max_completion_tokens": 64})
    assert preset["train"] == {"num_epochs": 1, "batch_size": 8}
    assert preset["env"] == {"workers": 1, "max_completion_tokens": 64}
    assert preset["gradient"] == SMALL_LOCAL["gradient"]


class TinyLocal(Backend):
    """Stands in for a model on this machine's CPU (declares the capability)."""

    name = "tiny-local"
    small_model = True
    max_concurrency = 1

    def complete(self, request):
        return Completion(text="x", usage=Usage(prompt_tokens=1), model="tiny")


class RemoteLike(TinyLocal):
    """Stands in for a hosted model (declares no small-model capability)."""

    name = "remote-like"
    small_model = False


def test_the_small_preset_follows_the_backends_declared_capability_not_its_name(run_cli, toy_registered):
    class Plugin:
        @hookimpl
        def skillopt_register_backends(self, register):
            register(TinyLocal)
            register(RemoteLike)

    register(Plugin(), "tiny")
    toy_registered.presets = {"small": {"train": {"batch_size": 3}}, "full": {}}
    try:
        small = json.loads(run_cli("config", "show", "--env", "toy", "--backend", "tiny-local", "--json").stdout)
        full = json.loads(run_cli("config", "show", "--env", "toy", "--backend", "scripted", "--set", "model.target.backend=remote-like",
                                  "--json").stdout)
    finally:
        toy_registered.presets = {}
    assert small["preset"] == "small" and small["train"]["batch_size"] == 3
    assert full["preset"] == "full"


def test_a_backend_declaring_max_concurrency_caps_the_in_flight_limit():
    from skillopt.calls import Ledger
    from skillopt.config.schema import ModelConfig, RunConfig
    from skillopt.engine.models import build_clients

    class Plugin:
        @hookimpl
        def skillopt_register_backends(self, register):
            register(TinyLocal)

    register(Plugin(), "tiny")
    cfg = attrs.evolve(RunConfig(), model=ModelConfig(backend="tiny-local", cache="off", max_in_flight=16))
    clients, _ = build_clients(cfg, ledger=Ledger())
    assert clients["target"].limiter._initial_value == 1


def test_an_edit_policy_declares_that_it_edits_rather_than_being_named_patch(tmp_path):
    from engine_helpers import make_trainer

    from skillopt.api import PatchPolicy, StepAction

    class Renamed(PatchPolicy):
        name = "bounded-edits"

    def no_edits(request):  # an optimizer that proposes nothing applicable
        from skillopt.api import minimal_instance

        return minimal_instance(request.json_schema)

    trainer = make_trainer(tmp_path, optimizer_script=no_edits, num_epochs=1, train={"max_steps": 1})
    trainer.policy = Renamed()
    trainer.train()
    history = json.loads((tmp_path / "history.json").read_text())
    assert history[0]["action"] in (StepAction.SKIP_NO_PATCHES, StepAction.SKIP_NO_CHANGE)
    assert history[0]["action"] != StepAction.SKIP_NO_REWRITE


# --------------------------------------------------------------------------- plugin config


@attrs.frozen(kw_only=True)
class GainConfig:
    #: accept only when the candidate's mean beats the current one by at least this
    min_item_gain: float = 0.0
    #: task types that may never get worse
    guarded_types: tuple[str, ...] = ()


class GainGate(Gate):
    """A gate with its own keys, guarding task types (what the plugin author could not write)."""

    name = "gain"
    Config = GainConfig
    seen: ClassVar[list] = []

    def decide(self, current, candidate):
        type(self).seen.append((self.settings, dict(candidate.task_types)))
        gain = self.score(candidate) - self.score(current)
        ok = gain >= self.settings.min_item_gain
        return Verdict(accepted=ok, action="accept" if ok else "reject", metric="hard", current_score=self.score(current),
                       candidate_score=self.score(candidate), n_items=candidate.n)


@pytest.fixture
def gain_gate():
    class Plugin:
        @hookimpl
        def skillopt_register_gates(self, register):
            register(GainGate)

    register(Plugin(), "gain-plugin")
    GainGate.seen.clear()
    return GainGate


def test_a_gate_declares_keys_under_its_own_section(run_cli, toy_registered, gain_gate):
    shown = run_cli("config", "show", "--env", "toy", "--set", "evaluation.gate=gain", "--set", "gates.gain.min_item_gain=0.25", "--json")
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["gates"] == {"gain": {"min_item_gain": 0.25, "guarded_types": []}}
    typo = run_cli("config", "show", "--env", "toy", "--set", "evaluation.gate=gain", "--set", "gates.gain.min_item_gian=1")
    assert typo.exit_code != 0 and "gates.gain.min_item_gian" in typo.output and "min_item_gain" in typo.output
    keys = json.loads(run_cli("config", "keys", "--json").stdout)
    row = next(r for r in keys if r["key"] == "gates.gain.min_item_gain")
    assert "at least this" in row["help"]


def test_the_run_builds_the_gate_with_its_settings_and_shows_it_the_task_types(toy_registered, gain_gate, tmp_path):
    from engine_helpers import make_trainer

    from skillopt.engine.session import build_gate, resolve_run_config

    cfg, _ = resolve_run_config(config_file=None, flags={"env.name": "toy"},
                                assignments=["evaluation.gate=gain", "gates.gain.min_item_gain=0.5"])
    gate = build_gate(cfg)
    assert isinstance(gate, GainGate) and gate.settings == GainConfig(min_item_gain=0.5)
    trainer = make_trainer(tmp_path, num_epochs=1, train={"max_steps": 1})
    trainer.gate = gate
    trainer.train()
    settings, task_types = GainGate.seen[0]
    assert settings.min_item_gain == 0.5
    from toy import KINDS

    assert task_types and set(task_types.values()) == set(KINDS)  # every val item with its task type


def test_check_refuses_an_unknown_gate_like_run_does(run_cli, toy_registered):
    result = run_cli("check", "--env", "toy", "--backend", "scripted", "--set", "evaluation.gate=nosuch", "--no-call", "--json")
    assert result.exit_code == 1
    [config] = json.loads(result.stdout)
    assert not config["ok"] and "unknown gate 'nosuch'" in config["detail"]


def test_check_survives_one_rate_limited_reply(run_cli, toy_registered):
    class Busy(Backend):
        """Stands in for a provider answering 429 once, then normally."""

        name = "busy"
        calls = 0

        def complete(self, request):
            type(self).calls += 1
            if type(self).calls == 1:
                raise RateLimitError("429 Too Many Requests", retry_after=0.01)
            from skillopt.api import minimal_instance

            text = json.dumps(minimal_instance(request.json_schema)) if request.json_schema else "ok"
            return Completion(text=text, usage=Usage(prompt_tokens=1), model="busy")

    class Plugin:
        @hookimpl
        def skillopt_register_backends(self, register):
            register(Busy)

    register(Plugin(), "busy-plugin")
    result = run_cli("check", "--env", "toy", "--backend", "busy", "--json")
    checks = {c["name"]: c for c in json.loads(result.stdout)}
    assert checks["target text call"]["ok"], checks["target text call"]
    assert result.exit_code == 0 and Busy.calls >= 3


# --------------------------------------------------------------------------- observers


@attrs.frozen(kw_only=True)
class LogConfig:
    #: a label written with every event
    label: str = "default"


class Log:
    """An observer that takes its typed settings (and records what it saw)."""

    def __init__(self):
        self.events = []

    @hookimpl
    def skillopt_run_started(self, run, config):
        self.events.append(("started", run.mode, run.resumed, run.resumed_after_step, config))

    @hookimpl
    def skillopt_step_finished(self, run, step):
        self.events.append(("step", step.step))

    @hookimpl
    def skillopt_run_finished(self, run, summary):
        self.events.append(("finished", run.mode))


def test_a_resumed_run_replays_its_finished_steps_to_observers(tmp_path):
    from engine_helpers import make_trainer

    from skillopt.engine.observers import Observers

    log = Log()
    register(log, "skillopt.observers:log")
    observers = Observers(get_host(), settings={"skillopt.observers:log": LogConfig(label="mine")})
    make_trainer(tmp_path, observers=observers, num_epochs=1, train={"max_steps": 1}).train()
    first = list(log.events)
    log.events.clear()
    make_trainer(tmp_path, observers=observers, num_epochs=1).train()
    assert first[0] == ("started", "train", False, 0, LogConfig(label="mine"))
    assert log.events[0] == ("started", "train", True, 1, LogConfig(label="mine"))
    steps = [e[1] for e in log.events if e[0] == "step"]
    assert steps[0] == 1 and steps == sorted(steps) and len(steps) == 2  # step 1 replayed, step 2 new


def test_eval_fires_the_observer_hooks(run_cli, toy_registered, tmp_path):
    log = Log()
    register(log, "skillopt.observers:log")
    skill = tmp_path / "skill.md"
    skill.write_text("Answer in upper case.\n")
    result = run_cli("eval", "--env", "toy", "--backend", "scripted", "--skill", str(skill), "--split", "val",
                     "--out", str(tmp_path / "e"))
    assert result.exit_code == 0, result.output
    assert [e[0] for e in log.events] == ["started", "finished"] and log.events[0][1] == "eval"


# --------------------------------------------------------------------------- helpers


def test_a_changed_rules_file_is_a_new_cache_identity(tmp_path):
    from skillopt.api import BackendSettings, ScriptedBackend

    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([{"match": ".", "reply": "one"}]))
    before = ScriptedBackend(BackendSettings(name="scripted", options={"rules": str(rules)})).identity()
    rules.write_text(json.dumps([{"match": ".", "reply": "two"}]))
    after = ScriptedBackend(BackendSettings(name="scripted", options={"rules": str(rules)})).identity()
    assert before != after
    rules.write_text("[{not json")
    with pytest.raises(ConfigError, match="model.options.rules"):
        ScriptedBackend(BackendSettings(name="scripted", options={"rules": str(rules)}))


def test_find_run_resolves_a_name_like_runs_show(tmp_path):
    from skillopt.api import find_run

    run = tmp_path / "runs" / "toy-20260101"
    run.mkdir(parents=True)
    (run / "summary.json").write_text("{}")
    assert find_run("toy-20260101", [tmp_path / "runs"]) == run
    assert find_run(str(run)) == run
    with pytest.raises(ConfigError, match="no run named 'nope'"):
        find_run("nope", [tmp_path / "runs"])
    with pytest.raises(ConfigError):
        find_run("../runs/toy-20260101", [tmp_path / "runs" / "x"])


def test_say_goes_to_the_installed_reporter_never_stdout(capsys):
    from skillopt.api import say, set_reporter, warn

    heard = []
    old = set_reporter(lambda message, level: heard.append((level, message)))
    try:
        say("hello")
        warn("careful")
    finally:
        set_reporter(old)
    assert heard == [("info", "hello"), ("warning", "careful")]
    say("to stderr")
    captured = capsys.readouterr()
    assert captured.out == "" and "to stderr" in captured.err


def test_the_testing_fixtures_are_documented():
    import skillopt.testing as testing

    for name in ("skillopt_home", "scripted_client", "run_cli"):
        fixture = getattr(testing, name)
        doc = getattr(fixture, "__doc__", None) or getattr(getattr(fixture, "__wrapped__", None), "__doc__", "")
        assert doc and len(doc.split()) > 10, name


# --------------------------------------------------------------------------- one connection record


def test_one_connection_record_and_one_merge_rule():
    from skillopt.api import BackendSettings, ModelConfig, RoleConfig
    from skillopt.config.schema import Connection, RunConfig
    from skillopt.engine.models import role_settings
    from skillopt.scripted import ScriptedBackend

    shared = {f.name for f in attrs.fields(Connection)}
    for cls in (RoleConfig, ModelConfig, BackendSettings):
        assert issubclass(cls, Connection) and shared <= {f.name for f in attrs.fields(cls)}
    model = ModelConfig(model="m", base_url="http://shared", api_version="v1", temperature=0.2, options={"a": 1, "b": 1},
                        target=RoleConfig(base_url="http://target", temperature=0.0, options={"b": 2}))
    target = role_settings(RunConfig(model=model), "target", "scripted", ScriptedBackend)
    optimizer = role_settings(RunConfig(model=model), "optimizer", "scripted", ScriptedBackend)
    assert (target.base_url, target.temperature, target.options) == ("http://target", 0.0, {"a": 1, "b": 2})
    assert (optimizer.base_url, optimizer.temperature, optimizer.options) == ("http://shared", 0.2, {"a": 1, "b": 1})
    assert target.model == optimizer.model == "m" and target.api_version == "v1"
    assert optimizer.reasoning_effort == "medium" and target.reasoning_effort == ""  # the documented exception
