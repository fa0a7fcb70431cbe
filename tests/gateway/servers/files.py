"""A files server, with a `search` tool named like the notes server's."""

from __future__ import annotations

from typing import Any

import mcp_types as types
from common import serve, text, tool
from mcp.server.lowlevel import Server

FILES = {"readme.md": "# Project\nHow to build it.", "todo.txt": "write tests"}
TOOLS = [
    tool("search", "Search file contents in the workspace.", pattern="Text to find in files."),
    tool("read_file", "Read a text file from the workspace.", path="File path."),
    tool("write_file", "Write text to a file in the workspace.", path="File path.", text="Text."),
    tool("delete_file", "Delete a file from the workspace.", path="File path."),
]


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    arguments = params.arguments or {}
    if params.name == "search":
        return text(", ".join(p for p, body in FILES.items() if arguments["pattern"] in body))
    if params.name == "read_file":
        return text(
            FILES.get(arguments["path"], "no such file"), error=arguments["path"] not in FILES
        )
    if params.name == "write_file":
        FILES[arguments["path"]] = arguments["text"]
        return text(f"wrote {arguments['path']}")
    if params.name == "delete_file":
        FILES.pop(arguments["path"], None)
        return text(f"deleted {arguments['path']}")
    return text(f"unknown tool {params.name}", error=True)


if __name__ == "__main__":
    serve(Server("files", on_list_tools=list_tools, on_call_tool=call_tool))
