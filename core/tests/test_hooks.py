"""Every hook is documented (with its exact signature) and has a test named after it.

Each ``test_hook_<name>`` below exercises its hook through the real plugin host.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from skillopt import hookimpl, hookspecs
from skillopt.plugins import get_host, reset_host
from skillopt.registry import get_registry

DOCS = Path(__file__).resolve().parents[2] / "docs" / "plugin-hooks.md"
HOOKS = [name for name, fn in inspect.getmembers(hookspecs, inspect.isfunction) if name.startswith("skillopt_")]


def test_there_are_hooks():
    assert len(HOOKS) >= 9


@pytest.mark.parametrize("name", HOOKS)
def test_hook_is_documented_with_its_exact_signature(name):
    params = ", ".join(inspect.signature(getattr(hookspecs, name)).parameters)
    assert re.search(rf"^## {name}\({re.escape(params)}\)$", DOCS.read_text(), re.MULTILINE), f"document `## {name}({params})`"


@pytest.mark.parametrize("name", HOOKS)
def test_hook_has_a_docstring(name):
    assert (getattr(hookspecs, name).__doc__ or "").strip()


@pytest.mark.parametrize("name", HOOKS)
def test_hook_has_a_test(name):
    assert f"test_hook_{name}" in globals(), f"write test_hook_{name}"


def _register(plugin, name="test-plugin"):
    get_host().register(plugin, name=name)


def test_hook_skillopt_register_envs():
    from toy import ToyEnv

    class P:
        @hookimpl
        def skillopt_register_envs(self, register):
            register(ToyEnv, name="toy-hook", summary="toy via hook")

    _register(P())
    comp = get_registry().get("envs", "toy-hook")
    assert comp.obj is ToyEnv and comp.summary == "toy via hook"


def test_hook_skillopt_register_backends():
    from skillopt.scripted import ScriptedBackend

    class Echo(ScriptedBackend):
        name = "echo-hook"

    class P:
        @hookimpl
        def skillopt_register_backends(self, register):
            register(Echo)

    _register(P())
    assert get_registry().get("backends", "echo-hook").obj is Echo


def test_hook_skillopt_register_edit_policies():
    from skillopt.policies.patch import PatchPolicy

    class AppendOnly(PatchPolicy):
        name = "append-only-hook"

    class P:
        @hookimpl
        def skillopt_register_edit_policies(self, register):
            register(AppendOnly)

    _register(P())
    assert get_registry().get("edit_policies", "append-only-hook").obj is AppendOnly


def test_hook_skillopt_register_gates():
    from skillopt.gates.strict import StrictGate

    class Always(StrictGate):
        name = "always-hook"

    class P:
        @hookimpl
        def skillopt_register_gates(self, register):
            register(Always)

    _register(P())
    assert get_registry().get("gates", "always-hook").obj is Always


def test_hook_skillopt_register_harvesters():
    from skillopt.harvesters import Harvester

    class Nothing(Harvester):
        name = "nothing-hook"

        def default_roots(self):
            return []

        def sessions(self, roots, since=None):
            yield from ()

    class P:
        @hookimpl
        def skillopt_register_harvesters(self, register):
            register(Nothing)

    _register(P())
    assert get_registry().get("harvesters", "nothing-hook").obj is Nothing


def test_hook_skillopt_register_commands():
    import typer
    from typer.testing import CliRunner

    from skillopt.cli import make_app

    hello = typer.Typer()

    @hello.command("world")
    def world():
        typer.echo("hello from a plugin")

    class P:
        @hookimpl
        def skillopt_register_commands(self, app):
            app.add_typer(hello, name="hello-hook")

    _register(P())
    result = CliRunner().invoke(make_app(), ["hello-hook", "world"])
    assert result.exit_code == 0 and "hello from a plugin" in result.output
    # the command lives in that invocation's app only: it never leaks into the next one
    reset_host()
    assert "hello-hook" not in typer.main.get_command(make_app()).commands


def test_a_command_plugin_whose_hook_raises_is_reported_and_the_cli_keeps_working(capsys):
    from typer.testing import CliRunner

    from skillopt.cli import make_app

    class Broken:
        @hookimpl
        def skillopt_register_commands(self, app):
            app.command("half-added")(lambda: None)
            raise RuntimeError("plugin bug")

    _register(Broken(), "broken-commands")
    app = make_app()
    assert "plugin 'broken-commands' failed to add its commands and was skipped: RuntimeError: plugin bug" in " ".join(
        capsys.readouterr().err.split())
    assert CliRunner().invoke(app, ["envs"]).exit_code == 0
    assert "half-added" not in typer_commands(app)  # what it added before failing is gone too


def typer_commands(app) -> set[str]:
    import typer

    return set(typer.main.get_command(app).commands)


class Recorder:
    def __init__(self):
        self.events = []

    @hookimpl
    def skillopt_run_started(self, run):
        self.events.append(("started", run.env))

    @hookimpl
    def skillopt_step_finished(self, run, step):
        self.events.append(("step", step.step, step.action))

    @hookimpl
    def skillopt_run_finished(self, run, summary):
        self.events.append(("finished", summary.status, type(summary).__name__))


@pytest.fixture
def observed_run(tmp_path):
    from engine_helpers import make_trainer

    recorder = Recorder()
    _register(recorder, "recorder")
    from skillopt.engine.observers import Observers

    trainer = make_trainer(tmp_path, observers=Observers(get_host()), num_epochs=1)
    trainer.train()
    return recorder.events


def test_hook_skillopt_run_started(observed_run):
    assert observed_run[0] == ("started", "toy")


def test_hook_skillopt_step_finished(observed_run):
    steps = [e for e in observed_run if e[0] == "step"]
    assert [s[1] for s in steps] == [1, 2] and steps[0][2] in ("accept", "accept_new_best")


def test_hook_skillopt_run_finished(observed_run):
    assert observed_run[-1] == ("finished", "finished", "RunSummary")  # observers get the typed record


def test_an_observer_written_for_the_dict_summary_still_reads_it_and_is_told_what_to_read(tmp_path):
    """The first release's docs showed ``print(summary["status"], summary["best_skill"])``:
    such an observer failed with "'RunSummary' object has no attribute 'get'". The record
    keeps the dict's reads (nested ones too), each with a DeprecationWarning naming the
    attribute to read instead."""
    import warnings

    from engine_helpers import make_trainer

    from skillopt.engine.observers import Observers

    seen = {}

    class OldObserver:
        @hookimpl
        def skillopt_run_finished(self, run, summary):
            seen["line"] = (summary["status"], summary["best_skill"])  # the first release's documented example
            seen["best"] = summary.get("val")["best_gate_score"]
            seen["test"] = summary["test"]["best"]["hard"]
            seen["calls"] = summary["usage"]["calls"]
            seen["gate"] = summary.get("gate", {}).get("name")
            seen["keys"] = "status" in summary and "nope" not in summary and summary.get("nope", "default")
            seen["as_dict"] = dict(summary.items())["env"]

    _register(OldObserver(), "old-observer")
    failures = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = make_trainer(tmp_path, observers=Observers(get_host(), warn=failures.append), num_epochs=1).train()
    assert failures == []  # the observer did not fail
    assert seen == {"line": ("finished", summary.best_skill), "best": summary.val.best_gate_score,
                    "test": summary.test["best"].hard, "calls": summary.usage.calls, "gate": summary.gate.name,
                    "keys": "default", "as_dict": "toy"}
    told = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert any(m.startswith("RunSummary['status'] reads a record as the dict it replaced; read .status instead") for m in told)
    assert any(m.startswith("ValSummary['best_gate_score']") and "read .best_gate_score" in m for m in told)
    assert any(m.startswith("SplitScore['hard']") for m in told) and any(m.startswith("LedgerTotals['calls']") for m in told)
    assert all(w.filename == __file__ for w in caught if issubclass(w.category, DeprecationWarning))  # points at the plugin's line


def test_every_record_with_the_old_mapping_reads_is_named_in_the_changes_for_plugins():
    from skillopt.calls.ledger import LedgerTotals, StageTotals
    from skillopt.legacy import MappingReads
    from skillopt.results import GateInfo, RunSummary, SplitScore, ValSummary

    changes = DOCS.read_text().split("## Changes for plugins", 1)[1]
    for record in (RunSummary, ValSummary, GateInfo, SplitScore, LedgerTotals, StageTotals):
        assert issubclass(record, MappingReads) and f"`{record.__name__}`" in changes, record.__name__


def test_a_failing_observer_does_not_stop_training(tmp_path):
    from engine_helpers import make_trainer

    from skillopt.engine.observers import Observers

    class Broken:
        @hookimpl
        def skillopt_step_finished(self, run, step):
            raise RuntimeError("observer bug")

    _register(Broken(), "broken-observer")
    warnings = []
    summary = make_trainer(tmp_path, observers=Observers(get_host(), warn=warnings.append), num_epochs=1).train()
    assert summary.status == "finished"
    assert any("observer bug" in w for w in warnings)


def test_hook_skillopt_register_executors(tmp_path):
    """A registered executor is what the engine submits every rollout to, and a run through
    it ends exactly as a run on the built-in threads."""
    from engine_helpers import make_trainer

    from skillopt.api import Executor
    from skillopt.executors.threads import ThreadExecutor

    submitted = []

    class Counting(Executor):
        """Threads, counting what it is given."""

        name = "counting-hook"

        def submit(self, item, model, done):
            submitted.append(item.key)
            ThreadExecutor.submit(self, item, model, done)

    class P:
        @hookimpl
        def skillopt_register_executors(self, register):
            register(Counting)

    _register(P())
    reference = make_trainer(tmp_path / "threads", num_epochs=1).train()
    trainer = make_trainer(tmp_path / "plugin", num_epochs=1, engine={"executor": "counting-hook"})
    assert type(trainer.runner.executor) is Counting
    summary = trainer.train()
    assert len(submitted) > 16 and "val-000#r0" in submitted  # baseline, rollouts, gate and test went through it
    assert (summary.status, summary.val.best_gate_score, summary.test) == (
        reference.status, reference.val.best_gate_score, reference.test)


def test_hook_skillopt_register_strategies(tmp_path):
    """A registered strategy chooses every step's parent: one that always branches from
    the initial skill never builds on an accepted child."""
    from engine_helpers import make_trainer

    from skillopt.strategies.pareto import ParetoPool

    parents = []

    class FromTheRoot(ParetoPool):
        """Always branch from the first member (the initial skill)."""

        name = "from-the-root"

        def parent(self, pool, lead, seed):
            parents.append(pool[0].origin)
            return pool[0]

        def admit(self, pool, child):
            return (*pool, child)

    class P:
        @hookimpl
        def skillopt_register_strategies(self, register):
            register(FromTheRoot)

    _register(P())
    trainer = make_trainer(tmp_path, num_epochs=1, search={"strategy": "from-the-root"})
    assert type(trainer.strategy) is FromTheRoot
    trainer.train()
    assert parents and set(parents) == {"initial_skill"}
