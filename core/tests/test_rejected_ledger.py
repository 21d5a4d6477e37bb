"""The cross-run rejected-edit ledger (toy env and scripted models, see toy.py: the
``harmful`` optimizer proposes ``RULE-BAD``, which fails every item, so the gate rejects)."""

from __future__ import annotations

import json

from engine_helpers import make_trainer
from toy import toy_optimizer

from skillopt import paths
from skillopt.engine.rejected import read_ledger

HARMFUL = {"optimizer": {"learning_rate": 1, "min_learning_rate": 1}, "train": {"max_steps": 1}}


def harmful_run(out, **sections):
    trainer = make_trainer(out, optimizer_script=toy_optimizer(harmful=True), num_epochs=1, **{**HARMFUL, **sections})
    trainer.env.initial_skill = lambda: "- RULE-upper\n- RULE-reverse\n- RULE-double"
    return trainer


def ledgers():
    return sorted((paths.data_dir() / "rejected").glob("*.jsonl"))


def test_a_rejection_is_remembered_shown_to_later_runs_and_not_scored_again(tmp_path):
    first = harmful_run(tmp_path / "a")
    assert first.train().total_rejects == 1
    [ledger] = ledgers()
    [entry] = read_ledger(ledger)
    assert entry.run == "a" and entry.step == 1 and entry.effect < 0 and "RULE-BAD" in entry.edits[0].content

    second = harmful_run(tmp_path / "b")
    summary = second.train()
    prompts = ["\n".join(m.content for m in r.messages) for r in second.optimizer.backend.requests if r.stage == "analyst"]
    assert any("## Edits rejected in earlier runs" in p and "RULE-BAD" in p and "(run a, step 1)" in p for p in prompts)
    step = json.loads((tmp_path / "b" / "history.json").read_text())[0]
    assert summary.total_rejects == 1 and step["verdict"]["reason"].startswith("refused: rejected before (run a, step 1")
    assert not (tmp_path / "b" / "steps" / "step_0001" / "gate" / "results.jsonl").exists()  # not one val rollout paid again
    assert len(read_ledger(ledger)) == 1  # a refusal is not a new measurement


def test_a_run_keeps_the_snapshot_it_started_with(tmp_path):
    harmful_run(tmp_path / "a").train()
    b = harmful_run(tmp_path / "b", train={"max_steps": 1, "num_epochs": 1})
    b.train()
    snapshot = json.loads((tmp_path / "b" / "rejected_before.json").read_text())
    assert [r["run"] for r in snapshot] == ["a"]
    harmful_run(tmp_path / "c", evaluation={"sel_env_num": 6}).train()  # another gate (other items): measured, after b began
    again = harmful_run(tmp_path / "b")  # b resumed: the same snapshot, not the ledger as it is now
    again.context()
    assert [r["run"] for r in json.loads((tmp_path / "b" / "rejected_before.json").read_text())] == ["a"]
    assert {r.run for r in read_ledger(ledgers()[0])} == {"a", "c"}


def test_the_ledger_can_be_turned_off(tmp_path):
    harmful_run(tmp_path / "a", optimizer={**HARMFUL["optimizer"], "rejected_ledger": False}).train()
    assert ledgers() == [] and not (tmp_path / "a" / "rejected_before.json").exists()


# --------------------------------------------------------------------------- keyed by what decides the outcome


class Lines:
    """A reporter that keeps the lines a user would read."""

    def __init__(self):
        self.lines: list[str] = []

    def line(self, text: str) -> None:
        self.lines.append(text)

    def phase(self, text: str) -> None: ...

    def items(self, label: str, done: int, total: int) -> None: ...


def never_right(request):
    """A weaker target model: no rule in the skill helps it (stands in for a small model)."""
    return "no idea"


def model_run(out, model: str, target_script, **optimizer):
    """One step of the toy run on the target model ``model`` (a scripted stand-in whose
    name is its identity, as a provider's model name is): the optimizer proposes the
    missing rules, which the toy target needs and the weaker one cannot use."""
    from skillopt.backends import BackendSettings
    from skillopt.calls import ModelClient
    from skillopt.scripted import ScriptedBackend

    trainer = make_trainer(out, optimizer_script=toy_optimizer(), num_epochs=1, train={"max_steps": 1},
                           optimizer={"learning_rate": 4, "min_learning_rate": 4, **optimizer})
    backend = ScriptedBackend(BackendSettings(name="scripted", model=model), script=target_script)
    trainer.target = trainer.runner.client = ModelClient(backend, role="target", ledger=trainer.ledger, cache=None,
                                                         cache_mode="off")
    trainer.reporter = trainer.runner.reporter = Lines()
    return trainer


def outcome(out, summary):
    history = json.loads((out / "history.json").read_text())
    return [h["action"] for h in history], (out / "best_skill.md").read_text(), summary.val.best_gate_score


def test_a_rejection_on_another_target_model_does_not_stop_this_one_learning(tmp_path, monkeypatch):
    from toy import toy_target

    monkeypatch.setenv("SKILLOPT_HOME", str(tmp_path / "fresh-home"))
    fresh = model_run(tmp_path / "fresh", "strong-model", toy_target)
    learnt = outcome(tmp_path / "fresh", fresh.train())
    assert learnt[0] == ["accept_new_best"] and learnt[2] > 0  # on a fresh home the strong model learns

    monkeypatch.setenv("SKILLOPT_HOME", str(tmp_path / "shared-home"))
    weak = model_run(tmp_path / "weak", "weak-model", never_right)
    assert weak.train().total_rejects == 1  # the weak model rejects the very same candidate
    strong = model_run(tmp_path / "strong", "strong-model", toy_target)
    summary = strong.train()
    assert outcome(tmp_path / "strong", summary) == learnt  # it learns exactly as on a fresh home
    assert json.loads((tmp_path / "strong" / "rejected_before.json").read_text()) == []
    assert not any("rejected before" in line for line in strong.reporter.lines)

    again = model_run(tmp_path / "weak-again", "weak-model", never_right)  # the same model: refused, and it says so
    again.train()
    said = "\n".join(again.reporter.lines)
    assert "rejected before: 1 candidate(s) rejected by 1 earlier run(s)" in said and "--ignore-rejected" in said
    assert "refused: rejected before (run weak, step 1" in said


def test_ignore_rejected_starts_without_them_and_still_records(tmp_path):
    harmful_run(tmp_path / "a").train()
    b = harmful_run(tmp_path / "b", optimizer={**HARMFUL["optimizer"], "ignore_rejected": True})
    b.reporter = b.runner.reporter = Lines()
    summary = b.train()
    step = json.loads((tmp_path / "b" / "history.json").read_text())[0]
    assert summary.total_rejects == 1 and not step["verdict"]["reason"].startswith("refused")  # measured again
    assert (tmp_path / "b" / "steps" / "step_0001" / "gate" / "results.jsonl").exists()
    assert json.loads((tmp_path / "b" / "rejected_before.json").read_text()) == []
    assert any("ignoring 1 rejection(s) of earlier runs" in line for line in b.reporter.lines)
    assert {r.run for r in read_ledger(ledgers()[0])} == {"a", "b"}


def test_the_gate_context_holds_every_gate_setting_and_the_gate_plugins_own(tmp_path):
    import attrs
    from engine_helpers import make_config

    from skillopt.engine.rejected import gate_context

    cfg = make_config()
    base = gate_context(cfg, ["v1", "v2"])
    assert gate_context(attrs.evolve(cfg, evaluation=attrs.evolve(cfg.evaluation, gate_min_items=2)), ["v1", "v2"]) != base
    assert gate_context(attrs.evolve(cfg, gates={"paired": {"x": 1}}), ["v1", "v2"]) != base
    assert gate_context(attrs.evolve(cfg, evaluation=attrs.evolve(cfg.evaluation, eval_test=False)), ["v1", "v2"]) == base
    assert gate_context(cfg, ["v1"]) != base
