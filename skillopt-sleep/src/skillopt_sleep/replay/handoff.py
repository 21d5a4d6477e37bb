"""``handoff``: a backend that asks a person's subscription agent instead of an API.

Each request becomes ``prompts/<key>.md`` (redacted) in the handoff directory; the
agent (for example Claude Code driving ``/skillopt-sleep-handoff``) writes its reply to
``answers/<key>.md``. An unanswered request raises :class:`HandoffPending`; the cycle
collects every pending prompt of a stage, writes ``PROMPTS.md``, exits with code 3,
and re-running the same command resumes: answered prompts are read back (and cached),
so each round gets further. Answering agents see the engine sentinel in every
prompt, so their own sessions are never harvested.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

from skillopt.api import AwaitingAnswer, Backend, BackendSettings, Completion, CompletionRequest, hookimpl
from skillopt_sleep.fsutil import ensure_dir, read_json, write_atomic, write_json
from skillopt_sleep.redaction import scrub

HANDOFF_ENV = "SKILLOPT_SLEEP_HANDOFF_DIR"


class HandoffPending(AwaitingAnswer):
    """The prompt is waiting for an answer file; not retryable within this run (the
    engine pauses a run on it once the stage has asked all its prompts)."""


class HandoffWaiting(Exception):
    """A night stopped its round: prompts were written for the handoff agent (listed in
    ``index``); re-running the same command resumes."""

    def __init__(self, index: Path, count: int):
        super().__init__(f"{count} prompt(s) waiting for answers: see {index}")
        self.index = index
        self.count = count


def prompt_key(request: CompletionRequest) -> str:
    blob = json.dumps(
        {"messages": [[m.role, m.content] for m in request.messages], "schema": request.json_schema, "seed": request.seed},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


class HandoffBackend(Backend):
    name = "handoff"
    summary = "writes prompts to files for a subscription agent to answer; re-running resumes"
    default_model = "agent"

    def __init__(self, settings: BackendSettings | None = None):
        super().__init__(settings or BackendSettings(name="handoff", model="agent"))
        configured = self.settings.options.get("dir") or os.environ.get(HANDOFF_ENV)
        if configured:
            self.dir = Path(configured).expanduser()
        else:
            from skillopt.api import state_dir

            self.dir = state_dir() / "sleep" / "handoff"
        self._lock = threading.Lock()

    def identity(self) -> dict:
        return {"backend": self.name, "model": self.settings.model or "agent", "dir": str(self.dir)}

    def complete(self, request: CompletionRequest) -> Completion:
        key = prompt_key(request)
        answer = self.dir / "answers" / f"{key}.md"
        if answer.is_file():
            text = answer.read_text(encoding="utf-8")
            return Completion(text=text.strip(), model=self.settings.model or "agent")
        self._record(key, request)
        raise HandoffPending(f"handoff prompt {key} is waiting for answers/{key}.md", backend=self.name)

    def _record(self, key: str, request: CompletionRequest) -> None:
        with self._lock:
            ensure_dir(self.dir / "answers")
            body = "\n\n".join(f"### {m.role}\n\n{scrub(m.content)}" for m in request.messages)
            if request.json_schema is not None:
                body += (
                    "\n\n### reply format\n\nReply with only one JSON object matching:\n\n```json\n"
                    + json.dumps(request.json_schema, indent=2)
                    + "\n```"
                )
            write_atomic(self.dir / "prompts" / f"{key}.md", body + "\n")
            pending = read_json(self.dir / "pending.json", default={}) or {}
            pending[key] = {"stage": request.stage, "prompt": f"prompts/{key}.md", "answer": f"answers/{key}.md"}
            write_json(self.dir / "pending.json", pending)

    def pending(self) -> dict:
        data = read_json(self.dir / "pending.json", default={}) or {}
        return {k: v for k, v in data.items() if not (self.dir / "answers" / f"{k}.md").is_file()}

    def write_index(self) -> Path:
        """``PROMPTS.md``: what the answering agent must do, one line per pending prompt."""
        pending = self.pending()
        lines = [
            "# skillopt sleep: prompts waiting for answers",
            "",
            "Answer each prompt in a fresh context (a subagent), following it exactly.",
            "Write the reply, and nothing else, to the answer file named next to it; then re-run the same",
            "`skillopt sleep` command. It resumes where it stopped.",
            "",
        ]
        lines += [f"- `{v['prompt']}` → `{v['answer']}` ({v['stage']})" for v in pending.values()]
        path = self.dir / "PROMPTS.md"
        write_atomic(path, "\n".join(lines) + "\n")
        return path


def archive(directory: Path, night: int) -> Path:
    """Move a finished night's handoff directory to ``handoff-done/night-NNNN`` (its
    answered prompts and pinned tasks stay reviewable) and return where it went. A number
    already taken — the state was reset, so night numbers start over, or two projects
    share the directory — gets the next free suffix (``night-NNNN-2`` …), never an error."""
    import errno

    done = Path(directory).parent / "handoff-done"
    ensure_dir(done)
    for n in range(1, 1000):
        target = done / (f"night-{night:04d}" if n == 1 else f"night-{night:04d}-{n}")
        if target.exists():
            continue
        try:
            Path(directory).rename(target)
            return target
        except OSError as exc:  # taken between the check and the move
            if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                raise
    raise OSError(errno.EEXIST, f"no free name for night {night} under {done}")


def handoff_backend(clients) -> HandoffBackend | None:
    """The handoff backend behind either role of a night's clients, if any."""
    for role in ("target", "optimizer"):
        backend = getattr(getattr(clients, role, None), "backend", None)
        if isinstance(backend, HandoffBackend):
            return backend
    return None


@hookimpl
def skillopt_register_backends(register):
    register(HandoffBackend)
