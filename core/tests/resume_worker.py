"""A training run in its own process, killed (os._exit) at a chosen call.

``SKILLOPT_TEST_KILL=stage:N`` kills the process at the N-th model call of that stage
in this process, as a power cut or an OOM kill would: no cleanup, no flush.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from engine_helpers import make_trainer  # noqa: E402
from test_epoch import epoch_script  # noqa: E402
from toy import toy_target  # noqa: E402

KILL = os.environ.get("SKILLOPT_TEST_KILL", "")
counts: dict[str, int] = {}
lock = threading.Lock()


def killer(script):
    def wrapped(req):
        if KILL:
            stage, n = KILL.split(":")
            with lock:
                counts[req.stage] = counts.get(req.stage, 0) + 1
                if req.stage == stage and counts[req.stage] == int(n):
                    os._exit(77)
        return script(req)

    return wrapped


if __name__ == "__main__":
    out = Path(sys.argv[1])
    trainer = make_trainer(
        out,
        target_script=killer(toy_target),
        optimizer_script=killer(epoch_script()),
        train={"num_epochs": 2, "batch_size": 8},
        optimizer={"use_slow_update": True, "use_meta_skill": True, "slow_update_samples": 6, "learning_rate": 2, "min_learning_rate": 1},
    )
    summary = trainer.train()
    print(json.dumps({"status": summary["status"]}))
