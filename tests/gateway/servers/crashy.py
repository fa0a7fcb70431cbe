"""A server that crashes: `crash` ends its process mid-call. With $CRASHY_STARTS set, each
start appends a line to that file; with $CRASHY_EXIT_AT_START set, it exits at once."""

from __future__ import annotations

import os
import sys
from typing import Any

# Before the imports, which take seconds on a busy machine: a start that fails, fails at once.
if __name__ == "__main__":
    if os.environ.get("CRASHY_STARTS"):
        with open(os.environ["CRASHY_STARTS"], "a", encoding="utf-8") as file:
            file.write("start\n")
    if os.environ.get("CRASHY_EXIT_AT_START"):
        print("crashy: cannot start (CRASHY_EXIT_AT_START is set)", file=sys.stderr)
        raise SystemExit(4)

import mcp_types as types
from common import serve, text, tool
from mcp.server.lowlevel import Server

TOOLS = [tool("crash", "End this server's process."), tool("ping", "Answer pong.")]


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    if params.name == "crash":
        os._exit(3)
    return text("pong")


if __name__ == "__main__":
    serve(Server("crashy", on_list_tools=list_tools, on_call_tool=call_tool))
