"""A model pair behind a real OpenAI Chat Completions endpoint on 127.0.0.1, for runs on Ray.

What is real: the wire protocol (the backend tests' protocol server, with its checks and
its count of requests in flight), the ``openai`` SDK inside the ``openai-compatible``
backend, the SearchQA env, the engine, Ray. What stands in: the model behind the socket
is the scripted SearchQA pair of ``benchmarks/upstream_workload.py`` — the target
answers an item right only when the skill holds its kind's rule token, and the optimizer
proposes the tokens of the kinds it sees failing — so a run's outcome is known and must
not depend on where its rollouts ran.

Each request also records the process that sent it (found from its TCP port in /proc
while the connection is open), and one item's first request can be held (the test then
kills the worker that sent it).
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "skillopt-backends" / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from servers.base import Reply  # noqa: E402
from servers.openai_protocol import OpenAIServer  # noqa: E402
from upstream_workload import RULES, STAGE_MARKERS, TARGET_SYSTEM, make_workload, optimizer_reply  # noqa: E402

API_KEY = "sk-ray-test-0123456789abcdef"
MODEL = "searchqa-script"
SIZES = {"train": 16, "val": 12, "test": 8}


class SearchQAModelServer(OpenAIServer):
    """The scripted SearchQA target and optimizer (see the module doc)."""

    def __init__(self, data_dir: Path, *, latency: float = 0.0):
        super().__init__(api_key=API_KEY, models=(MODEL,))
        self.items = make_workload(data_dir, SIZES)
        self.latency = latency
        self.senders: list[tuple[str, int | None]] = []  # (clue or "optimizer", pid of the sending process) per request
        self._pids: dict[int, int | None] = {}  # client port -> pid (connections are kept alive)
        self._local = threading.local()
        self.hold_question = ""  # the first target request for this clue waits for release
        self.held = threading.Event()
        self.release = threading.Event()

    def _serve(self, h, method):
        self._local.port = h.client_address[1]
        super()._serve(h, method)

    def _respond(self, rec, action):
        body = rec.body if isinstance(rec.body, dict) else {}
        clue = self._clue(body) if "messages" in body else ""
        port = self._local.port
        pid = self._pids.get(port) or pid_of_port(port)  # looked up while the sender's socket is open
        with self._lock:
            self._pids[port] = pid
            self.senders.append((clue or "optimizer", pid))
            first_of_held = clue and clue == self.hold_question and not self.held.is_set()
            if first_of_held:
                self.held.set()
        if first_of_held:
            self.release.wait(60)  # the test kills the worker that sent it meanwhile
        if self.latency:
            time.sleep(self.latency)
        return super()._respond(rec, action)

    @staticmethod
    def _clue(body: dict) -> str:
        msgs = [m for m in body["messages"] if isinstance(m.get("content"), str)]
        if not msgs[0]["content"].startswith(TARGET_SYSTEM) or body.get("response_format"):
            return ""
        found = re.search(r"^Clue: (.*)$", msgs[-1]["content"], re.MULTILINE)
        return found.group(1).strip() if found else ""

    def handle(self, rec, action):
        if action is None and isinstance(rec.body, dict) and "messages" in rec.body:
            action = Reply(text=self.reply(rec.body))
        return super().handle(rec, action)

    def reply(self, body: dict) -> str:
        msgs = [m for m in body["messages"] if isinstance(m.get("content"), str)]
        system = msgs[0]["content"]
        clue = self._clue(body)
        if clue:
            item = self.items.get(clue)
            if item is None:
                return "Answer: unknown"
            right = RULES[item["task_type"]] in system or item["_lucky"]
            return f"The matching snippet names it.\nAnswer: {item['answers'][0] if right else item['_wrong']}"
        fmt = body.get("response_format") or {}
        schema = (fmt.get("json_schema") or {}).get("schema")
        stage = next((s for marker, s in STAGE_MARKERS if system.startswith(marker)), "other")
        got = optimizer_reply(stage, "\n".join(m["content"] for m in msgs), schema)
        return got if isinstance(got, str) else json.dumps(got)

    def question_of(self, split: str, index: int = 0) -> str:
        return [q for q, item in self.items.items() if item["split"] == split][index]


def pid_of_port(port: int) -> int | None:
    """The process holding the local TCP socket on ``port`` (Linux: /proc), or None."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[9] != "0":
                inodes.add(fields[9])
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:[") and link[8:-1] in inodes:
                    return int(pid)
        except OSError:
            continue
    return None
