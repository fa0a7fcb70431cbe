"""A library server: books as resources (and a template for any title), a cover as a binary
resource, prompts with arguments, completions for both, subscriptions, and log messages.
Its tools change its lists and its books while connected, so that a test can see the
notifications pass; `crash` ends its process. Reading `library://slow` (not listed) reports
progress, then waits until it is cancelled, which `cancelled` tells. On the 2026-07-28
revision (`--http PORT --modern-only`) its changes and updates go on `subscriptions/listen`
streams."""

from __future__ import annotations

import os
import warnings
from typing import Any

import anyio
import mcp_types as types
from common import serve, text, tool
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ServerEvent,
)
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

warnings.simplefilter("ignore", MCPDeprecationWarning)

BOOKS: dict[str, str] = {"dune": "Spice and sand.", "emma": "A matchmaker in Highbury."}
#: A 1x1 PNG.
COVER = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9a"
    "wAAAABJRU5ErkJggg=="
)
PROMPTS: dict[str, types.Prompt] = {
    "summarize": types.Prompt(
        name="summarize",
        title="Summarize a book",
        description="Summarize a book of the library in a given style.",
        arguments=[
            types.PromptArgument(name="title", description="The book.", required=True),
            types.PromptArgument(name="style", description="Short or long."),
        ],
    )
}
STYLES = ["short", "long", "limerick"]
SUBSCRIBED: set[str] = set()
#: Where the changes go for clients of the 2026-07-28 revision.
BUS = InMemorySubscriptionBus()
CANCELLED: list[str] = []
LEVEL: list[str] = []
TOOLS = [
    tool("add_book", "Add a book to the library.", title="Title.", text="Its text."),
    tool("revise_book", "Change a book's text.", title="Title.", text="Its new text."),
    tool("add_prompt", "Add a prompt.", name="Its name."),
    tool("subscriptions", "The URIs the client is subscribed to."),
    tool("log_level", "The log level the client set."),
    tool("log", "Send a log message.", message="What to log.", level="Its level."),
    tool("crash", "End the server's process."),
    tool("cancelled", "The reads that were cancelled."),
]


def uri(title: str) -> str:
    return f"library://books/{title}"


async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
    books = [
        types.Resource(uri=uri(title), name=title, description=f"The book {title}.")
        for title in BOOKS
    ]
    cover = types.Resource(uri="library://cover.png", name="cover", mime_type="image/png")
    return types.ListResourcesResult(resources=[*books, cover])


async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
    template = types.ResourceTemplate(
        uri_template="library://books/{title}", name="book", description="Any book by title."
    )
    return types.ListResourceTemplatesResult(resource_templates=[template])


async def read_resource(
    ctx: Any, params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    if params.uri == "library://cover.png":
        contents: list[Any] = [
            types.BlobResourceContents(uri=params.uri, blob=COVER, mime_type="image/png")
        ]
        return types.ReadResourceResult(contents=contents)
    if params.uri == "library://slow":
        await ctx.session.report_progress(0, None, "reading")
        try:
            await anyio.sleep_forever()
        finally:
            CANCELLED.append(params.uri)
    title = params.uri.removeprefix("library://books/")
    if title not in BOOKS:
        raise MCPError(-32002, f"no such book: {title}")
    await ctx.session.report_progress(1, 1, "read")
    await ctx.session.send_log_message("info", f"read {title}", "library", ctx.request_id)
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=params.uri, text=BOOKS[title])]
    )


async def subscribe(ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
    SUBSCRIBED.add(params.uri)
    return types.EmptyResult()


async def unsubscribe(ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
    SUBSCRIBED.discard(params.uri)
    return types.EmptyResult()


async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=list(PROMPTS.values()))


async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    if params.name not in PROMPTS:
        raise MCPError(types.INVALID_PARAMS, f"no such prompt: {params.name}")
    arguments = params.arguments or {}
    title = arguments.get("title", "")
    style = arguments.get("style", "short")
    return types.GetPromptResult(
        description=f"{params.name} of {title}",
        messages=[
            types.PromptMessage(
                role="user",
                content=types.TextContent(type="text", text=f"Summarize {title}, {style}."),
            )
        ],
    )


async def complete(ctx: Any, params: types.CompleteRequestParams) -> types.CompleteResult:
    value = params.argument.value
    if isinstance(params.ref, types.PromptReference) and params.argument.name == "style":
        options = STYLES
    else:
        options = sorted(BOOKS)
    return types.CompleteResult(
        completion=types.Completion(values=[o for o in options if o.startswith(value)])
    )


async def set_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
    LEVEL[:] = [params.level]
    return types.EmptyResult()


async def changed(ctx: Any, event: ServerEvent) -> None:
    """Tell the client: with a notification, or on the 2026-07-28 revision on its listen
    streams."""
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        await BUS.publish(event)
    elif isinstance(event, ResourcesListChanged):
        await ctx.session.send_resource_list_changed()
    elif isinstance(event, PromptsListChanged):
        await ctx.session.send_prompt_list_changed()
    elif isinstance(event, ResourceUpdated) and event.uri in SUBSCRIBED:
        await ctx.session.send_resource_updated(event.uri)


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    arguments = params.arguments or {}
    if params.name == "add_book":
        BOOKS[arguments["title"]] = arguments["text"]
        await changed(ctx, ResourcesListChanged())
    elif params.name == "revise_book":
        BOOKS[arguments["title"]] = arguments["text"]
        await changed(ctx, ResourceUpdated(uri(arguments["title"])))
    elif params.name == "add_prompt":
        PROMPTS[arguments["name"]] = types.Prompt(name=arguments["name"])
        await changed(ctx, PromptsListChanged())
    elif params.name == "subscriptions":
        return text(", ".join(sorted(SUBSCRIBED)))
    elif params.name == "log_level":
        return text(LEVEL[0] if LEVEL else "none")
    elif params.name == "log":
        level = arguments["level"]
        await ctx.session.send_log_message(level, arguments["message"], "library", ctx.request_id)
    elif params.name == "crash":
        os._exit(1)
    elif params.name == "cancelled":
        return text(", ".join(CANCELLED))
    else:
        return text(f"unknown tool {params.name}", error=True)
    return text("done")


if __name__ == "__main__":
    serve(
        Server(
            "library",
            on_list_tools=list_tools,
            on_call_tool=call_tool,
            on_list_resources=list_resources,
            on_list_resource_templates=list_templates,
            on_read_resource=read_resource,
            on_subscribe_resource=subscribe,
            on_unsubscribe_resource=unsubscribe,
            on_list_prompts=list_prompts,
            on_get_prompt=get_prompt,
            on_completion=complete,
            on_set_logging_level=set_level,
            on_subscriptions_listen=ListenHandler(BUS),
        ),
        NotificationOptions(tools_changed=True, prompts_changed=True, resources_changed=True),
    )
