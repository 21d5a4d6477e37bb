"""What a Sleep night needs from the engine, as engine semantics (issue 24).

A night is meant to run through the trainer, so the rules a night has kept for
itself are written here as engine tests on the toy env (see toy.py for what the
scripted models stand for):

- a final recheck of the best skill against a fresh baseline on *fresh* samples
  (``evaluation.final_recheck``): a gain the gate saw only on its own samples is not kept;
- a budget stop keeps exactly what the gate already validated (and skips the recheck);
- a backend that answers later (a person's subscription agent reading prompt files,
  ``AwaitingAnswer``) pauses the run once per stage, after the whole stage has asked
  its questions, and re-running resumes until the run ends where an uninterrupted one does.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading

from engine_helpers import make_trainer
from toy import solve, toy_optimizer, toy_target

from skillopt.calls import Ledger
from skillopt.engine.rollouts import item_seed
from skillopt.engine.seeds import derive_seed
from skillopt.errors import AwaitingAnswer

SEED = 42
LUCKY = "- RULE-LUCKY: answer with confidence."


def gate_seeds(n_val: int = 8, repeats: int = 3) -> set[int]:
    """The per-item seeds every gate decision of a run with ``train.seed = SEED`` samples val with."""
    base = derive_seed(SEED, "eval", "val")
    return {item_seed(base, f"val-{i:03d}", r) for i in range(n_val) for r in range(repeats)}


def lucky_target(request):
    """A target the ``RULE-LUCKY`` line helps only on the gate's own samples: it stands
    for a stochastic model whose right answers under a candidate were luck of the draw."""
    system, user = request.messages[0].content, request.messages[-1].content
    if "RULE-LUCKY" in system and request.seed in gate_seeds():
        kind = re.search(r"Puzzle kind: (\w+)", user).group(1)
        return solve(kind, re.search(r"Word: (\w+)", user).group(1))
    return "no idea"


def lucky_optimizer(request):
    """An optimizer that proposes the lucky line for any failure."""
    if request.stage == "analyst" and "Failed trajectories" in "\n".join(m.content for m in request.messages):
        return {"reasoning": "be bold", "failure_summary": [{"failure_type": "timid", "description": "no answer"}],
                "edits": [{"op": "append", "content": LUCKY}]}
    return toy_optimizer()(request)


def lucky_run(tmp_path, **evaluation):
    trainer = make_trainer(tmp_path, target_script=lucky_target, optimizer_script=lucky_optimizer, num_epochs=1,
                           train={"max_steps": 1}, evaluation={"eval_test": False, **evaluation})
    return trainer.train()


def test_without_the_recheck_a_gain_seen_only_on_the_gates_samples_is_kept(tmp_path):
    summary = lucky_run(tmp_path)
    assert summary.total_accepts == 1 and summary.recheck is None
    assert "RULE-LUCKY" in (tmp_path / "best_skill.md").read_text()


def test_the_final_recheck_on_fresh_samples_keeps_the_initial_skill_when_the_gain_does_not_hold(tmp_path):
    summary = lucky_run(tmp_path, final_recheck=True)
    assert summary.status == "finished" and summary.total_accepts == 1  # the gate accepted it on its samples
    assert summary.recheck is not None and not summary.recheck.accepted
    assert summary.recheck.candidate_score == summary.recheck.current_score == 0.0  # fresh: no luck either side
    assert "RULE-LUCKY" not in (tmp_path / "best_skill.md").read_text()
    assert (summary.best_origin, summary.best_step) == ("initial_skill", 0)
    saved = json.loads((tmp_path / "recheck" / "result.json").read_text())
    assert saved["complete"] and saved["result"]["verdict"]["accepted"] is False
    # fresh samples: seeds no gate used, so nothing was answered from an earlier evaluation
    assert (tmp_path / "recheck" / "initial" / "results.jsonl").is_file()


def test_the_final_recheck_confirms_a_real_gain(tmp_path):
    trainer = make_trainer(tmp_path, num_epochs=1, train={"max_steps": 1}, evaluation={"eval_test": False, "final_recheck": True})
    summary = trainer.train()
    best = (tmp_path / "best_skill.md").read_text()
    assert summary.recheck is not None and summary.recheck.accepted
    assert "RULE-" in best and summary.best_origin == "step_0001"
    fresh = {item_seed(derive_seed(SEED, "eval", "val_recheck"), f"val-{i:03d}", 0) for i in range(8)}
    assert fresh <= {r.seed for r in trainer.target.backend.requests} and not fresh & gate_seeds()


def scope_calls(ledger: Ledger, scope: str) -> int:
    return ledger.scope_totals(scope).calls


def test_a_budget_stop_keeps_only_what_the_gate_validated_and_skips_the_recheck(tmp_path):
    # the same run without a limit, one edit a step: step 1 and step 2 are both accepted, step 2's gate is its last stage
    sections = {"num_epochs": 1, "evaluation": {"eval_test": False, "final_recheck": True, "gate": "strict"},
                "optimizer": {"learning_rate": 1, "min_learning_rate": 1}}
    reference = make_trainer(tmp_path / "ref", **sections)
    full = reference.train()
    history = json.loads((tmp_path / "ref" / "history.json").read_text())
    actions = [h["action"] for h in history if h.get("step")]
    assert actions[:2] == ["accept_new_best", "accept_new_best"] and full.recheck.accepted
    step1_skill = (tmp_path / "ref" / "skills" / "skill_v0001.md").read_text()
    assert step1_skill != (tmp_path / "ref" / "best_skill.md").read_text()
    ledger = reference.ledger
    gate_calls = len(reference.runner.env.tasks("val"))  # the candidate's val pass (the current skill's is memoised)
    limit = scope_calls(ledger, "baseline") + scope_calls(ledger, "step 1") + scope_calls(ledger, "step 2") - gate_calls // 2

    summary = make_trainer(tmp_path / "run", ledger=Ledger(max_calls=limit), **sections).train()
    assert summary.status == "budget_exhausted" and summary.steps_completed == 1
    assert (tmp_path / "run" / "best_skill.md").read_text() == step1_skill  # validated: kept; step 2's candidate: not
    assert summary.recheck is None and not (tmp_path / "run" / "recheck").exists()


def test_a_budget_spent_in_the_final_recheck_is_a_budget_stop_that_keeps_the_validated_skill(tmp_path):
    """Regression: a budget spent during the final stages (the recheck) escaped ``train``
    as ``BudgetExceeded`` instead of ending the run ``budget_exhausted`` with its summary."""
    sections = {"num_epochs": 1, "train": {"max_steps": 1}, "evaluation": {"eval_test": False, "final_recheck": True}}
    reference = make_trainer(tmp_path / "ref", **sections)
    full = reference.train()
    assert full.recheck is not None and full.recheck.accepted
    limit = reference.ledger.totals().calls - 1  # the recheck's last call is the one refused

    summary = make_trainer(tmp_path / "run", ledger=Ledger(max_calls=limit), **sections).train()
    assert summary.status == "budget_exhausted" and summary.recheck is None and summary.steps_completed == 1
    assert (tmp_path / "run" / "best_skill.md").read_text() == (tmp_path / "ref" / "best_skill.md").read_text()
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["status"] == "budget_exhausted"


class AnswersLater:
    """Stands for the ``handoff`` backend: a prompt is answered (by ``script``, the
    person's agent) only once it has been handed out and the person has had a round;
    until then the call raises ``AwaitingAnswer``."""

    def __init__(self, script):
        self.script = script
        self.answered: set[str] = set()
        self.asked: set[str] = set()
        self.lock = threading.Lock()

    @staticmethod
    def key(request) -> str:
        blob = json.dumps([[m.role, m.content] for m in request.messages] + [request.seed, request.stage])
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def __call__(self, request):
        k = self.key(request)
        with self.lock:
            if k not in self.answered:
                self.asked.add(k)
                return AwaitingAnswer(f"prompt {k} is waiting for an answer", backend="handoff")
        return self.script(request)

    def answer_all(self) -> int:
        """The person answers every prompt handed out this round; returns how many."""
        with self.lock:
            new = self.asked - self.answered
            self.answered |= new
            self.asked = set()
        return len(new)


def test_a_backend_that_answers_later_pauses_each_stage_once_and_the_run_resumes_to_the_same_end(tmp_path):
    sections = {"num_epochs": 1, "train": {"max_steps": 2}, "evaluation": {"eval_test": False}}
    straight = make_trainer(tmp_path / "straight", **sections).train()
    assert straight.status == "finished"

    target, optimizer = AnswersLater(toy_target), AnswersLater(toy_optimizer())
    rounds = []
    for _ in range(40):
        summary = make_trainer(tmp_path / "handoff", target_script=target, optimizer_script=optimizer, **sections).train()
        if summary.status != "awaiting_answers":
            break
        assert summary.exit_code == 7 and "re-run" in summary.advice and "answer" in summary.stopped_reason
        rounds.append(target.answer_all() + optimizer.answer_all())
    assert summary.status == "finished"
    # the first round asks every prompt that needs only the initial skill at once, not one prompt per round:
    # the baseline's 8 val items and step 1's 8 train rollouts (run beside it: engine.lookahead)
    assert rounds[0] == 16 and len(rounds) < 20
    assert (tmp_path / "handoff" / "best_skill.md").read_text() == (tmp_path / "straight" / "best_skill.md").read_text()
    assert summary.steps_completed == straight.steps_completed and summary.total_accepts == straight.total_accepts


def test_a_strategy_with_an_edit_budget_of_one_puts_one_edit_at_a_time_to_the_gate(tmp_path):
    """Sleep's search: however many edits the schedule allows, a step applies one."""
    from skillopt.strategies.hill import HillClimb

    class OneAtATime(HillClimb):
        name = "one-at-a-time-test"
        edit_budget = 1

    trainer = make_trainer(tmp_path, num_epochs=1, optimizer={"learning_rate": 4, "min_learning_rate": 4},
                           evaluation={"eval_test": False, "gate": "strict"})
    trainer.search.strategy = OneAtATime(trainer.cfg.search)
    trainer.train()
    history = json.loads((tmp_path / "history.json").read_text())
    assert [h["edit_budget"] for h in history] == [1, 1] and [h["n_edits_applied"] for h in history] == [1, 1]
    told = {int(re.search(r"Propose at most (\d+) edits", r.messages[-1].content).group(1))
            for r in trainer.optimizer.backend.requests if r.stage == "analyst" and "Propose at most" in r.messages[-1].content}
    assert told == {1}
