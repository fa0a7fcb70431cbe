"""What every test server shares: serving over stdio, or over streamable HTTP with `--http
PORT`, and building tools and results in few words."""

from __future__ import annotations

import argparse
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.stdio import stdio_server


def tool(name: str, description: str, /, **properties: Any) -> types.Tool:
    """A tool whose parameters are all required strings unless given as schemas."""
    schemas = {
        key: value if isinstance(value, dict) else {"type": "string", "description": value}
        for key, value in properties.items()
    }
    return types.Tool(
        name=name,
        description=description,
        input_schema={"type": "object", "properties": schemas, "required": list(schemas)},
    )


def text(value: str, *, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=value)], is_error=error
    )


def serve(server: Server[Any], notifications: NotificationOptions | None = None) -> None:
    """Serve on stdio, or on `--http PORT` (streamable HTTP at /mcp), until stopped; the
    server says it sends `notifications/tools/list_changed`, or what `notifications` says."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, default=None)
    options, _ = parser.parse_known_args()
    init = server.create_initialization_options(
        notifications or NotificationOptions(tools_changed=True)
    )

    async def main() -> None:
        if options.http is None:
            async with stdio_server() as (read, write):
                await server.run(read, write, init)
            return
        app = server.streamable_http_app()
        config = uvicorn.Config(app, host="127.0.0.1", port=options.http, log_level="warning")
        await uvicorn.Server(config).serve()

    anyio.run(main)
