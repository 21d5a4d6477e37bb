"""The MCP server over stdio, on the official ``mcp`` SDK's low-level server.

The low-level server is used (not FastMCP / MCPServer) because the tools publish
hand-written closed schemas and report failures as ``isError`` results with our own
text; the high-level layer derives schemas from signatures and words errors itself.
The SDK changed the low-level registration API in 2.0 (handlers passed to the
constructor instead of decorators), so :func:`build_server` supports both shapes; the
rest of the package does not touch the SDK.
"""

from __future__ import annotations

from typing import Any

from skillopt_mcp import __version__
from skillopt_mcp.catalog import catalog
from skillopt_mcp.errors import ToolFailure
from skillopt_mcp.service import call_tool
from skillopt_mcp.spec import ToolSpec

SERVER_NAME = "skillopt"
INSTRUCTIONS = (
    "SkillOpt sleep learns from this developer's own coding-agent sessions: it mines the jobs they keep asking "
    "for and the corrections they keep making, replays them, and proposes small, validated edits to the "
    "project's skill and memory files. Typical flow: sleep_status -> sleep_dry_run or sleep_run -> sleep_diff "
    "-> show the diff to the user -> sleep_adopt with confirm: true only after the user explicitly agrees. "
    "sleep_rollback undoes an adoption. sleep_harvest mines tasks with no model call. Always pass the "
    "project's absolute path as project."
)


def tool_definitions(types) -> list:
    """MCP ``Tool`` records for every spec (``types`` is the SDK's types module)."""
    tools = []
    for spec in catalog().values():
        fields: dict[str, Any] = {
            "name": spec.name,
            "title": spec.title,
            "description": spec.description,
            "inputSchema": spec.input_schema(),
        }
        annotations = _annotations(types, spec)
        if annotations is not None:
            fields["annotations"] = annotations
        try:
            tools.append(types.Tool(**fields))
        except Exception:  # noqa: BLE001 - an old 1.x SDK without ``title`` (its error type varies)
            fields.pop("title")
            tools.append(types.Tool(**fields))
    return tools


def _annotations(types, spec: ToolSpec):
    make = getattr(types, "ToolAnnotations", None)
    if make is None:
        return None
    return make(
        title=spec.title,
        readOnlyHint=spec.read_only,
        destructiveHint=spec.destructive,
        idempotentHint=spec.idempotent,
        openWorldHint=spec.open_world,
    )


def build_server():
    """A low-level ``Server`` with the tools registered, for SDK 1.x or 2.x."""
    import mcp.types as types
    from mcp.server.lowlevel import Server

    if hasattr(Server, "call_tool"):
        return _build_v1(Server, types)
    return _build_v2(Server, types)


def _build_v2(Server, types):
    async def on_list_tools(ctx, params):
        return types.ListToolsResult(tools=tool_definitions(types))

    async def on_call_tool(ctx, params):
        try:
            text = await call_tool(params.name, params.arguments)
        except ToolFailure as failure:
            return types.CallToolResult(content=[types.TextContent(type="text", text=str(failure))], isError=True)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], isError=False)

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


def _build_v1(Server, types):
    try:
        server = Server(SERVER_NAME, version=__version__, instructions=INSTRUCTIONS)
    except TypeError:  # SDKs before instructions existed
        server = Server(SERVER_NAME, version=__version__)

    @server.list_tools()
    async def list_tools() -> list:
        return tool_definitions(types)

    try:  # our own validation runs either way; the SDK's would word errors differently
        register = server.call_tool(validate_input=False)
    except TypeError:
        register = server.call_tool()

    @register
    async def handle_call(name: str, arguments: dict | None):
        # 1.x turns any exception into an isError result carrying str(exception).
        text = await call_tool(name, arguments)
        return [types.TextContent(type="text", text=text)]

    return server


async def serve_stdio() -> None:
    from mcp.server.stdio import stdio_server

    server = build_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
