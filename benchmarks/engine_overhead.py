"""Engine overhead: one epoch's wall time against the ideal critical path.

A local OpenAI-compatible server (real HTTP on 127.0.0.1, spoken to by the real
``openai`` SDK through the ``openai-compatible`` backend) answers every call after a
fixed delay. The engine's phases are sequential (baseline → per step: rollout, analysts,
merge, ranking, gate → test evaluations) and each phase's calls run in parallel, so the
ideal wall time is the sum over phases of ceil(calls / concurrency) × delay. The ratio
ideal / measured says how much the engine itself costs. Also reported: optimizer prompt
tokens per step.

    python benchmarks/engine_overhead.py [--delay 1.0] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "core" / "tests"))

from toy import ToyEnv, toy_optimizer, toy_target  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loopback import send_chat_completion, serve  # noqa: E402

STAGE_MARKERS = [
    ("You are the failure analyst", "analyst"),
    ("You are the success analyst", "analyst"),
    ("You merge", "merge"),
    ("You combine two merged", "merge"),
    ("You select which", "ranking"),
    ("Follow the skill.", "rollout"),
]


class SplitToyEnv(ToyEnv):
    """The toy env with the split in the prompt, so the server can tell phases apart."""

    name = "toy-bench"

    def rollout(self, task, skill, model, ctx):
        return super().rollout(task, skill, _Tagged(model, task.split), ctx)


class _Tagged:
    def __init__(self, model, split):
        self.model, self.split = model, split

    def complete(self, request):
        import attrs

        msgs = list(request.messages)
        msgs[-1] = attrs.evolve(msgs[-1], content=msgs[-1].content + f"\nSplit: {self.split}")
        return self.model.complete(attrs.evolve(request, messages=tuple(msgs)))


def make_server(delay: float):
    log: list[tuple[float, str]] = []
    lock = threading.Lock()
    optimizer = toy_optimizer()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            messages = [SimpleNamespace(role=m["role"], content=m["content"]) for m in body["messages"]]
            system = messages[0].content
            stage = next((s for marker, s in STAGE_MARKERS if system.startswith(marker)), "other")
            split = "val" if "Split: val" in messages[-1].content else "test" if "Split: test" in messages[-1].content else "train"
            fmt = body.get("response_format") or {}
            schema = (fmt.get("json_schema") or {}).get("schema") if fmt.get("type") == "json_schema" else fmt.get("schema")
            with lock:
                log.append((time.monotonic(), f"{stage}:{split}" if stage == "rollout" else stage))
            time.sleep(delay)
            req = SimpleNamespace(stage=stage, messages=messages, json_schema=schema)
            reply = toy_target(SimpleNamespace(messages=[messages[0], SimpleNamespace(content=messages[-1].content.split("\nSplit:")[0])])) \
                if stage == "rollout" else optimizer(req)
            text = reply if isinstance(reply, str) else json.dumps(reply)
            send_chat_completion(self, text, model=body.get("model", "bench"),
                                 prompt_tokens=sum(len(m.content) for m in messages) // 4)

    server = serve(Handler)
    return server, log


def ideal_seconds(log: list[tuple[float, str]], delay: float, concurrency: int) -> tuple[float, list[tuple[str, int]]]:
    """Sum over sequential phases (maximal runs of one stage label) of ceil(n / c) × delay."""
    phases: list[list] = []
    for _, label in sorted(log):
        if phases and phases[-1][0] == label:
            phases[-1][1] += 1
        else:
            phases.append([label, 1])
    return sum(math.ceil(n / concurrency) * delay for _, n in phases), [(p[0], p[1]) for p in phases]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()

    import attrs

    from skillopt.calls import Ledger
    from skillopt.config.schema import RunConfig
    from skillopt.engine.models import build_clients
    from skillopt.engine.trainer import Trainer
    from skillopt.registry import get

    server, log = make_server(args.delay)
    c = args.concurrency
    cfg = RunConfig()
    cfg = attrs.evolve(
        cfg,
        model=attrs.evolve(cfg.model, backend="openai-compatible", base_url=f"http://127.0.0.1:{server.server_port}/v1",
                           model="bench", cache="off", max_in_flight=c),
        train=attrs.evolve(cfg.train, num_epochs=1, batch_size=32),
        gradient=attrs.evolve(cfg.gradient, minibatch_size=4, analyst_workers=c),
        optimizer=attrs.evolve(cfg.optimizer, use_slow_update=False, use_meta_skill=False, learning_rate=3, min_learning_rate=3),
        env=SplitToyEnv.Config(workers=c, n_train=64, n_val=32, n_test=32),
    )
    ledger = Ledger()
    clients, _ = build_clients(cfg, ledger=ledger)
    # Warm-up outside the timed epoch: SDK import and first connection are paid once per
    # process, whatever the run's length; they are not engine overhead.
    from skillopt.records import CompletionRequest, Message

    for client in clients.values():
        client.complete(CompletionRequest(messages=(Message(role="system", content="warm-up"), Message(role="user", content="hi")), max_tokens=4))
    log.clear()
    with tempfile.TemporaryDirectory() as out:
        trainer = Trainer(cfg=cfg, env=SplitToyEnv(cfg.env), target=clients["target"], optimizer=clients["optimizer"],
                          policy=get("edit_policies", "patch").obj(), gate=get("gates", "strict").obj(cfg.evaluation),
                          out_dir=Path(out), ledger=ledger)
        started = time.monotonic()
        summary = trainer.train()
        wall = time.monotonic() - started
    server.shutdown()
    ideal, phases = ideal_seconds(log, args.delay, c)
    first_call = min(t for t, _ in log) - started if log else 0.0
    result = {
        "delay_s": args.delay,
        "concurrency": c,
        "calls": len(log),
        "phases": len(phases),
        "measured_wall_s": round(wall, 3),
        "startup_before_first_call_s": round(first_call, 3),
        "ideal_wall_s": round(ideal, 3),
        "efficiency_ideal_over_measured": round(ideal / wall, 3),
        "optimizer_prompt_tokens_per_step": summary.optimizer_prompt_tokens_per_step,
        "steps": summary.steps_completed,
        "test_best_hard": summary.test["best"].hard,
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
