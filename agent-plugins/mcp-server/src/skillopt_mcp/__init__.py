"""SkillOpt MCP server: ``skillopt sleep`` as tools for coding agents.

Run ``skillopt-mcp`` (or ``python -m skillopt_mcp``) as a stdio MCP server. Each tool
runs one ``skillopt … --json`` command and returns its JSON; see ``catalog.py``.
"""

__version__ = "0.1.0"
