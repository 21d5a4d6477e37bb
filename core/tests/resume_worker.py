"""A training run in its own process, killed (os._exit) at a chosen point, as a power
cut or an OOM kill would: no cleanup, no flush.

``SKILLOPT_TEST_KILL=role/stage:N`` dies as the run's N-th request of that ledger
stage (``target/gate``, ``optimizer/merge`` ...) is about to be sent, counting the
requests of every earlier session of the run (its ``usage.jsonl``), so a series of
kills walks through the run. ``apply:N`` dies in the N-th call to the edit policy's
``apply`` of this process (the patch policy makes no model call there).
``SKILLOPT_TEST_FOLDER=DIR`` trains the toy folder skill at ``DIR`` instead;
``SKILLOPT_TEST_STRATEGY``, ``SKILLOPT_TEST_PROPOSALS``, ``SKILLOPT_TEST_SAMPLER``,
``SKILLOPT_TEST_SELECT`` and ``SKILLOPT_TEST_SELECTION`` set ``search.strategy``,
``search.proposals``, ``search.sampler``, ``search.select`` and
``evaluation.selection_split``. ``SKILLOPT_TEST_HOLD_GATE=1`` runs the strict gate with
a worker per val item and holds step 1's candidate val answers that come after its first
right one until a train rollout under a trained skill is asked (:func:`held_target`), so
a kill in step 2's first rollouts strikes while step 1's gate still has answers out.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from engine_helpers import make_trainer
from test_epoch import epoch_script

from skillopt.calls import Ledger

KILL = os.environ.get("SKILLOPT_TEST_KILL", "")
DIED = 77


class KillingLedger(Ledger):
    """The real ledger, plus a tripwire on one stage's cumulative request count."""

    def begin(self, *, role, stage, **kw):
        if KILL and not KILL.startswith("apply:"):
            key, n = KILL.rsplit(":", 1)
            if key == f"{role}/{stage}":
                done = self.totals().by_stage.get(key)
                if (done.requests if done else 0) + 1 >= int(n):
                    os._exit(DIED)
        return super().begin(role=role, stage=stage, **kw)


def held_target():
    """The toy target, except that once a trained skill (one holding a rule) was right on
    one val item, its other val answers wait (up to 10 s) until a train item is asked
    under a trained skill: the strict gate is settled by that first right answer (the
    initial skill scores 0), so the next step's rollouts must start while these wait."""
    from toy import ToyEnv, toy_target

    train_words = {t.inputs["word"] for t in ToyEnv(ToyEnv.Config()).tasks("train")}
    lock, trained_rollout, right = threading.Lock(), threading.Event(), []

    def script(request):
        trained = "RULE-" in request.messages[0].content
        is_train = request.messages[-1].content.rsplit("Word: ", 1)[-1].strip() in train_words
        answer = toy_target(request)
        if trained and is_train:
            trained_rollout.set()
        elif trained and not trained_rollout.is_set():
            with lock:  # in arrival order: the first right answer goes through, every later one waits
                hold = bool(right)
                if answer != "no idea":
                    right.append(answer)
            if hold:
                trained_rollout.wait(10)
        return answer

    return script


def build(out: Path):
    folder = os.environ.get("SKILLOPT_TEST_FOLDER", "")  # a folder skill (toy.write_toy_folder) to train instead
    if folder:
        from toy import folder_optimizer

        script, env = folder_optimizer(), {"n_val": 24, "skill_init": folder}  # six items a kind: one kind is significant
    else:
        script, env = epoch_script(), {"n_val": 16}  # enough val items for the paired gate to accept a two-rule step
        if os.environ.get("SKILLOPT_TEST_SELECTION"):
            env = {"n_val": 24}  # a third held out for the final pick leaves the gate 16
    hold = os.environ.get("SKILLOPT_TEST_HOLD_GATE") == "1"
    if hold:
        env = {**env, "workers": 24}
    trainer = make_trainer(
        out,
        ledger=KillingLedger(),
        optimizer_script=script,
        target_script=held_target() if hold else None,
        train={"num_epochs": 2, "batch_size": 8},
        env=env,
        optimizer={"use_slow_update": True, "use_meta_skill": True, "slow_update_samples": 6, "learning_rate": 2,
                   "min_learning_rate": 1},
        search={"strategy": os.environ.get("SKILLOPT_TEST_STRATEGY", "hill"), "pool_size": 3,
                "proposals": int(os.environ.get("SKILLOPT_TEST_PROPOSALS", "1")),
                "sampler": os.environ.get("SKILLOPT_TEST_SAMPLER", "minibatches"),
                "select": os.environ.get("SKILLOPT_TEST_SELECT", "best")},
        evaluation={"selection_split": os.environ.get("SKILLOPT_TEST_SELECTION", ""), **({"gate": "strict"} if hold else {})},
    )
    if KILL.startswith("apply:"):
        applies = {"n": 0}
        original = trainer.policy.apply

        def apply(ctx, skill, patch):
            applies["n"] += 1
            if applies["n"] == int(KILL.split(":")[1]):
                os._exit(DIED)
            return original(ctx, skill, patch)

        trainer.policy.apply = apply
    return trainer


if __name__ == "__main__":
    summary = build(Path(sys.argv[1])).train()
    print(json.dumps({"status": summary.status.value}))
