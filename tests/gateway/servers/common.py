"""What every test server shares: serving over stdio, over streamable HTTP with `--http
PORT`, or over the deprecated HTTP+SSE transport with `--sse PORT`; and building tools and
results in few words."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.sse import SseServerTransport
from mcp.server.stdio import stdio_server
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp


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


def serve(server: Server[Any], wrap: Callable[[ASGIApp], ASGIApp] | None = None) -> None:
    """Serve on stdio, on `--http PORT` (streamable HTTP at /mcp) or on `--sse PORT`
    (HTTP+SSE at /sse), until stopped. `wrap` puts ASGI middleware around the HTTP app."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, default=None)
    parser.add_argument("--sse", type=int, default=None)
    options, _ = parser.parse_known_args()
    init = server.create_initialization_options(NotificationOptions(tools_changed=True))

    async def main() -> None:
        if options.http is None and options.sse is None:
            async with stdio_server() as (read, write):
                await server.run(read, write, init)
            return
        if options.sse is not None:
            app, port = _sse_app(server, init), options.sse
        else:
            app, port = server.streamable_http_app(), options.http
        app = wrap(app) if wrap is not None else app
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
        await uvicorn.Server(config).serve()

    anyio.run(main)


def _sse_app(server: Server[Any], init: Any) -> ASGIApp:
    """The HTTP+SSE transport of the 2024-11-05 revision: events at /sse, posts at
    /messages/."""
    transport = SseServerTransport("/messages/")

    async def handle_sse(request: Request) -> Response:
        async with transport.connect_sse(request.scope, request.receive, request._send) as (
            read,
            write,
        ):
            await server.run(read, write, init)
        return Response()

    return Starlette(
        routes=[
            Route("/sse", endpoint=handle_sse, methods=["GET"]),
            Mount("/messages/", app=transport.handle_post_message),
        ]
    )
