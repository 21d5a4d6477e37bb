"""A whole scripted training run learns the rule the scripted target needs.

The scripted backend stands in for both models. The target plays each game's expert plan
only when its system prompt (the skill) holds RULE, and otherwise writes no command. The
optimizer's analyst, shown the failed trajectories, proposes appending RULE. So the run
must show: baseline 0, the candidate accepted by the gate, the test score going up.
"""

import json
import re

from skillopt_envs_alfworld import AlfworldConfig, AlfworldEnv

RULE = "Open every closed receptacle you visit."
LIMIT = 6


def rules_file(tmp_path):
    env = AlfworldEnv(AlfworldConfig(limit=LIMIT))
    rules, seen = [], set()
    for split in ("train", "val", "test"):
        for task in env.tasks(split):
            assert task.inputs["task"] not in seen  # the script keys games by their task sentence
            seen.add(task.inputs["task"])
            for step, command in enumerate(env.game(task).expert_plan, start=1):
                pattern = f"{re.escape(RULE)}.*## Task\n{re.escape(task.inputs['task'])}\n\nStep {step} of "
                rules.append({"stage": "rollout", "match": pattern, "reply": f"<action>{command}</action>"})
    edit = {"op": "append", "content": "- " + RULE, "rationale": "closed receptacles hid the goal objects"}
    rules.append({"stage": "analyst", "match": "", "reply": {
        "reasoning": "The target never opened anything.", "edits": [edit],
        "failure_summary": [{"failure_type": "search", "count": LIMIT, "description": "closed receptacles never opened"}],
    }})  # fmt: skip
    rules.append({"stage": "merge", "match": "", "reply": {"reasoning": "one edit", "edits": [edit]}})
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(rules))
    return path


def test_training_learns_the_rule_and_the_test_score_moves(run_cli, tmp_path):
    out = tmp_path / "run"
    sets = [
        f"model.options.rules={rules_file(tmp_path)}", f"env.limit={LIMIT}", "env.max_steps=12", "train.num_epochs=1",
        f"train.batch_size={LIMIT}", f"gradient.minibatch_size={LIMIT}", "optimizer.use_slow_update=false",
        "optimizer.use_meta_skill=false", f"evaluation.sel_env_num={LIMIT}", f"evaluation.test_env_num={LIMIT}",
    ]  # fmt: skip
    args = ["run", "--env", "alfworld", "--backend", "scripted", "--out", str(out)]
    for item in sets:
        args += ["--set", item]
    result = run_cli(*args)
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["val"]["baseline_gate_score"] == 0.0 and summary["val"]["best_gate_score"] == 1.0
    assert summary["test"]["initial"]["hard"] == 0.0
    assert summary["test"]["best"]["hard"] == 1.0 and summary["total_accepts"] == 1
    assert RULE in (out / "best_skill.md").read_text()
