"""The upstream kit's workload decides and scores the same with the dependency-driven
schedule (``engine.lookahead``) on and off.

What is real: the CLI with ``--preset paper`` and the kit's settings (those of
``benchmarks/side_by_side.py``), the SearchQA env on the kit's 40/20/20 split, the engine,
the ``openai`` SDK over HTTP. What stands in: the provider, the kit's
``fake_openai_perf.py`` (a target that answers by a hash of the question plus a bonus per
rule marker in the skill, one generic optimizer reply whose edits carry
``FAKERULE-<n>`` with n the server's request counter: that number depends on the order
the requests arrived in, so skills are compared with it blanked), at zero latency. The kit lives
in ``../shared/bench/upstream-kit`` beside the repository (or ``SKILLOPT_UPSTREAM_KIT``);
the test skips, saying so, when it is absent.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("skillopt_envs_searchqa")

ROOT = Path(__file__).resolve().parents[1]
KIT = Path(os.environ.get("SKILLOPT_UPSTREAM_KIT") or ROOT.parent / "shared" / "bench" / "upstream-kit")
pytestmark = pytest.mark.skipif(not (KIT / "fake_openai_perf.py").exists(),
                                reason=f"the upstream kit is not at {KIT} (../shared beside the repo, or SKILLOPT_UPSTREAM_KIT)")
sys.path.insert(0, str(ROOT / "benchmarks"))


def blank(skill: str) -> str:
    """The skill with the fake's request counter left out of its rule markers."""
    return re.sub(r"FAKERULE-\d+-", "FAKERULE-n-", skill)


def kit_run(tmp: Path, lookahead: bool) -> dict:
    from side_by_side import OURS_SETS

    tmp.mkdir()
    server = subprocess.Popen([sys.executable, str(KIT / "fake_openai_perf.py"), "--latency", "0", "--items", str(KIT / "split"),
                               "--generic-json", "--log", str(tmp / "requests.jsonl")],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = f"http://127.0.0.1:{server.stdout.readline().strip()}/v1"
        cmd = [str(Path(sys.executable).with_name("skillopt")), "run", "--env", "searchqa", "--preset", "paper",
               "--out", str(tmp / "out"), "--set", f"engine.lookahead={str(lookahead).lower()}"]
        for s in OURS_SETS:
            cmd += ["--set", s.format(url=url, split=KIT / "split")]
        env = dict(os.environ, SKILLOPT_HOME=str(tmp / "home"))  # a fresh call cache: every call goes to the server
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(10)
    out = tmp / "out"
    summary = json.loads((out / "summary.json").read_text())
    history = json.loads((out / "history.json").read_text())
    requests = [json.loads(line) for line in (tmp / "requests.jsonl").read_text().splitlines()]
    return {
        "steps": [(h["step"], h["action"], h["selection_hard"], h["current_score"], h["best_score"])
                  for h in history if "step" in h],
        "val": summary["val"], "test": {k: v["hard"] for k, v in summary["test"].items()},
        "accepts": summary.get("total_accepts"), "best": blank((out / "best_skill.md").read_text()),
        "skills": {p.name: blank(p.read_text()) for p in sorted((out / "skills").glob("*.md"))},
        "calls": len(requests), "prompt_chars": sum(r["chars"] for r in requests),
    }


def test_the_kit_workload_decides_and_scores_the_same_with_the_schedule_on_and_off(tmp_path):
    ahead, chain = kit_run(tmp_path / "ahead", True), kit_run(tmp_path / "chain", False)
    assert ahead["accepts"] == 2 and ahead["test"]["initial"] < ahead["test"]["best"]  # the kit's outcome: two accepted steps
    assert ahead == chain
