"""The one failure a tool reports: a message for the model, never a traceback."""

from __future__ import annotations


class ToolFailure(Exception):
    """A tool call that could not do its job; the message is returned as an MCP tool error.

    The message is redacted before it leaves the server (see :mod:`skillopt_mcp.redaction`).
    """
