"""A clock server whose `now` tool asks to be always loaded (`_meta["anthropic/alwaysLoad"]`).

With `--modern-only` over HTTP it speaks only the 2026-07-28 revision (`common.serve`).
"""

from __future__ import annotations

import os
from datetime import date, timedelta
from typing import Any

import mcp_types as types
from common import serve, text, tool
from mcp.server.lowlevel import Server

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


if __name__ == "__main__":
    server = Server("clock", on_list_tools=list_tools, on_call_tool=call_tool)
    serve(server)
