"""The same run on threads and on Ray (a local Ray with two workers), against a loopback server.

Why: the ``ray`` executor moves rollouts to worker processes and books their model calls
on the driver (every cache lookup, reservation, reply and cache store crosses Ray to the
driver and back). This measures what that costs on upstream's SearchQA workload shape
(``upstream_workload.py``: 40/20/20 items, the real CLI in a subprocess, the ``openai``
SDK over HTTP to a server answering after ``--latency`` seconds), and checks that the run
ends identically: the same step decisions, candidate skills, scores and ledger.

Reported: wall time of each run and their ratio; start-up (process start to the first
target request: Ray's start and the workers' set-up are in it); the rest of the run per
rollout item; each rollout's own duration (``duration_s``: on Ray it includes the
worker's four bookkeeping round trips to the driver per call); and, to weigh the design,
one bookkeeping round trip through the gateway actor against one plain actor call.

    python benchmarks/ray_executor.py [--latency 0.2] [--workers 24] [--repeats 1]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import upstream_workload


def decisions(run: Path) -> list:
    history = json.loads((run / "history.json").read_text())
    return [(h["step"], h["action"], h["candidate_hash"], h["selection_hard"]) for h in history if h.get("kind", "step") == "step"]


def item_durations(run: Path) -> list[float]:
    return [json.loads(line)["rollout"]["duration_s"] for path in run.rglob("results.jsonl")
            for line in path.read_text().splitlines() if line.strip()]


def one_run(latency: float, workers: int, extra: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="skillopt-ray-bench-") as tmp:
        work = Path(tmp)
        os.environ["HOME"] = str(work)  # a local Ray keeps its token under ~/.ray: this run's, not yours
        args = argparse.Namespace(latency=latency, scale=1, workers=workers, set=extra, profile="")
        got = upstream_workload.run_once(args, work)
        run = work / "run"
        durations = item_durations(run)
        return {
            "wall_s": got["wall_s"], "startup_s": got["startup_to_first_request_s"], "calls": got["calls"],
            "items": len(durations), "item_duration_ms": 1000 * statistics.mean(durations),
            "decisions": decisions(run), "best_skill": (run / "best_skill.md").read_text(), "outcome": got["outcome"],
            "ledger": Counter((run / "usage.jsonl").read_text().splitlines()),
        }


def round_trips(n: int = 300) -> dict:
    """Milliseconds of one bookkeeping call through the gateway and of one plain actor call."""
    import ray

    from skillopt.api import CallHost, ModelClient, ScriptedBackend
    from skillopt_executors_ray.gateway import GatewayLink, GatewayServer

    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
    try:
        host = CallHost(None)
        host.route(1, ModelClient(ScriptedBackend(), role="target", cache=None, cache_mode="off"))
        server = GatewayServer(ray, host)

        @ray.remote(num_cpus=0)
        class Caller:
            def ping(self):
                return None

            def through_gateway(self, gateway, n):
                link = GatewayLink(gateway)
                started = time.perf_counter()
                for _ in range(n):
                    link.call("cache_get", 1, "key")
                return (time.perf_counter() - started) / n

            def to_actor(self, other, n):
                started = time.perf_counter()
                for _ in range(n):
                    ray.get(other.ping.remote())
                return (time.perf_counter() - started) / n

        caller, other = Caller.remote(), Caller.remote()
        ray.get(caller.through_gateway.remote(server.actor, 20))  # warm up
        gateway_s = ray.get(caller.through_gateway.remote(server.actor, n))
        actor_s = ray.get(caller.to_actor.remote(other, n))
        server.close()
        return {"gateway_round_trip_ms": round(1000 * gateway_s, 3), "plain_actor_call_ms": round(1000 * actor_s, 3)}
    finally:
        ray.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the server sleeps before each reply")
    parser.add_argument("--workers", type=int, default=24, help="env.workers (rollouts in flight)")
    parser.add_argument("--repeats", type=int, default=1, help="runs per executor, alternating; timings are medians")
    args = parser.parse_args()
    runs: dict[str, list[dict]] = {"threads": [], "ray": []}
    for _ in range(args.repeats):
        runs["threads"].append(one_run(args.latency, args.workers, []))
        runs["ray"].append(one_run(args.latency, args.workers, ["engine.executor=ray", "executors.ray.local_cpus=2"]))
    med = {name: {key: statistics.median(r[key] for r in got) for key in ("wall_s", "startup_s", "item_duration_ms")}
           for name, got in runs.items()}
    items = runs["threads"][0]["items"]
    rest = {name: med[name]["wall_s"] - med[name]["startup_s"] for name in med}
    first_t, first_r = runs["threads"][0], runs["ray"][0]
    result = {
        "latency_s": args.latency, "workers": args.workers, "repeats": args.repeats, "ray_workers": 2,
        "calls": first_t["calls"], "rollout_items": items,
        "wall_s": {name: round(m["wall_s"], 3) for name, m in med.items()},
        "wall_ratio_ray_over_threads": round(med["ray"]["wall_s"] / med["threads"]["wall_s"], 3),
        "startup_s": {name: round(m["startup_s"], 3) for name, m in med.items()},
        "after_startup_overhead_ms_per_item": round(1000 * (rest["ray"] - rest["threads"]) / items, 2),
        "item_duration_ms": {name: round(m["item_duration_ms"], 2) for name, m in med.items()},
        "identical_outcome": all(r["decisions"] == first_t["decisions"] and r["best_skill"] == first_t["best_skill"]
                                 and r["outcome"]["test_best_hard"] == first_t["outcome"]["test_best_hard"]
                                 for r in runs["threads"] + runs["ray"]),
        "identical_ledger": all(r["ledger"] == first_t["ledger"] for r in runs["threads"] + runs["ray"]),
        "outcome": {k: v for k, v in first_r["outcome"].items() if k != "engine_wall_s"},
        **round_trips(),
    }
    if args.repeats > 1:
        result["wall_s_runs"] = {name: [round(r["wall_s"], 3) for r in got] for name, got in runs.items()}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
