"""Coding-agent CLIs (Claude Code, Codex, Cursor, Copilot, OpenCode, pi) used as chat backends.

They let a developer train or run ``skillopt sleep`` on a subscription they already
pay for, with no API key. Each call is one headless CLI run in a throwaway working
directory, with tools disabled where the CLI allows it, a scrubbed environment and
its own process group, so a timeout or a closed backend kills the whole agent.
"""
