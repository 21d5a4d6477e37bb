"""Fake agent CLIs on a temp PATH (see agent_clis/fake_agent.py), and backends on them."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path
from typing import Any

import attrs

FAKE = Path(__file__).parent / "agent_clis" / "fake_agent.py"
COMMANDS = {
    "claude-cli": ("claude", "claude"),
    "codex-cli": ("codex", "codex"),
    "cursor-cli": ("cursor", "cursor-agent"),
    "copilot-cli": ("copilot", "copilot"),
    "opencode-cli": ("opencode", "opencode"),
    "pi-cli": ("pi", "pi"),
}


@attrs.define
class FakeCli:
    """One fake CLI: its executable, its state directory, and backends that use it."""

    backend: str
    flavor: str
    executable: Path
    state: Path

    def script(self, *actions: dict[str, Any]) -> None:
        (self.state / "plan.json").write_text(json.dumps(list(actions)))

    def omit_from_help(self, *flags: str) -> None:
        (self.state / "help_omits.json").write_text(json.dumps(list(flags)))

    def calls(self) -> list[dict[str, Any]]:
        log = self.state / "calls.jsonl"
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    def make(self, **kw: Any):
        from skillopt.backends import BackendSettings
        from skillopt.registry import get

        options = {"path": str(self.executable), **kw.pop("options", {})}
        cls = get("backends", self.backend).obj
        return cls(BackendSettings(name=self.backend, options=options, **kw))


def install_fake(backend: str, root: Path) -> FakeCli:
    flavor, command = COMMANDS[backend]
    bindir, state = root / "bin", root / f"state-{flavor}"
    bindir.mkdir(parents=True, exist_ok=True)
    state.mkdir(parents=True, exist_ok=True)
    exe = bindir / command
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" {flavor} "{state}" "$@"\n')
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return FakeCli(backend=backend, flavor=flavor, executable=exe, state=state)
