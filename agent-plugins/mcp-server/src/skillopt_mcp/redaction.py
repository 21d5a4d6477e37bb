"""The last check before anything reaches the agent: no secret in a tool's output.

``skillopt sleep`` redacts transcripts at ingestion and the CLI masks secrets in its
error messages, so this layer should find nothing. It exists because an MCP result is
read by a model and may be logged by the client: results get the core's
secret-shaped patterns and secret-named keys, error text additionally gets sleep's
wider transcript scrubber (entropy included). The entropy check is not applied to
results because they are full of ids (session ids, hashes) it would mask for nothing.
"""

from __future__ import annotations

from typing import Any


def redact_result(data: Any) -> Any:
    """A copy of a command's JSON result with secret-named keys and secret-shaped text masked."""
    from skillopt.api import redact_data

    return redact_data(data)


def redact_message(message: str) -> str:
    """Error text with every known and pattern-shaped secret masked."""
    from skillopt_sleep.redaction import scrub

    return scrub(message)
