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
``evaluation.selection_split``.
"""

from __future__ import annotations

import json
import os
import sys
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


def build(out: Path):
    folder = os.environ.get("SKILLOPT_TEST_FOLDER", "")  # a folder skill (toy.write_toy_folder) to train instead
    if folder:
        from toy import folder_optimizer

        script, env = folder_optimizer(), {"n_val": 24, "skill_init": folder}  # six items a kind: one kind is significant
    else:
        script, env = epoch_script(), {"n_val": 16}  # enough val items for the paired gate to accept a two-rule step
        if os.environ.get("SKILLOPT_TEST_SELECTION"):
            env = {"n_val": 24}  # a third held out for the final pick leaves the gate 16
    trainer = make_trainer(
        out,
        ledger=KillingLedger(),
        optimizer_script=script,
        train={"num_epochs": 2, "batch_size": 8},
        env=env,
        optimizer={"use_slow_update": True, "use_meta_skill": True, "slow_update_samples": 6, "learning_rate": 2,
                   "min_learning_rate": 1},
        search={"strategy": os.environ.get("SKILLOPT_TEST_STRATEGY", "hill"), "pool_size": 3,
                "proposals": int(os.environ.get("SKILLOPT_TEST_PROPOSALS", "1")),
                "sampler": os.environ.get("SKILLOPT_TEST_SAMPLER", "minibatches"),
                "select": os.environ.get("SKILLOPT_TEST_SELECT", "best")},
        evaluation={"selection_split": os.environ.get("SKILLOPT_TEST_SELECTION", "")},
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
