"""The remote-worker path of the engine, without a cluster.

``LoopbackExecutor`` stands in for a remote executor such as ``ray``: each item runs on a
:class:`WorkerRuntime` (one of two "workers") that built its own env and target backend
from the run's :class:`WorkerSpec`, and every call between worker and driver crosses a
link that pickles its arguments and results both ways, as a real transport does. The
target on the workers is the ``scripted`` backend reading a rules file that encodes the
toy target (core/tests/toy.py), so a run on the workers must end exactly as the
reference run on threads, with the same ledger.
"""

from __future__ import annotations

import itertools
import json
import pickle
import threading
from collections import Counter
from typing import ClassVar

import pytest
from engine_helpers import make_config, make_trainer
from toy import ToyEnv, solve

from skillopt.api import Executor, hookimpl
from skillopt.config.loading import config_data
from skillopt.errors import BudgetExceeded, Cancelled, ConfigError, EnvUnavailable
from skillopt.executors.remote import CallHost, WorkerRuntime, WorkerSpec, _without_secrets
from skillopt.plugins import get_host


class PickledLink:
    """A worker's link to the driver's CallHost that copies everything through pickle."""

    def __init__(self, host: CallHost):
        self.host = host

    def call(self, op, ticket, *args):
        try:
            result = self.host.handle(op, ticket, *pickle.loads(pickle.dumps(args)))
        except Exception as exc:  # noqa: BLE001 - travels back like a transport's error
            raise pickle.loads(pickle.dumps(exc)) from None
        return pickle.loads(pickle.dumps(result))

    def post(self, op, ticket, *args):
        self.call(op, ticket, *args)


class LoopbackExecutor(Executor):
    """Two in-process 'workers' reached only through pickled links (see the module doc)."""

    name = "loopback"
    spec: WorkerSpec | None = None
    seen_workers: ClassVar[set[str]] = set()

    def start(self, job):
        super().start(job)
        self.host = CallHost(job.config)
        self.workers = [WorkerRuntime(self.spec, PickledLink(self.host), where=f"worker {i}") for i in range(2)]
        self.turn = itertools.cycle(range(2))

    def submit(self, item, model, done):
        self.host.route(item.ticket, model)
        index = next(self.turn)
        shipped = pickle.loads(pickle.dumps(item))

        def work():
            outcome = self.workers[index].run(shipped)
            self.host.forget(item.ticket)
            LoopbackExecutor.seen_workers.add(index)
            done(pickle.loads(pickle.dumps(outcome)))

        threading.Thread(target=work, daemon=True).start()

    def close(self):
        self.host.close()


@pytest.fixture
def loopback(toy_registered, tmp_path):
    """The loopback executor and the toy env registered in-process; the rules file of
    the scripted target on the workers."""

    class Plugin:
        @hookimpl
        def skillopt_register_executors(self, register):
            register(LoopbackExecutor)

    get_host().register(Plugin(), name="loopback-plugin")
    rules = [{"stage": "rollout", "match": "RULE-BAD", "reply": "no idea"}]
    env = ToyEnv(ToyEnv.Config())
    for task in env.tasks("train") + env.tasks("val") + env.tasks("test"):
        kind, word = task.inputs["kind"], task.inputs["word"]
        rules.append({"stage": "rollout", "match": rf"RULE-{kind}(?s:.*)\[user\] Puzzle kind: {kind}\nWord: {word}$",
                      "reply": solve(kind, word)})
    rules.append({"stage": "rollout", "match": "", "reply": "no idea"})
    path = tmp_path / "toy_rules.json"
    path.write_text(json.dumps(rules))
    LoopbackExecutor.seen_workers = set()
    return {"model": {"target": {"backend": "scripted", "options": {"rules": str(path)}}}, "engine": {"executor": "loopback"}}


def remote_trainer(out, sections, **more):
    """A toy trainer whose rollouts run on the loopback workers (their spec set first)."""
    from skillopt.config.schema import RoleConfig

    kw = {**more, "model": {"target": RoleConfig(**sections["model"]["target"])}, "engine": sections["engine"]}
    LoopbackExecutor.spec = spec_of(make_config(**{k: v for k, v in kw.items() if k != "ledger"}))
    return make_trainer(out, **kw)


def spec_of(cfg) -> WorkerSpec:
    """The spec a remote executor ships (the toy env is in-process here, so built directly)."""
    return WorkerSpec(env="toy", config=_without_secrets(config_data(cfg)), backends={"target": "scripted"},
                      versions={})


def outcome(out):
    history = [h for h in json.loads((out / "history.json").read_text()) if h.get("kind", "step") == "step"]
    summary = json.loads((out / "summary.json").read_text())
    return ([(h["step"], h["action"], h["candidate_hash"], h["selection_hard"]) for h in history],
            (out / "best_skill.md").read_text(), summary["val"], summary["test"])


def usage_lines(out):
    return Counter(line for line in (out / "usage.jsonl").read_text().splitlines())


def test_a_run_on_remote_workers_ends_and_books_exactly_as_on_threads(tmp_path, loopback):
    reference = make_trainer(tmp_path / "threads", num_epochs=2)
    assert reference.train().status == "finished"
    trainer = remote_trainer(tmp_path / "remote", loopback, train={"num_epochs": 2, "batch_size": 8})
    summary = trainer.train()
    assert summary.status == "finished" and summary.total_accepts >= 1
    assert outcome(tmp_path / "remote") == outcome(tmp_path / "threads")
    assert trainer.target.backend.requests == []  # no rollout ran on the driver
    assert LoopbackExecutor.seen_workers == {0, 1}
    assert trainer.ledger.totals() == reference.ledger.totals()
    assert usage_lines(tmp_path / "remote") == usage_lines(tmp_path / "threads")  # the driver wrote every worker call


def test_the_call_budget_holds_across_workers(tmp_path, loopback):
    from skillopt.calls import Ledger

    trainer = remote_trainer(tmp_path / "remote", loopback, ledger=Ledger(max_calls=30))
    summary = trainer.train()
    totals = trainer.ledger.totals()
    sent = sum(len(worker._backend("target")[0].requests) for worker in trainer.runner.executor.workers)
    assert summary.status == "budget_exhausted"
    assert totals.requests == 30 and sent + len(trainer.optimizer.backend.requests) == 30


def test_the_driver_serves_reservations_under_the_run_wide_in_flight_limit(scripted_client):
    from skillopt.calls import Ledger
    from skillopt.calls.pipeline import shared_limiter
    from skillopt.records import Usage

    host = CallHost(make_config(model={"max_in_flight": 2}))
    ledger = Ledger(max_calls=3)
    client = scripted_client(ledger=ledger)
    for ticket in (1, 2, 3):
        host.route(ticket, client.for_stage("gate"))
    host.handle("reserve", 1, "target", "gate")
    host.handle("reserve", 2, "target", "gate")
    third = threading.Thread(target=host.handle, args=("reserve", 3, "target", "gate"))
    third.start()
    third.join(0.5)
    assert third.is_alive()  # two in flight: the third waits, whichever worker asks
    host.forget(1)  # a lost worker's slot is freed with its item
    third.join(2)
    assert not third.is_alive()
    host.handle("record", 2, "target", "gate", Usage(prompt_tokens=3, completion_tokens=4), 0.5, False, False)
    totals = ledger.totals().by_stage["target/gate"]
    assert (totals.requests, totals.calls, totals.prompt_tokens, totals.cost_usd) == (3, 1, 3, 0.5)
    host.handle("release", 2)
    with pytest.raises(BudgetExceeded):  # the budget is the driver's: no fourth request
        host.handle("reserve", 2, "target", "gate")
    host.handle("release", 3)
    slots = shared_limiter(client.endpoint_key, 2)
    assert slots.acquire(blocking=False) and slots.acquire(blocking=False)  # nothing leaked
    slots.release()
    slots.release()
    host.close()
    with pytest.raises(Cancelled):
        host.handle("cache_get", 3, "key")


def on_workers(env_cls, loopback, client, n, skill, out):
    """The first ``n`` val items rolled out on the loopback workers, whose env is ``env_cls``."""
    from skillopt.config.schema import RoleConfig
    from skillopt.engine.rollouts import RolloutRunner

    cfg = make_config(model={"target": RoleConfig(**loopback["model"]["target"])}, engine=loopback["engine"])
    LoopbackExecutor.spec = spec_of(cfg)
    executor = LoopbackExecutor()
    env = ToyEnv(cfg.env)
    runner = RolloutRunner(env, client, workers=2, timeout_s=5, executor=executor, config=cfg)
    for worker in executor.workers:
        worker.env = env_cls(cfg.env)
    try:
        return runner.run(env.tasks("val")[:n], skill, out, training=False, seed=1)
    finally:
        executor.close()


def test_files_an_env_writes_on_a_worker_reach_the_run_directory(tmp_path, loopback, scripted_client):
    class FileEnv(ToyEnv):
        def rollout(self, task, skill, model, ctx):
            (ctx.workdir / "notes").mkdir(parents=True)
            (ctx.workdir / "notes" / "code.py").write_text(f"# {task.id}\n")
            return super().rollout(task, skill, model, ctx)

    got = on_workers(FileEnv, loopback, scripted_client(), 3, "- RULE-upper", tmp_path / "out")
    assert [r.status for r in got] == ["ok"] * 3
    written = sorted(p.relative_to(tmp_path / "out").as_posix() for p in tmp_path.rglob("code.py"))
    assert written == [f"predictions/val-00{i}/notes/code.py" for i in range(3)]  # the worker's temp folders are gone
    assert (tmp_path / "out" / "predictions" / "val-001" / "notes" / "code.py").read_text() == "# val-001\n"


def test_a_file_path_leaving_the_item_folder_fails_the_item_and_writes_nothing(tmp_path):
    from skillopt.engine.rollouts import _inside

    for bad in ("../escape.txt", "/etc/passwd", "a/../../b"):
        with pytest.raises(ValueError, match="outside its item folder"):
            _inside(bad)
    assert _inside("notes/code.py") == ("notes", "code.py")


def test_the_spec_carries_no_key_and_refuses_what_a_worker_cannot_rebuild(monkeypatch, toy_registered, tmp_path):
    """An env installed as a distribution (a real dist-info on sys.path, see fakedists)
    goes into the spec with its version; one registered in this process only is refused."""
    import attrs
    from fakedists import env_module, forget_modules, make_dist

    from skillopt.config.schema import RoleConfig

    site = tmp_path / "site"
    make_dist(site, "skillopt-envs-installed", {"skillopt.envs": {"installed": "fakeplug_installed"}},
              {"fakeplug_installed": env_module("installed")}, version="1.2.3")
    monkeypatch.syspath_prepend(str(site))
    cfg = make_config(model={"backend": "scripted", "api_key_env": "TOY_KEY",
                             "options": {"rules": "", "access_token": "tok-123456789"}})
    cfg = attrs.evolve(cfg, env=attrs.evolve(cfg.env, name="installed"))
    try:
        spec = WorkerSpec.for_run(cfg)
    finally:
        forget_modules("fakeplug_")
    text = json.dumps(spec.config)
    assert "tok-123456789" not in text and '"api_key_env": "TOY_KEY"' in text
    assert spec.backends == {"target": "scripted"}
    assert spec.versions["skillopt-envs-installed"] == "1.2.3" and set(spec.versions) == {"skillopt-core", "skillopt-envs-installed"}
    keyed = attrs.evolve(cfg, model=attrs.evolve(cfg.model, target=RoleConfig(api_key="sk-literal-0123456789")))
    with pytest.raises(ConfigError, match=r"model.target.api_key holds a key.*never sent to workers"):
        WorkerSpec.for_run(keyed)
    in_process = attrs.evolve(cfg, env=attrs.evolve(cfg.env, name="toy"))
    with pytest.raises(ConfigError, match="registered in this process only"):
        WorkerSpec.for_run(in_process)


def test_the_spec_carries_no_key_from_a_url_or_a_header(monkeypatch, toy_registered, capsys):
    """A key given in a URL's userinfo or in a header of a backend's options never reaches
    a worker; everything else of those values does (the host, the path, other headers)."""
    import attrs

    from skillopt.config.schema import RoleConfig

    secrets = ("pa55-w0rd-for-llm", "tok3n4userinfo0123456789abcdef", "Basic YWxpY2U6cGE1NS13MHJk", "0a1b2c3d4e5f60718293",
               "sk-proj-Q9x7LmN2pR4tV6wY8zA1bC3dE5", "cookie-value-42", "zq8Lx2Vt9Nw4Pk7Hs3Jd6Fg1Mb5Cy0Rt")
    cfg = make_config(model={
        "backend": "scripted", "base_url": f"https://alice:{secrets[0]}@llm.internal:8443/v1",
        "options": {"rules": "", "default_headers": {"Authorization": secrets[2], "X-Team": "search",
                                                     "Ocp-Apim-Subscription-Key": secrets[3], "Cookie": secrets[5]},
                    "extra_headers": {"X-Trace": f"Bearer {secrets[4]}"}, "proxy": f"http://{secrets[1]}@proxy:3128"}})
    cfg = attrs.evolve(cfg, env=attrs.evolve(cfg.env, name="searchqa"),
                       model=attrs.evolve(cfg.model, target=RoleConfig(base_url=f"https://llm.internal/v1?api-key={secrets[6]}")))
    spec = WorkerSpec.for_run(cfg)
    text = json.dumps(spec.config)
    assert not [s for s in secrets if s in text], text
    model = spec.config["model"]
    assert model["base_url"] == "https://llm.internal:8443/v1"
    assert model["options"]["proxy"] == "http://proxy:3128"
    assert model["options"]["default_headers"] == {"Authorization": "", "X-Team": "search", "Ocp-Apim-Subscription-Key": "",
                                                   "Cookie": ""}
    assert model["target"]["base_url"].startswith("https://llm.internal/v1?api-key=")
    said = " ".join(capsys.readouterr().err.split())
    assert "model.base_url" in said and "model.options.default_headers.Authorization" in said and "not sent to workers" in said


def test_a_worker_that_cannot_build_the_run_names_itself(tmp_path, loopback):
    cfg = make_config(model={"backend": "scripted"})
    spec = spec_of(cfg)
    with pytest.raises(EnvUnavailable, match=r"^worker on h1: unknown env 'nope'"):
        WorkerRuntime(WorkerSpec(env="nope", config=spec.config, backends=spec.backends, versions={}), None, where="worker on h1")
    with pytest.raises(EnvUnavailable, match=r"worker on h2 has skillopt-core .*, the driver 0\.0\.1: install the same"):
        WorkerRuntime(WorkerSpec(env="toy", config=spec.config, backends=spec.backends, versions={"skillopt-core": "0.0.1"}),
                      None, where="worker on h2")


def test_an_env_bug_on_a_worker_fails_the_item_with_the_workers_traceback(tmp_path, loopback, scripted_client):
    class Unpicklable(Exception):
        def __init__(self, what, extra):
            super().__init__(what)
            self.lock = threading.Lock()  # cannot cross to the driver as it is

    class BuggyEnv(ToyEnv):
        def rollout(self, task, skill, model, ctx):
            raise Unpicklable("parser exploded", 1)

    got = on_workers(BuggyEnv, loopback, scripted_client(), 2, "", tmp_path / "out")
    assert [r.status for r in got] == ["failed", "failed"]  # an env bug is the item's failure, not missing data
    assert "Unpicklable: parser exploded" in got[0].error
    assert "in rollout" in got[0].error and 'raise Unpicklable("parser exploded", 1)' in got[0].error  # where, on the worker
