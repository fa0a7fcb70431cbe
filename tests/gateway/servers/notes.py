"""A notes server: a `search` tool (as the files server has), rich results that must pass
through the gateway untouched, and tools that change its own tool list while connected."""

from __future__ import annotations

import os
from typing import Any

import mcp_types as types
from common import serve, text, tool
from mcp.server.lowlevel import Server

#: A 1x1 PNG.
IMAGE = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9a"
    "wAAAABJRU5ErkJggg=="
)
NOTES: dict[str, str] = {"groceries": "milk, eggs, flour"}
TOOLS: dict[str, types.Tool] = {
    t.name: t
    for t in [
        tool("search", "Search the notes for a word or phrase.", query="Words to look for."),
        tool("add_note", "Add a note with a title and a text.", title="Title.", text="Text."),
        tool("read_note", "Read a note by its title.", title="The note's title."),
        types.Tool(
            name="note_stats",
            title="Note statistics",
            description="Count the words of a note; returns text, an image and structured data.",
            input_schema={
                "type": "object",
                "properties": {"title": {"type": "string"}},
                "required": ["title"],
            },
            output_schema={
                "type": "object",
                "properties": {"title": {"type": "string"}, "words": {"type": "integer"}},
                "required": ["title", "words"],
            },
            annotations=types.ToolAnnotations(read_only_hint=True),
        ),
        tool(
            "archive_note",
            "Archive a note; always refuses, reporting an error result.",
            title="The note's title.",
        ),
        tool("server_pid", "Return the process id of the notes server."),
        tool("add_tool", "Add a tool to this server's list.", name="Name.", description="What."),
        tool("remove_tool", "Remove a tool from this server's list.", name="Name."),
        tool("describe_tool", "Change a tool's description.", name="Name.", description="What."),
    ]
}


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=list(TOOLS.values()))


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    arguments = params.arguments or {}
    name = params.name
    if name == "search":
        found = [title for title, body in NOTES.items() if arguments["query"] in body]
        return text(", ".join(found) or "no note matches")
    if name == "add_note":
        NOTES[arguments["title"]] = arguments["text"]
        return text(f"added {arguments['title']}")
    if name == "read_note":
        return text(NOTES.get(arguments["title"], "no such note"))
    if name == "note_stats":
        title = arguments["title"]
        words = len(NOTES.get(title, "").replace(",", " ").split())
        return types.CallToolResult(
            content=[
                types.TextContent(type="text", text=f"{title}: {words} words"),
                types.ImageContent(type="image", data=IMAGE, mime_type="image/png"),
            ],
            structured_content={"title": title, "words": words},
            _meta={"notes/source": "test"},
        )
    if name == "archive_note":
        return text(f"cannot archive {arguments['title']}: archive is read-only", error=True)
    if name == "server_pid":
        return text(str(os.getpid()))
    if name in ("add_tool", "describe_tool"):
        TOOLS[arguments["name"]] = tool(arguments["name"], arguments["description"])
    elif name == "remove_tool":
        TOOLS.pop(arguments["name"], None)
    else:
        return text(f"unknown tool {name}", error=True)
    await ctx.session.send_tool_list_changed()
    return text("done")


if __name__ == "__main__":
    serve(Server("notes", on_list_tools=list_tools, on_call_tool=call_tool))
