"""What every test server shares: serving over stdio, over streamable HTTP with `--http
PORT` (and `--modern-only`: in the 2026-07-28 revision alone), or over the deprecated
HTTP+SSE transport with `--sse PORT`; and building tools and results in few words."""

from __future__ import annotations

import argparse
import json
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
from starlette.types import ASGIApp, Message, Receive, Scope, Send


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
    """Serve on stdio, on `--http PORT` (streamable HTTP at /mcp, in the 2026-07-28 revision
    alone with `--modern-only`) or on `--sse PORT` (HTTP+SSE at /sse), until stopped; the
    server says it sends `notifications/tools/list_changed`, or what `notifications` says."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, default=None)
    parser.add_argument("--sse", type=int, default=None)
    parser.add_argument("--modern-only", action="store_true")
    options, _ = parser.parse_known_args()
    init = server.create_initialization_options(
        notifications or NotificationOptions(tools_changed=True)
    )

    async def main() -> None:
        if options.http is None and options.sse is None:
            async with stdio_server() as (read, write):
                await server.run(read, write, init)
            return
        if options.sse is not None:
            app, port = _sse_app(server, init), options.sse
        else:
            app, port = server.streamable_http_app(), options.http
        app = modern_only(app) if options.modern_only else app
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


def modern_only(app: ASGIApp) -> ASGIApp:
    """`initialize` refused with UNSUPPORTED_PROTOCOL_VERSION; everything else passed on."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        messages: list[Message] = []
        body = b""
        while True:
            message = await receive()
            messages.append(message)
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        try:
            request = json.loads(body)
        except ValueError:
            request = None
        if isinstance(request, dict) and request.get("method") == "initialize":
            error = {
                "code": types.UNSUPPORTED_PROTOCOL_VERSION,
                "message": "this server speaks 2026-07-28 only",
                "data": {"supported": ["2026-07-28"], "requested": "initialize"},
            }
            reply = json.dumps({"jsonrpc": "2.0", "id": request.get("id"), "error": error})
            await send(
                {
                    "type": "http.response.start",
                    "status": 400,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await send({"type": "http.response.body", "body": reply.encode()})
            return

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await app(scope, replay, send)

    return guarded
