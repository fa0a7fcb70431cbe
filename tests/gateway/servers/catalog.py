"""A server whose tools are read from a JSON file of MCP tool definitions (`python catalog.py
tools.json`); a call answers with its tool's name and arguments. The benchmarks run several,
to put thousands of tools behind the gateway."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
from common import serve, text
from mcp.server.lowlevel import Server

TOOLS = [types.Tool.model_validate(item) for item in json.loads(Path(sys.argv[1]).read_text())]


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    return text(json.dumps({"tool": params.name, "arguments": params.arguments or {}}))


if __name__ == "__main__":
    serve(Server("catalog", on_list_tools=list_tools, on_call_tool=call_tool))
