"""A slow server: `wait` takes as long as asked, reporting progress; `hang` never answers.
A cancelled call is written to the file named by $SLOW_LOG, so a test can see that the
cancellation reached it."""

from __future__ import annotations

import os
from typing import Any

import anyio
import mcp_types as types
from common import serve, text, tool
from mcp.server.lowlevel import Server

TOOLS = [
    tool(
        "wait",
        "Wait a number of seconds, then answer.",
        seconds={"type": "number", "description": "How long."},
    ),
    tool("hang", "Never answer."),
    tool("server_pid", "Return the process id of the slow server."),
]


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    if params.name == "server_pid":
        return text(str(os.getpid()))
    try:
        if params.name == "wait":
            seconds = float((params.arguments or {})["seconds"])
            steps = max(1, int(seconds / 0.1))
            for step in range(steps):
                await anyio.sleep(seconds / steps)
                await ctx.session.report_progress(step + 1, steps, "waiting")
            return text(f"waited {seconds:g} s")
        await anyio.sleep_forever()
    except anyio.get_cancelled_exc_class():
        log = os.environ.get("SLOW_LOG")
        if log:
            with open(log, "a", encoding="utf-8") as file:
                file.write(f"cancelled {params.name}\n")
        raise
    return text("unreachable", error=True)


if __name__ == "__main__":
    serve(Server("slow", on_list_tools=list_tools, on_call_tool=call_tool))
