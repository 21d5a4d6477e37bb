"""``optimizer.max_skill_tokens``: the skill's length as a budget every optimizer stage is
told, with shortening edits preferred when over it and over-budget candidates refused
by the gate (toy env and scripted models; see toy.py)."""

from __future__ import annotations

import json

import attrs
from engine_helpers import make_trainer

from skillopt.config.schema import RunConfig
from skillopt.policies import OptimizerContext
from skillopt.policies.patch import PatchPolicy
from skillopt.records import Edit, Patch
from skillopt.skillbudget import budget_note, estimate_tokens, over_budget


def test_the_budget_note_says_where_the_skill_stands():
    assert budget_note("x" * 40, 0) == ""  # no budget, nothing said
    under = budget_note("x" * 40, 50)
    assert "~10 tokens; its budget is 50" in under and "40 tokens remain" in under
    over = budget_note("x" * 400, 50)
    assert "50 tokens OVER budget" in over and "`delete`" in over


def test_the_gate_rule_refuses_growth_over_the_budget_but_not_shortening():
    assert over_budget("x" * 400, "x" * 100, 50).startswith("the candidate is ~100 tokens")
    assert over_budget("x" * 300, "x" * 400, 50) == ""  # shorter than an over-budget skill: may be gated
    assert over_budget("x" * 400, "x" * 100, 0) == ""


def test_analysts_are_told_the_budget_and_an_over_budget_candidate_costs_no_val_rollout(tmp_path):
    trainer = make_trainer(tmp_path, num_epochs=1, train={"max_steps": 1}, optimizer={"max_skill_tokens": 5})
    summary = trainer.train()
    prompts = ["\n".join(m.content for m in r.messages) for r in trainer.optimizer.backend.requests if r.stage == "analyst"]
    assert prompts and all("## Skill length budget" in p for p in prompts)
    assert summary.total_rejects == 1 and summary.total_accepts == 0
    step = json.loads((tmp_path / "history.json").read_text())[0]
    assert step["verdict"]["reason"].startswith("refused: the candidate is ~") and "optimizer.max_skill_tokens=5" in step["verdict"]["reason"]
    assert not (tmp_path / "steps" / "step_0001" / "gate" / "results.jsonl").exists()  # not one candidate rollout


def test_a_run_without_a_budget_tells_no_budget(tmp_path):
    trainer = make_trainer(tmp_path, num_epochs=1, train={"max_steps": 1})
    assert trainer.train().total_accepts == 1
    prompts = ["\n".join(m.content for m in r.messages) for r in trainer.optimizer.backend.requests]
    assert not any("Skill length budget" in p for p in prompts)


def test_over_budget_the_fallback_ranking_puts_shortening_edits_first():
    skill = "- keep this rule\n- a very long and wordy rule that repeats itself and repeats itself again\n"
    cfg = attrs.evolve(RunConfig(), optimizer=attrs.evolve(RunConfig().optimizer, max_skill_tokens=estimate_tokens(skill) - 5))

    class Broken:
        """An optimizer whose ranking reply breaks the schema: the engine's own order decides."""

        def complete(self, request):
            from skillopt.errors import SchemaError

            raise SchemaError("the reply broke the schema")

    ctx = OptimizerContext(client=Broken(), skill=skill, budget=1, config=cfg)
    edits = (Edit(op="append", content="- add one more rule", support_count=3, source_type="failure"),
             Edit(op="replace", target="a very long and wordy rule that repeats itself and repeats itself again",
                  content="a short rule", support_count=1, source_type="success"))
    chosen, info = PatchPolicy().select(ctx, Patch(edits=edits, source_type="failure"), 1)
    assert [e.op for e in chosen.edits] == ["replace"] and info["ranking"] == "support order (fallback)"
    roomy = attrs.evolve(ctx, config=RunConfig())
    chosen, _ = PatchPolicy().select(roomy, Patch(edits=edits, source_type="failure"), 1)
    assert [e.op for e in chosen.edits] == ["append"]  # without a budget: failure evidence and support first
