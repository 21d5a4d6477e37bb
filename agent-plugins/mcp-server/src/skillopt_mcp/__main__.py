"""``skillopt-mcp`` / ``python -m skillopt_mcp``: serve the tools over stdio.

stdout carries the MCP protocol, so nothing else may print there; ``--version`` and
``--list-tools`` are for a person checking the install from a terminal.
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> None:
    from skillopt_mcp import __version__

    parser = argparse.ArgumentParser(
        prog="skillopt-mcp",
        description="MCP server (stdio) exposing `skillopt sleep` to coding agents. Started by the agent, not by hand.",
    )
    parser.add_argument("--version", action="version", version=f"skillopt-mcp {__version__}")
    parser.add_argument("--list-tools", action="store_true", help="Print the tool names and exit.")
    args = parser.parse_args(argv)
    if args.list_tools:
        from skillopt_mcp.catalog import catalog

        for spec in catalog().values():
            print(f"{spec.name}\t{spec.title}")
        return

    import anyio

    from skillopt_mcp.server import serve_stdio

    try:
        anyio.run(serve_stdio)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
