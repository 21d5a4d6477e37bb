"""Writing a planned home to disk, each session in its agent's real format.

The six harvested agents' writers (:mod:`..transcripts`, :mod:`..writers_logs`,
:mod:`..writers_db`) produce the same files those agents write; the SQLite stores are
left in WAL mode, as a running OpenCode or Copilot CLI keeps them, and one Codex
rollout ends with a line cut in half. The bundled fixture home is built by its own
module (:mod:`..home`) and described in the same terms here, so it is one home among
the generated ones.
"""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.experiments.homes.generate import BuiltHome, HomePlan, plan
from skillopt_sleep.experiments.homes.sets import HomeId
from skillopt_sleep.experiments.transcripts import write_claude, write_codex
from skillopt_sleep.experiments.writers_db import to_wal, write_copilot_store, write_opencode
from skillopt_sleep.experiments.writers_logs import write_copilot_cli, write_cursor, write_pi

WRITERS = {
    "claude-code": write_claude,
    "codex": lambda *a: write_codex(*a, exec_command=True),
    "copilot-cli": write_copilot_cli,
    "copilot-store": write_copilot_store,
    "cursor": write_cursor,
    "opencode": write_opencode,
    "pi": write_pi,
}
SOURCES = ("claude-code", "codex", "copilot-cli", "cursor", "opencode", "pi")


def roots(home: Path) -> dict[str, tuple[Path, ...]]:
    return {
        "claude-code": (home / ".claude" / "projects",),
        "codex": (home / ".codex" / "sessions",),
        "copilot-cli": (home / ".copilot",),
        "cursor": (home / ".cursor" / "projects",),
        "opencode": (home / ".local" / "share" / "opencode" / "opencode.db",),
        "pi": (home / ".pi" / "agent" / "sessions",),
    }


def write_home(planned: HomePlan, root: Path) -> BuiltHome:
    home = root / "home"
    projects = {}
    for project in planned.persona.projects:
        path = root / "work" / project.name
        path.mkdir(parents=True, exist_ok=True)
        name, text = planned.memory[project.name]
        (path / name).write_text(text, encoding="utf-8")
        projects[project.name] = path
    elsewhere = root / "work" / "scratch"
    elsewhere.mkdir(parents=True, exist_ok=True)
    for s in planned.sessions:
        where = projects.get(s.project, elsewhere)
        WRITERS[s.agent](home, where, s.sid, list(s.events), s.when)
    for db in (home / ".local" / "share" / "opencode" / "opencode.db", home / ".copilot" / "session-store.db"):
        if db.is_file():
            to_wal(db)
    rollouts = sorted((home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
    if rollouts:
        with rollouts[0].open("a", encoding="utf-8") as fh:  # a line cut in half by a crash
            fh.write('{"timestamp": "2025-10-02T10:00:00Z", "type": "event_msg", "payload": {"type": "agent_mes\n')
    return BuiltHome(plan=planned, home=home, projects=projects, roots=roots(home))


def build(home_id: HomeId, root: Path) -> BuiltHome:
    """Plan and write one home (the bundled fixture home for ``persona="bundled"``)."""
    if home_id.persona == "bundled":
        from skillopt_sleep.experiments.homes.bundled import build_bundled

        return build_bundled(home_id, root)
    return write_home(plan(home_id), root)
