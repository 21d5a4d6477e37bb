"""Acceptance of the ``ray`` executor on a real two-node Ray cluster (see conftest.py).

Every run is the real ``skillopt run`` (SearchQA, the ``openai-compatible`` backend and the
``openai`` SDK over HTTP to the scripted model of searchqa_model.py); the reference is the
same run on threads. What must hold: the same decisions, candidate skills, scores and
ledger wherever the rollouts ran; a worker killed mid-item changes nothing; a killed
driver resumes; the in-flight limit and the call budget are the run's, not a worker's.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections import Counter
from pathlib import Path

import pytest
from raykit import run_skillopt, start_skillopt
from searchqa_model import SearchQAModelServer

#: a failure is run again twice (pytest-rerunfailures): on a loaded 2-core machine a Ray beside
#: another failed about 1 run in 3 and passed when run again; a real fault fails all three
pytestmark = [pytest.mark.ray, pytest.mark.flaky(reruns=2, reruns_delay=5)]


def outcome(out: Path) -> dict:
    """What must not depend on where rollouts ran."""
    history = [h for h in json.loads((out / "history.json").read_text()) if h.get("kind", "step") == "step"]
    summary = json.loads((out / "summary.json").read_text())
    return {
        "steps": [(h["step"], h["action"], h["candidate_hash"], h["selection_hard"], h["n_edits_applied"]) for h in history],
        "best": (out / "best_skill.md").read_text(),
        "val": summary["val"],
        "test": {k: (v["hard"], v["soft"], v["n"]) for k, v in summary["test"].items()},
        "status": summary["status"],
    }


def ledger(out: Path) -> Counter:
    """usage.jsonl as a multiset of lines (order differs with concurrency)."""
    return Counter((out / "usage.jsonl").read_text().splitlines())


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The run on threads, with its server's view."""
    tmp = tmp_path_factory.mktemp("threads")
    server = SearchQAModelServer(tmp / "data").start()
    try:
        done = run_skillopt(tmp / "run", server, "model.max_in_flight=2")
        assert done.returncode == 0, done.stderr[-3000:]
        return {"out": tmp / "run", "outcome": outcome(tmp / "run"), "requests": server.count}
    finally:
        server.stop()


@pytest.fixture(scope="module")
def on_ray(tmp_path_factory, ray_cluster):
    """The same run on the cluster's two workers, the loopback model answering after 0.1 s."""
    tmp = tmp_path_factory.mktemp("ray")
    server = SearchQAModelServer(tmp / "data", latency=0.1).start()
    try:
        done = run_skillopt(tmp / "run", server, "model.max_in_flight=2", "engine.executor=ray",
                            f"engine.ray_address={ray_cluster}")
        assert done.returncode == 0, done.stderr[-3000:]
        return {"out": tmp / "run", "server": server, "stderr": done.stderr, "driver": done.pid}
    finally:
        server.stop()


def test_threads_and_ray_decide_score_and_book_identically(reference, on_ray):
    got = outcome(on_ray["out"])
    assert got == reference["outcome"]
    assert got["status"] == "finished" and any(step[1].startswith("accept") for step in got["steps"])
    assert ledger(on_ray["out"]) == ledger(reference["out"])  # every worker call in the driver's usage.jsonl
    assert on_ray["server"].count == reference["requests"]


def test_rollouts_ran_on_the_cluster_workers_and_the_optimizer_on_the_driver(on_ray):
    target = Counter(pid for clue, pid in on_ray["server"].senders if clue != "optimizer")
    optimizer = {pid for clue, pid in on_ray["server"].senders if clue == "optimizer"}
    assert optimizer == {on_ray["driver"]}
    assert len(target) == 2 and on_ray["driver"] not in target and None not in target  # the two worker actors
    assert all(n >= 10 for n in target.values())


def test_the_in_flight_limit_holds_across_workers(on_ray):
    # 2 workers x 3 items each could put 6 requests in flight; model.max_in_flight=2 is the run's
    assert on_ray["server"].max_in_flight == 2


def ray_settings(address: str) -> tuple[str, ...]:
    return ("model.max_in_flight=2", "engine.executor=ray", f"engine.ray_address={address}")


def test_a_worker_killed_mid_item_has_the_item_retried_elsewhere_and_nothing_changes(tmp_path, ray_cluster, reference):
    server = SearchQAModelServer(tmp_path / "data").start()
    held = server.hold_question = server.question_of("val", 3)  # a baseline val item's first request waits
    try:
        driver = start_skillopt(tmp_path / "run", server, *ray_settings(ray_cluster))
        assert server.held.wait(90), "the held item was never asked"
        victim = next(pid for clue, pid in server.senders if clue == held)
        assert victim not in (None, driver.pid)  # a worker process, not the driver
        os.kill(victim, signal.SIGKILL)
        server.release.set()  # its connection is gone: the reply reaches nobody
        stdout, stderr = driver.communicate(timeout=120)
    finally:
        server.stop()
    assert driver.returncode == 0, stderr[-3000:]
    out = tmp_path / "run"
    assert outcome(out) == reference["outcome"]
    asked_by = [pid for clue, pid in server.senders if clue == held]
    assert asked_by[0] == victim and asked_by[1] not in (victim, driver.pid)  # retried on the other worker
    assert "died while running" in stderr and "retrying the item on another worker" in stderr
    keys = [json.loads(line)["key"] for line in (out / "gate_baseline" / "results.jsonl").read_text().splitlines()]
    assert sorted(keys) == sorted(set(keys))  # the lost attempt left no result, the retry one
    extra = ledger(out) - ledger(reference["out"])
    # the lost attempts' books stay (reservations, answers they may have been paid for; a retry
    # of an answered one is a cache hit); everything else is the reference's, line for line
    assert extra['["b","target/gate","baseline"]'] >= 1
    assert all(line.startswith(('["b","target/gate","baseline"]', '["ok","target/gate","baseline"', '["h","target/gate","baseline"]'))
               for line in extra)
    assert not ledger(reference["out"]) - ledger(out)


def test_a_killed_driver_resumes_from_the_run_directory(tmp_path, ray_cluster, reference):
    server = SearchQAModelServer(tmp_path / "data", latency=0.05).start()
    out = tmp_path / "run"
    try:
        driver = start_skillopt(out, server, *ray_settings(ray_cluster))
        deadline = time.monotonic() + 90
        while server.count < 30 and time.monotonic() < deadline:  # past the baseline, inside step 1
            time.sleep(0.05)
        os.kill(driver.pid, signal.SIGKILL)
        driver.communicate(timeout=30)
        killed_at = server.count
        assert 30 <= killed_at < reference["requests"]
        again = run_skillopt(out, server, *ray_settings(ray_cluster))
    finally:
        server.stop()
    assert again.returncode == 0, again.stderr[-3000:]
    assert "resuming" in again.stderr
    assert outcome(out) == reference["outcome"]
    reserved = sum(n for line, n in ledger(out).items() if line.startswith('["b"'))
    assert reserved >= server.count  # every request the provider got was reserved in usage.jsonl first


def test_the_call_budget_holds_across_workers(tmp_path, ray_cluster):
    server = SearchQAModelServer(tmp_path / "data").start()
    try:
        done = run_skillopt(tmp_path / "run", server, *ray_settings(ray_cluster), "budget.max_calls=25")
    finally:
        server.stop()
    summary = json.loads(done.stdout)
    assert done.returncode == 3 and summary["status"] == "budget_exhausted", done.stderr[-2000:]
    reserved = sum(n for line, n in ledger(tmp_path / "run").items() if line.startswith('["b"'))
    assert server.count == reserved <= 25
