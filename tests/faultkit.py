"""A fault-injecting model service on 127.0.0.1, and trainers that reach it over HTTP.

What is real: the OpenAI Chat Completions wire protocol (the backend tests' protocol
server), the ``openai`` SDK inside the ``openai-compatible`` backend, the call
pipeline (retries, schema re-asks, cache, ledger), the engine. What stands in: the
model behind the socket answers as the toy pair of ``core/tests/toy.py`` does (the
target solves a puzzle kind only when the skill holds its rule; the optimizer proposes
the missing rules), so a run's outcome is known, and faults are injected per request
by rules a test installs (HTTP 503 for a while, slow replies, broken JSON, cut-off
replies).
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "skillopt-backends" / "tests"))
sys.path.insert(0, str(ROOT / "core" / "tests"))

from servers.base import Fail, Reply, Slow  # noqa: E402
from servers.openai_protocol import OpenAIServer  # noqa: E402

from skillopt.records import CompletionRequest, Message  # noqa: E402

API_KEY = "sk-fault-test-0123456789abcdef"
MODEL = "toy-model"

#: a fault rule: (kind "target"/"optimizer", request body, user text, system text) -> an action or None
Fault = Callable[[str, dict, str, str], Any]


def sniff_stage(user: str, schema: dict | None) -> str:
    props = set((schema or {}).get("properties", {}))
    if "slow_update_content" in props:
        return "slow_update"
    if "meta_skill_content" in props:
        return "meta_skill"
    if "selected_indices" in props:
        return "ranking"
    if "## Proposals" in user:
        return "merge"
    if "trajectories (" in user:
        return "analyst"
    return "other"


class ToyModelServer(OpenAIServer):
    """The toy target and optimizer behind a real Chat Completions endpoint."""

    def __init__(self, optimizer_script=None, target_script=None):
        super().__init__(api_key=API_KEY, models=(MODEL,))
        from test_epoch import epoch_script
        from toy import toy_target

        self.optimizer_script = optimizer_script or epoch_script()
        self.target_script = target_script or toy_target
        self.faults: list[Fault] = []
        self.by_kind: Counter[str] = Counter()
        self._count_lock = threading.Lock()

    def request_of(self, body: dict) -> tuple[str, CompletionRequest]:
        messages = tuple(Message(role=m["role"], content=m["content"] if isinstance(m["content"], str) else str(m["content"]))
                         for m in body["messages"])
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
        kind = "optimizer" if body.get("response_format") else "target"
        stage = sniff_stage(messages[-1].content, schema) if kind == "optimizer" else "rollout"
        return kind, CompletionRequest(messages=messages, json_schema=schema, stage=stage, role=kind)

    def _respond(self, rec, action):
        if action is None and isinstance(rec.body, dict) and "messages" in rec.body:
            kind, request = self.request_of(rec.body)
            with self._count_lock:
                self.by_kind[kind] += 1
            for fault in list(self.faults):
                got = fault(kind, rec.body, request.messages[-1].content, request.messages[0].content)
                if got is not None:
                    action = got
                    break
        while isinstance(action, Slow):
            time.sleep(action.seconds)
            action = action.then
        return super()._respond(rec, action)

    def handle(self, rec, action):
        if action is None and isinstance(rec.body, dict) and "messages" in rec.body:
            kind, request = self.request_of(rec.body)
            reply = (self.target_script if kind == "target" else self.optimizer_script)(request)
            if isinstance(reply, Reply):
                action = reply
            else:
                action = Reply(data=reply) if isinstance(reply, (dict, list)) else Reply(text=str(reply))
        return super().handle(rec, action)


def outage(status: int = 503, *, kinds: tuple[str, ...] = ("target", "optimizer")) -> Fault:
    """Every request of these kinds fails (until the rule is removed)."""
    return lambda kind, body, user, system: Fail(status, "The server is overloaded.") if kind in kinds else None


def fail_first(n: int, match: Callable[[str, dict, str, str], bool], status: int = 503) -> Fault:
    """The first ``n`` attempts of each distinct matching request fail; then it answers."""
    seen: Counter[str] = Counter()
    lock = threading.Lock()

    def rule(kind, body, user, system):
        if not match(kind, body, user, system):
            return None
        key = f"{kind}\x1f{system}\x1f{user}"
        with lock:
            seen[key] += 1
            failing = seen[key] <= n
        return Fail(status, "Service temporarily unavailable") if failing else None

    return rule


def http_clients(base_url: str, ledger, *, max_retries: int = 2, cache=None, timeout_s: float = 10.0):
    """(target, optimizer) clients on the openai-compatible backend, with fast backoff."""
    from skillopt.backends import BackendSettings
    from skillopt.calls import ModelClient, RetryPolicy
    from skillopt_backends.openai_compatible import OpenAICompatibleBackend

    retry = RetryPolicy(max_retries=max_retries, base_delay_s=0.01, max_delay_s=0.05)
    out = []
    for role in ("target", "optimizer"):
        backend = OpenAICompatibleBackend(BackendSettings(name="openai-compatible", role=role, model=MODEL, base_url=base_url,
                                                          api_key=API_KEY, timeout_s=timeout_s))
        out.append(ModelClient(backend, role=role, ledger=ledger, cache=cache, cache_mode="read-write" if cache else "off",
                               retry=retry, seed=42))
    return tuple(out)


def toy_trainer(out: Path, base_url: str, *, ledger=None, max_retries: int = 2, cache=None, timeout_s: float = 10.0, **sections):
    """A trainer on the toy env whose two models are the server at ``base_url``, over HTTP."""
    from engine_helpers import make_config
    from toy import ToyEnv

    from skillopt.calls import Ledger
    from skillopt.engine.trainer import Trainer
    from skillopt.registry import get

    sections.setdefault("train", {"num_epochs": 2, "batch_size": 8})
    sections.setdefault("optimizer", {"use_slow_update": True, "use_meta_skill": True, "slow_update_samples": 6,
                                      "learning_rate": 2, "min_learning_rate": 1})
    sections.setdefault("env", {"workers": 4, "n_val": 16})  # enough val items for the paired gate to accept two rules
    cfg = make_config(**sections)
    ledger = ledger or Ledger(max_calls=cfg.budget.max_calls)
    target, optimizer = http_clients(base_url, ledger, max_retries=max_retries, cache=cache, timeout_s=timeout_s)
    trainer = Trainer(cfg=cfg, env=ToyEnv(cfg.env), target=target, optimizer=optimizer,
                      policy=get("edit_policies", cfg.optimizer.skill_update_mode).obj(),
                      gate=get("gates", cfg.evaluation.gate).obj(cfg.evaluation), out_dir=out, ledger=ledger)
    trainer.runner.heal_pause_s = 0.05
    return trainer


def outcome(out: Path) -> dict:
    """What must not change between a faulty run and a fault-free one."""
    import json

    history = [h for h in json.loads((out / "history.json").read_text()) if h.get("kind", "step") == "step"]
    summary = json.loads((out / "summary.json").read_text())
    return {
        "best": (out / "best_skill.md").read_text(),
        "history": [(h["step"], h["action"], h["candidate_hash"], h["selection_hard"], h["n_edits_applied"]) for h in history],
        "verdicts": [(h["verdict"] or {}).get("reason") for h in history],
        "val": summary["val"],
        "test": {k: v["hard"] for k, v in summary["test"].items()},
        "status": summary["status"],
    }
