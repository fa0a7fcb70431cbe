"""A server whose one tool answers with a text of the size it is asked for, to send results
larger than an HTTP transport's limits."""

from __future__ import annotations

from typing import Any

import mcp_types as types
from common import serve, text, tool
from mcp.server.lowlevel import Server

TOOLS = [
    tool(
        "text_of_size",
        "Answer with a text of the given number of bytes.",
        size={"type": "integer", "description": "Bytes of text."},
    )
]


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    size = int((params.arguments or {})["size"])
    return text("x" * size)


if __name__ == "__main__":
    serve(Server("sized", on_list_tools=list_tools, on_call_tool=call_tool))
