"""A toy training run over HTTP in its own process (for kill tests): ``fault_worker.py
OUT BASE_URL MAX_CALLS``. The parent test owns the model server and kills this process."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from faultkit import toy_trainer

if __name__ == "__main__":
    out, base_url, max_calls = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    trainer = toy_trainer(out, base_url, budget={"max_calls": max_calls})
    summary = trainer.train()
    print(json.dumps({"status": summary.status.value, "requests": summary.usage.requests}))
