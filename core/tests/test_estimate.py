"""The pre-run estimate against real runs of the engine (toy env, scripted models; see
toy.py for what they stand for)."""

from __future__ import annotations

import pytest
from engine_helpers import make_trainer
from toy import ToyEnv

from skillopt.engine.estimate import _merge_calls, estimate, measure_rollouts
from skillopt.records import Task

STAGES = ("reflect", "merge", "select", "apply", "slow_update", "meta_skill")


@pytest.mark.parametrize("epochs, extra", [
    (1, {}),
    (2, {"optimizer": {"use_slow_update": True, "use_meta_skill": True}}),
    (1, {"evaluation": {"gate_max_repeats": 1}}),
])
def test_the_estimate_bounds_what_a_run_really_calls(tmp_path, epochs, extra):
    trainer = make_trainer(tmp_path / "run", num_epochs=epochs, **extra)
    summary = trainer.train()
    stages = summary.usage.by_stage
    found = estimate(trainer.cfg, trainer.env, pricers={"target": lambda u: u.prompt_tokens * 1e-6, "optimizer": lambda u: 0.0})

    for stage, actual in ((k.split("/", 1)[1], v.requests) for k, v in stages.items() if k.startswith("target/")):
        assert actual <= found.target_calls.get(stage, 0), stage  # the estimate names the ledger's stages
    target = summary.usage.role("target").requests
    bound = sum(found.target_calls.values())
    # a ceiling, and not a silly one: only a racing gate's unused repeats and the attribution of steps that were not
    # accepted (the worst case counts every step) separate the two
    slack = (2 * (trainer.cfg.evaluation.gate_max_repeats - 1) * len(trainer.env.tasks("val"))
             + trainer.cfg.evaluation.attribution_rollouts) * found.steps
    assert target <= bound <= 2 * target + slack
    for stage in STAGES:
        actual = stages[f"optimizer/{stage}"].requests if f"optimizer/{stage}" in stages else 0
        assert actual <= found.optimizer_calls.get(stage, 0), stage
    assert found.steps == summary.total_steps
    assert found.prompt_cost_usd["target"] == pytest.approx(found.target_prompt_tokens * 1e-6)


def test_merge_calls_follow_the_k_ary_tree():
    assert [_merge_calls(p, 8) for p in (0, 1, 2, 8, 9, 17, 64, 65)] == [0, 0, 1, 1, 2, 3, 9, 10]
    assert _merge_calls(5, 2) == 4  # a binary tree over n leaves takes n - 1 merges


class ThreeTurnEnv(ToyEnv):
    """Asks again, up to three times, while the model gives no answer (a multi-turn env)."""

    def rollout(self, task, skill, model, ctx):
        from skillopt.envs import chat_request

        for _ in range(3):
            if model.complete(chat_request(f"## Skill\n{skill}", "Answer: " + task.inputs["word"])).text:
                break
        return super().rollout(task, skill, model, ctx)


def test_calls_per_rollout_are_measured_at_the_envs_turn_limit():
    env = ThreeTurnEnv(ThreeTurnEnv.Config())
    tasks = [Task(id="a", inputs={"kind": "reverse", "word": "apple"}, gold="elppa")]
    calls, chars, _cap = measure_rollouts(env, tasks, "be brief")
    assert calls == 4 and chars > 0  # three retries plus the toy's own answer call
