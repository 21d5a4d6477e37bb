"""The training loop on the toy env, with scripted target and optimizer (see toy.py).

Each test asserts on the files the engine writes, as a user inspecting a run would.
"""

from __future__ import annotations

import json
import re

from engine_helpers import make_trainer
from toy import toy_optimizer

from skillopt.records import skill_hash


def load(path):
    return json.loads(path.read_text())


def test_training_learns_the_missing_rules_and_writes_every_run_file(tmp_path):
    summary = make_trainer(tmp_path).train()
    best = (tmp_path / "best_skill.md").read_text()
    assert all(f"RULE-{k}" in best for k in ("upper", "reverse", "double", "vowels"))
    assert summary.test["initial"].hard == 0.0 and summary.test["best"].hard == 1.0
    assert set(summary.test["best"].by_task_type) == {"upper", "reverse", "double", "vowels"}
    step = tmp_path / "steps" / "step_0001"
    for rel in ["rollout/results.jsonl", "reflect/minibatch_fail_000.json", "merge/result.json", "select/result.json",
                "apply/result.json", "apply/candidate_skill.md", "gate/results.jsonl", "gate/result.json", "step_record.json"]:
        assert (step / rel).is_file(), rel
    conv = load(next((step / "rollout" / "predictions").glob("*/conversation.json")))
    assert conv["turns"][1]["content"].startswith("Puzzle kind:")
    history = load(tmp_path / "history.json")
    assert [h["step"] for h in history] == [1, 2, 3, 4] and {h["kind"] for h in history} == {"step"}
    assert history[0]["action"] == "accept_new_best" and history[0]["n_edits_applied"] >= 1
    assert {"rollout_hard", "edit_budget", "n_edits_proposed", "n_edits_applied", "verdict", "prompt_tokens", "optimizer_prompt_tokens"} <= set(history[0])
    assert sorted(p.name for p in (tmp_path / "skills").glob("skill_v*.md")) == [f"skill_v{i:04d}.md" for i in range(5)]
    state = load(tmp_path / "runtime_state.json")
    assert state["status"] == "finished" and state["last_completed_step"] == 4
    assert state["best_hash"] == skill_hash(best)
    assert load(tmp_path / "summary.json")["status"] == "finished" and summary.exit_code == 0
    by_stage = load(tmp_path / "summary.json")["usage"]["by_stage"]  # ledger labels are the pipeline's stage names
    assert {"target/gate", "target/rollout", "target/final_eval", "optimizer/reflect"} <= set(by_stage)
    assert all(isinstance(v["calls"], int) for v in by_stage.values())


def test_the_optimizer_sees_the_skill_once_and_no_item_ids(tmp_path):
    trainer = make_trainer(tmp_path, num_epochs=1)
    trainer.train()
    analyst = [r for r in trainer.optimizer.backend.requests if r.stage == "analyst"]
    assert analyst
    for req in analyst:
        user = req.messages[-1].content
        assert user.count("<skill>") == 1
        assert not re.search(r"\b(train|val)-\d{3}\b", user)


def test_analysts_are_told_the_scheduled_budget_not_the_maximum(tmp_path):
    trainer = make_trainer(tmp_path, num_epochs=2, optimizer={"learning_rate": 4, "min_learning_rate": 1, "lr_scheduler": "linear"})
    trainer.train()
    told = [int(re.search(r"Propose at most (\d+) edits", r.messages[-1].content).group(1))
            for r in trainer.optimizer.backend.requests if r.stage == "analyst"]
    budgets = [h["edit_budget"] for h in load(tmp_path / "history.json")]
    assert budgets == [4, 3, 2, 1] and set(told) <= set(budgets) and min(told) < 4


def test_gate_rejects_a_harmful_edit_and_the_buffer_remembers_it(tmp_path):
    trainer = make_trainer(tmp_path, optimizer_script=toy_optimizer(harmful=True), num_epochs=1,
                           optimizer={"learning_rate": 8, "min_learning_rate": 8})
    trainer.train()
    history = load(tmp_path / "history.json")
    assert history[0]["action"] == "reject"
    assert "RULE-BAD" not in (tmp_path / "best_skill.md").read_text()
    verdict = load(tmp_path / "steps" / "step_0001" / "gate" / "result.json")["result"]["verdict"]
    assert not verdict["accepted"] and verdict["candidate_score"] <= verdict["current_score"]
    second = [r for r in trainer.optimizer.backend.requests if r.stage == "analyst"][-1].messages[-1].content
    assert "REJECT" in second and "rejected edit" in second and "RULE-BAD" in second


def test_ranking_clips_to_the_budget_and_keeps_its_choice(tmp_path):
    trainer = make_trainer(tmp_path, optimizer_script=toy_optimizer(rank_reverse=True), num_epochs=1,
                           optimizer={"learning_rate": 2, "min_learning_rate": 2})
    trainer.train()
    ranked = load(tmp_path / "steps" / "step_0001" / "select" / "result.json")["result"]
    assert ranked["budget"] == 2 and len(ranked["selected"]["edits"]) == 2
    assert ranked["selection"]["ranking"] == "optimizer" and ranked["selection"]["selected_indices"][0] > 0


def test_ranking_fallback_is_reported_when_the_optimizer_breaks_the_schema(tmp_path):
    base = toy_optimizer()

    def script(req):
        return "definitely not json" if req.stage == "ranking" else base(req)

    trainer = make_trainer(tmp_path, optimizer_script=script, num_epochs=1, optimizer={"learning_rate": 2, "min_learning_rate": 2})
    trainer.train()
    rec = load(tmp_path / "steps" / "step_0001" / "step_record.json")
    assert any("ranking fell back" in n for n in rec["notes"])
    assert load(tmp_path / "steps" / "step_0001" / "select" / "result.json")["result"]["selection"]["ranking"] == "support order (fallback)"


def test_a_minibatch_whose_reply_breaks_the_schema_is_counted_not_adopted(tmp_path):
    base = toy_optimizer()
    calls = {"n": 0}

    def script(req):
        if req.stage == "analyst":
            calls["n"] += 1
            if calls["n"] <= 3:  # the first minibatch: the reply and both re-asks are broken
                return '{"edits": "oops"}'
        return base(req)

    # one analyst at a time: "the first three calls" are then one minibatch's reply and re-asks
    make_trainer(tmp_path, optimizer_script=script, num_epochs=1, gradient={"minibatch_size": 4, "analyst_workers": 1}).train()
    rec = load(tmp_path / "steps" / "step_0001" / "step_record.json")
    assert rec["reflect_failures"] == 1 and "JSON schema" in rec["reflect_failure_reasons"][0]
    failed = [load(p)["result"] for p in (tmp_path / "steps" / "step_0001" / "reflect").glob("*.json")]
    assert sum(1 for f in failed if f["failure"] and f["patch"] is None) == 1


def test_use_gate_false_force_accepts_and_says_so(tmp_path):
    make_trainer(tmp_path, optimizer_script=toy_optimizer(harmful=True), num_epochs=1,
                 evaluation={"use_gate": False}, optimizer={"learning_rate": 8, "min_learning_rate": 8}).train()
    verdict = load(tmp_path / "steps" / "step_0001" / "gate" / "result.json")["result"]["verdict"]
    assert verdict["forced"] and verdict["action"] == "force_accept" and "use_gate=false" in verdict["reason"]
    assert load(tmp_path / "history.json")[0]["action"] == "force_accept"
    assert "RULE-BAD" not in (tmp_path / "best_skill.md").read_text()  # best is still tracked by score


def test_paired_gate_with_repeats(tmp_path):
    summary = make_trainer(tmp_path, num_epochs=1, evaluation={"gate": "paired", "gate_repeats": 2, "gate_confidence": 0.9}).train()
    verdict = load(tmp_path / "steps" / "step_0001" / "gate" / "result.json")["result"]["verdict"]
    assert verdict["accepted"] and verdict["details"]["repeats"] == 2 and verdict["confidence"] > 0.9
    rows = [json.loads(x) for x in (tmp_path / "steps" / "step_0001" / "gate" / "results.jsonl").read_text().splitlines()]
    assert {r["key"].split("#")[1] for r in rows} == {"r0", "r1"}
    assert summary.gate.name == "paired"


def test_autonomous_learning_rate_decides_the_count_and_is_logged(tmp_path):
    base = toy_optimizer()

    def script(req):
        if req.stage == "lr_autonomous":
            return {"learning_rate": 1, "reasoning": "be careful", "confidence": "low", "risk_notes": []}
        return base(req)

    make_trainer(tmp_path, optimizer_script=script, num_epochs=1, optimizer={"lr_control_mode": "autonomous"}).train()
    selected = load(tmp_path / "steps" / "step_0001" / "select" / "result.json")["result"]
    assert selected["lr_decision"]["learning_rate"] == 1 and selected["lr_decision"]["mode"] == "autonomous"
    assert len(selected["selected"]["edits"]) == 1
    assert [row["step"] for row in load(tmp_path / "lr_history.json")] == [1, 2]


def test_rewrite_mode_carries_out_suggestions_with_one_rewrite(tmp_path):
    def script(req):
        text = "\n".join(m.content for m in req.messages)
        if req.stage == "analyst":
            kinds = sorted(set(re.findall(r"Puzzle kind: (\w+)", text))) if "Failed" in text else []
            return {"suggestions": [{"type": "add_rule", "title": f"rule {k}", "instruction": f"Add RULE-{k}"} for k in kinds]}
        if req.stage == "merge":
            kinds = sorted(set(re.findall(r"Add RULE-(\w+)", text)))
            return {"suggestions": [{"type": "add_rule", "title": f"rule {k}", "instruction": f"Add RULE-{k}"} for k in kinds]}
        if req.stage == "ranking":
            n = len(re.findall(r"^\[\d+\]", text, re.MULTILINE))
            return {"selected_indices": list(range(n))[:4]}
        if req.stage == "rewrite":
            kinds = sorted(set(re.findall(r"Add RULE-(\w+)", text)))
            return {"new_skill": "# Rules\n" + "\n".join(f"- RULE-{k}" for k in kinds), "change_summary": ["added rules"]}
        return toy_optimizer()(req)

    trainer = make_trainer(tmp_path, optimizer_script=script, num_epochs=1,
                           optimizer={"skill_update_mode": "rewrite", "rewrite_max_tokens": 3000, "rewrite_reasoning_effort": "high"})
    summary = trainer.train()
    assert summary.test["best"].hard > 0.5
    rewrite = [r for r in trainer.optimizer.backend.requests if r.stage == "rewrite"][0]
    assert rewrite.max_tokens == 3000 and rewrite.reasoning_effort == "high"
    assert load(tmp_path / "steps" / "step_0001" / "apply" / "result.json")["result"]["extra"]["change_summary"] == ["added rules"]


def test_full_rewrite_mode_takes_the_merged_new_skill(tmp_path):
    def script(req):
        if req.stage in ("analyst", "merge"):
            return {"new_skill": "- RULE-upper\n- RULE-reverse\n- RULE-double\n- RULE-vowels", "change_summary": ["all rules"]}
        return toy_optimizer()(req)

    summary = make_trainer(tmp_path, optimizer_script=script, num_epochs=1, optimizer={"skill_update_mode": "full-rewrite"}).train()
    assert summary.test["best"].hard == 1.0
    assert load(tmp_path / "history.json")[0]["edit_budget"] == -1  # no learning-rate clipping


def test_skill_aware_reflection_routes_lapses_to_a_gated_appendix(tmp_path):
    base = toy_optimizer()

    def script(req):
        out = base(req)
        if req.stage == "analyst" and isinstance(out, dict) and "Failed" in req.messages[-1].content:
            out = {**out, "appendix_notes": ["Re-read the puzzle kind before answering."]}
        return out

    trainer = make_trainer(tmp_path, optimizer_script=script, num_epochs=1, optimizer={"use_skill_aware_reflection": True})
    trainer.train()
    analyst = next(r for r in trainer.optimizer.backend.requests if r.stage == "analyst" and "Failed" in r.messages[-1].content)
    assert "EXECUTION_LAPSE" in analyst.messages[0].content
    cand = (tmp_path / "steps" / "step_0001" / "apply" / "candidate_skill.md").read_text()
    assert "<!-- APPENDIX_START -->" in cand and "Re-read the puzzle kind" in cand
    assert load(tmp_path / "steps" / "step_0001" / "gate" / "result.json")["result"]["verdict"]["n_items"] > 0  # the notes were gated


def test_an_empty_proposal_skips_the_step_without_gating(tmp_path):
    def script(req):
        return {"reasoning": "nothing", "edits": []} if req.stage == "analyst" else toy_optimizer()(req)

    make_trainer(tmp_path, optimizer_script=script, num_epochs=1).train()
    assert [h["action"] for h in load(tmp_path / "history.json")] == ["skip_no_patches", "skip_no_patches"]
    assert not (tmp_path / "steps" / "step_0001" / "gate").exists()


def test_systemic_rollout_failure_stops_instead_of_scoring_zero(tmp_path):
    from skillopt.errors import TransientError

    def dead(req):
        return TransientError("connection refused")

    trainer = make_trainer(tmp_path, target_script=dead, num_epochs=1)
    trainer.target.retry = type(trainer.target.retry)(max_retries=0)
    trainer.runner.heal_pause_s = 0.0
    summary = trainer.train()
    assert summary.status == "provider_outage" and summary.exit_code == 6 and "connection refused" in summary.stopped_reason
    assert "model.target" in summary.advice
    assert not (tmp_path / "gate_baseline" / "results.jsonl").exists()  # no outage was recorded as an answer


def test_budget_stops_cleanly_at_a_step_boundary_and_resumes(tmp_path):
    from skillopt.calls import Ledger

    summary = make_trainer(tmp_path, ledger=Ledger(max_calls=30), num_epochs=1).train()
    assert summary.status == "budget_exhausted" and "max_calls=30" in summary.stopped_reason and summary.exit_code == 3
    assert "budget.max_calls" in summary.advice
    state = load(tmp_path / "runtime_state.json")
    assert state["status"] == "budget_exhausted"
    resumed = make_trainer(tmp_path, ledger=Ledger(max_calls=1000), num_epochs=1).train()
    assert resumed.status == "finished" and resumed.steps_completed == 2


def test_an_env_can_override_optimizer_prompts(tmp_path):
    trainer = make_trainer(tmp_path, num_epochs=1)
    trainer.env.prompt = lambda name: "TOY ANALYST PROMPT" if name == "analyst_failure" else None
    trainer.train()
    systems = {r.messages[0].content for r in trainer.optimizer.backend.requests if r.stage == "analyst"}
    assert "TOY ANALYST PROMPT" in systems


def test_appendix_notes_are_consolidated_above_the_threshold(tmp_path):
    base = toy_optimizer()

    def script(req):
        if req.stage == "appendix_consolidate":
            return {"appendix_notes": ["Check the puzzle kind."]}
        out = base(req)
        if req.stage == "analyst" and isinstance(out, dict) and "Failed" in req.messages[-1].content:
            out = {**out, "appendix_notes": [f"Note {i} about kinds." for i in range(3)]}
        return out

    make_trainer(tmp_path, optimizer_script=script, num_epochs=1,
                 optimizer={"use_skill_aware_reflection": True, "skill_aware_consolidate_threshold": 2}).train()
    cand = (tmp_path / "steps" / "step_0001" / "apply" / "candidate_skill.md").read_text()
    assert "- Check the puzzle kind." in cand and "Note 0" not in cand


def test_a_rollout_past_its_deadline_is_a_timeout_and_its_late_result_is_discarded(tmp_path):
    import threading
    import time as _time

    from toy import ToyEnv

    from skillopt.engine.rollouts import RolloutRunner

    release = threading.Event()

    class SlowEnv(ToyEnv):
        def rollout(self, task, skill, model, ctx):
            if task.id.endswith("000"):
                release.wait(5)
            return super().rollout(task, skill, model, ctx)

    from toy import toy_target

    from skillopt.calls import ModelClient
    from skillopt.scripted import ScriptedBackend

    env = SlowEnv(SlowEnv.Config(workers=4))
    client = ModelClient(ScriptedBackend(script=toy_target), role="target", cache=None, cache_mode="off")
    runner = RolloutRunner(env, client, workers=4, timeout_s=0.5, heal_pause_s=0.0)
    tasks = env.tasks("val")[:4]
    out = runner.run(tasks, "- RULE-reverse\n- RULE-double\n- RULE-vowels\n- RULE-upper", tmp_path, training=False, seed=1)
    assert out[0].status == "timeout" and out[0].score.hard == 0.0 and "timed out" in out[0].error
    assert all(r.status == "ok" for r in out[1:])
    release.set()
    _time.sleep(0.3)
    lines = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    # a timeout is missing data: neither it nor the late answer is recorded, so the next run asks again
    assert [x for x in lines if x["key"].startswith("val-000")] == []
    assert not (tmp_path / "predictions" / "val-000" / "conversation.json").exists()
    before = len(client.backend.requests)
    again = runner.run(tasks, "- RULE-reverse\n- RULE-double\n- RULE-vowels\n- RULE-upper", tmp_path, training=False, seed=1)
    assert [r.status for r in again] == ["ok"] * 4 and len(client.backend.requests) == before + 1  # only val-000 re-asked


def test_min_failure_edits_makes_failure_analysts_propose_something(tmp_path):
    trainer = make_trainer(tmp_path, num_epochs=1, gradient={"min_failure_edits": 1})
    trainer.train()
    schemas = [r.json_schema for r in trainer.optimizer.backend.requests if r.stage == "analyst"]
    assert schemas and all(s["properties"]["edits"]["minItems"] == 1 for s in schemas if "failure_summary" in s["properties"])


def test_an_edit_copying_a_training_answer_is_refused_as_a_leak(tmp_path):
    base = toy_optimizer()

    def script(req):
        out = base(req)
        if req.stage == "analyst" and isinstance(out, dict) and out.get("edits"):
            from toy import solve

            pairs = re.findall(r"Puzzle kind: (\w+)\nWord: (\w+)", req.messages[-1].content)
            kind, word = next(p for p in pairs if p[0] != "vowels")  # a word answer, not a digit
            out = {**out, "edits": [{"op": "append", "content": f"- Remember: {solve(kind, word)}"}, *out["edits"]][:2]}
        return out

    make_trainer(tmp_path, optimizer_script=script, num_epochs=1, optimizer={"learning_rate": 8, "min_learning_rate": 8}).train()
    report = load(tmp_path / "steps" / "step_0001" / "apply" / "result.json")["result"]
    leaks = [r for r in report["results"] if r["status"] == "leak"]
    assert leaks and "copies the answer" in leaks[0]["detail"]
    assert "Remember" not in (tmp_path / "steps" / "step_0001" / "apply" / "candidate_skill.md").read_text()


def test_an_analyst_reply_over_the_budget_is_ranked_not_re_asked_or_dropped(tmp_path):
    """F6: an analyst that proposes more edits than the step's budget (providers that do
    not enforce ``maxItems`` do this every step) used to break the schema, be re-asked
    twice and then be dropped with its minibatch. Its extra edits must reach the ranking."""
    base = toy_optimizer()
    extra = [{"op": "append", "content": f"- Hint {i}: read the word twice."} for i in range(5)]

    def script(req):
        out = base(req)
        if req.stage == "analyst" and isinstance(out, dict) and "Failed trajectories" in req.messages[-1].content:
            out = {**out, "edits": [*extra, *out["edits"]]}  # 5 extra edits, whatever the budget said
        return out

    trainer = make_trainer(tmp_path, optimizer_script=script, num_epochs=1, train={"max_steps": 1},
                           optimizer={"learning_rate": 2, "min_learning_rate": 2})
    trainer.train()
    analyst = [r for r in trainer.optimizer.backend.requests if r.stage == "analyst"]
    minibatches = list((tmp_path / "steps" / "step_0001" / "reflect").glob("minibatch_*.json"))
    assert len(analyst) == len(minibatches)  # not one re-ask
    rec = load(tmp_path / "steps" / "step_0001" / "step_record.json")
    assert rec["reflect_failures"] == 0 and rec["n_edits_proposed"] > 2 + len(extra)
    ranking = [r for r in trainer.optimizer.backend.requests if r.stage == "ranking"]
    assert ranking and "Hint 0" in ranking[0].messages[-1].content  # the extras were ranked with the rest
    assert rec["n_edits_selected"] == 2
