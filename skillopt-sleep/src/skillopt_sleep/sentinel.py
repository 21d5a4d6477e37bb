"""Recognising sleep's own replays so they are never harvested as user sessions.

Every prompt the engine sends (replay, judge, reflect, mine) carries :data:`SENTINEL`.
When a replay runs through an agent CLI (Claude Code, Codex, Copilot …) that CLI
writes its own transcript; the harvesters drop any session whose user text contains
the sentinel, so tonight's replays never become tomorrow's "user" tasks.
"""

from __future__ import annotations

SENTINEL = "[skillopt-sleep:engine-prompt v1]"

# Other automation whose sessions are not the developer's own work.
AGENT_MARKERS = (
    SENTINEL,
    "<skillopt_sleep_internal_replay_v1>",
    "You are driving **SkillOpt-Sleep**",
)


def is_engine_text(text: str) -> bool:
    """True when ``text`` was produced by (or for) the sleep engine itself."""
    return bool(text) and any(marker in text for marker in AGENT_MARKERS)


def mark(prompt: str) -> str:
    """``prompt`` with the sentinel as its first line (idempotent)."""
    return prompt if prompt.startswith(SENTINEL) else f"{SENTINEL}\n{prompt}"
