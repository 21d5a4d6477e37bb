"""Work that does not depend on other work runs side by side, within the same limits.

The toy env and scripted models stand in for a benchmark and real models (see toy.py).
Each test makes one piece of work wait until the piece it should overlap with has
started; run one after the other, the wait runs out and the test fails.
"""

from __future__ import annotations

import re
import threading
import time

from engine_helpers import make_trainer
from toy import ToyEnv, toy_optimizer, toy_target

from skillopt.calls import ModelClient
from skillopt.engine.rollouts import RolloutRunner
from skillopt.executors import ExecutorJob
from skillopt.scripted import ScriptedBackend

ALL_RULES = "- RULE-upper\n- RULE-reverse\n- RULE-double\n- RULE-vowels"


class CountingEnv(ToyEnv):
    """Counts rollouts in flight and remembers the most seen at once."""

    def __init__(self, config, hold_s: float = 0.05):
        super().__init__(config)
        self.lock = threading.Lock()
        self.now = self.peak = 0
        self.hold_s = hold_s

    def rollout(self, task, skill, model, ctx):
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
        try:
            time.sleep(self.hold_s)
            return super().rollout(task, skill, model, ctx)
        finally:
            with self.lock:
                self.now -= 1


def test_evaluations_side_by_side_share_the_runners_workers(tmp_path):
    env = CountingEnv(CountingEnv.Config(workers=3, n_val=8, n_test=8))
    client = ModelClient(ScriptedBackend(script=toy_target), role="target", cache=None, cache_mode="off")
    runner = RolloutRunner(env, client, workers=3, timeout_s=5, heal_pause_s=0.0)
    results = {}

    def evaluate(split: str, skill: str) -> None:
        results[split] = runner.run(env.tasks(split), skill, tmp_path / split, training=False, seed=1)

    threads = [threading.Thread(target=evaluate, args=("val", ALL_RULES)), threading.Thread(target=evaluate, args=("test", ""))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert env.peak == 3  # both batches together, never more than the runner's workers (6 before)
    assert [r.score.hard for r in results["val"]] == [1.0] * 8 and [r.score.hard for r in results["test"]] == [0.0] * 8


def test_the_final_evaluation_tests_the_initial_and_best_skills_side_by_side(tmp_path):
    best_started = threading.Event()
    waited: list[bool] = []

    class Env(ToyEnv):
        def rollout(self, task, skill, model, ctx):
            if task.split == "test" and skill.strip():
                best_started.set()
            if task.id == "test-000" and not skill.strip():
                # the initial (empty) skill's first test item waits for the best skill's test
                waited.append(best_started.wait(3))
            return super().rollout(task, skill, model, ctx)

    trainer = make_trainer(tmp_path, num_epochs=1, env={"workers": 4}, evaluation={"eval_test": True})
    trainer.env = Env(trainer.env.config)
    trainer.runner.env = trainer.env
    trainer.runner.executor.start(ExecutorJob(env=trainer.env, cancel=trainer.runner.cancel))  # items run on the swapped env
    summary = trainer.train()
    assert waited == [True]
    assert summary.test["initial"].hard < summary.test["best"].hard == 1.0


def test_the_failure_and_success_merge_trees_run_side_by_side(tmp_path):
    success_merging = threading.Event()
    waited: list[bool] = []
    base = toy_optimizer()

    def optimizer(request):
        text = "\n".join(m.content for m in request.messages)
        if request.stage == "analyst" and "Failed trajectories" not in text:
            word = re.search(r"Word: (\w+)", text).group(1)  # a different pattern per minibatch
            return {"reasoning": "keep what works", "edits": [{"op": "append", "content": f"- Solved '{word}' by the rule."}],
                    "success_patterns": ["short answers"]}
        if request.stage == "merge" and request.messages[0].content.startswith("You merge edit proposals that came from SUCCESSFUL"):
            success_merging.set()
        elif request.stage == "merge" and request.messages[0].content.startswith("You merge edit proposals for a skill"):
            waited.append(success_merging.wait(3))
        return base(request)

    trainer = make_trainer(tmp_path, optimizer_script=optimizer, num_epochs=1, train={"batch_size": 16, "max_steps": 1},
                           gradient={"minibatch_size": 4, "merge_batch_size": 2, "analyst_workers": 4})
    trainer.env = ToyEnv(trainer.env.config)
    initial = "- RULE-upper\n- RULE-reverse"  # half the kinds solved: failures and successes both
    trainer.env.initial_skill = lambda: initial
    trainer.train()
    assert waited and all(waited)


def test_patches_that_fit_one_merge_are_merged_in_one_call(tmp_path):
    """Two failure and two success patches, fan-in 8: one merge call with all four (two
    levels and three calls with ``gradient.flat_merge`` off), and the same skill."""
    def optimizer(request):
        text = "\n".join(m.content for m in request.messages)
        if request.stage == "analyst" and "Failed trajectories" not in text:
            word = text.split("Word: ")[1].split()[0]
            return {"reasoning": "keep", "edits": [{"op": "append", "content": f"- Solved '{word}' by the rule."}],
                    "success_patterns": ["short answers"]}
        return base(request)

    base = toy_optimizer()
    calls = {}
    for name, flat in (("flat", True), ("tree", False)):
        trainer = make_trainer(tmp_path / name, optimizer_script=optimizer, num_epochs=1, train={"batch_size": 16, "max_steps": 1},
                               gradient={"minibatch_size": 4, "analyst_workers": 4, "flat_merge": flat})
        trainer.env = ToyEnv(trainer.env.config)
        trainer.env.initial_skill = lambda: "- RULE-upper\n- RULE-reverse"  # failures and successes both
        trainer.train()
        merges = [r for r in trainer.optimizer.backend.requests if r.stage == "merge"]
        calls[name] = (len(merges), (tmp_path / name / "skills" / "skill_v0001.md").read_text())
        if flat:
            listing = merges[0].messages[-1].content
            assert listing.count("### Proposal") == 4 and "(failure)" in listing and "(success)" in listing
    assert calls["flat"][0] == 1 and calls["tree"][0] == 3
    assert calls["flat"][1] == calls["tree"][1]


def test_the_progress_display_keeps_one_bar_per_batch_running_side_by_side(monkeypatch):
    from skillopt.engine.progress import RichReporter

    reporter = RichReporter()
    try:
        reporter.items("test: initial skill", 1, 8)
        reporter.items("test: best skill", 1, 8)
        reporter.items("test: initial skill", 2, 8)
        shown = {t.description: t.completed for t in reporter.progress.tasks}
        assert shown == {"test: initial skill": 2, "test: best skill": 1}  # before: each update replaced the other's bar
        monkeypatch.setattr(RichReporter, "QUIET_S", 0.0)  # once quiet, a bar gives way to the next batch
        reporter.items("rollout: step 2", 0, 4)
        assert [t.description for t in reporter.progress.tasks] == ["rollout: step 2"]
    finally:
        reporter.close()


def test_the_progress_display_draws_no_bars_and_reads_no_ledger_when_stderr_is_no_terminal(capsys):
    """Under a log file or CI nothing shows the bars; redrawing them (and totalling the
    ledger for each update) only took CPU from the run. Lines are still written."""
    from skillopt.engine.progress import RichReporter

    class CountingLedger:
        reads = 0

        def headline(self):
            CountingLedger.reads += 1
            return 0, 0, 0, 0.0

    reporter = RichReporter(ledger=CountingLedger())
    try:
        assert reporter.console.is_terminal is False  # pytest captures stderr
        reporter.items("rollout: step 1", 3, 8)
        assert CountingLedger.reads == 0 and not reporter.progress.live.is_started
        reporter.line("accepted step 1")
    finally:
        reporter.close()
    assert "accepted step 1" in capsys.readouterr().err
