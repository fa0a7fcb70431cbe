"""A clock server whose `now` tool asks to be always loaded (`_meta["anthropic/alwaysLoad"]`).

With `--modern-only` over HTTP it speaks only the 2026-07-28 revision: `initialize` is
answered with the error that names the versions it speaks, as a server of that revision
alone answers it.
"""

from __future__ import annotations

import json
import os
import sys
from datetime import date, timedelta
from typing import Any

import mcp_types as types
from common import serve, text, tool
from mcp.server.lowlevel import Server
from starlette.types import ASGIApp, Message, Receive, Scope, Send

NOW = tool("now", "The current date.")
NOW.meta = {"anthropic/alwaysLoad": True}
TOOLS = [
    NOW,
    tool("add_days", "Add days to a date.", day="A date, YYYY-MM-DD.", days={"type": "integer"}),
    tool("server_pid", "The process id of the clock server."),
]
TODAY = "2026-11-05"


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    arguments = params.arguments or {}
    if params.name == "now":
        return text(TODAY)
    if params.name == "add_days":
        day = date.fromisoformat(arguments["day"]) + timedelta(days=int(arguments["days"]))
        return text(day.isoformat())
    if params.name == "server_pid":
        return text(str(os.getpid()))
    return text(f"unknown tool {params.name}", error=True)


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


if __name__ == "__main__":
    server = Server("clock", on_list_tools=list_tools, on_call_tool=call_tool)
    serve(server, wrap=modern_only if "--modern-only" in sys.argv else None)
