"""OpenAI Responses: tools, tool calls and tool results as plain dicts.

With `native=True`, tool search is the provider's own: the request carries a
`{"type": "tool_search", "execution": "client"}` tool instead of `search_tools`, the model
answers with a `tool_search_call` item, and toolscout answers it with a `tool_search_output`
item holding the found tools' definitions (marked `defer_loading`), which the model can call
from then on. The `tools` list stays byte-identical for the whole conversation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolscout.catalog.export import to_openai_responses
from toolscout.protocol.definitions import ToolCall, ToolDefinition, ToolResult
from toolscout.protocol.processor import ToolSearch
from toolscout.providers.loop import LoopResult, ModelCall, Wire, run, run_sync, without_none

#: The name a native search call is given as a `ToolCall`.
TOOL_SEARCH = "tool_search"


def tools(definitions: Sequence[ToolDefinition], *, native: bool = False) -> list[dict[str, Any]]:
    """The definitions as Responses tools. With `native`, the search meta-tool becomes the
    client-executed `tool_search` tool, and deferred tools are left out: they arrive in
    `tool_search_output` items when found."""
    converted = []
    for definition in definitions:
        if definition.raw is not None:
            converted.append(definition.raw)
        elif definition.defer_loading:
            continue
        elif native and definition.kind == "meta":
            converted.append(
                {
                    "type": "tool_search",
                    "execution": "client",
                    "description": definition.description,
                    "parameters": definition.input_schema,
                }
            )
        else:
            converted.append(function_tool(definition))
    return converted


def function_tool(definition: ToolDefinition, *, defer_loading: bool = False) -> dict[str, Any]:
    """One definition as a Responses function tool."""
    if definition.tool is not None:
        tool = to_openai_responses(definition.tool)
        tool["name"] = definition.name
    else:
        tool = {"type": "function", **definition.as_function(), "strict": False}
    if defer_loading:
        tool["defer_loading"] = True
    return tool


def tool_calls(response: Mapping[str, Any]) -> list[ToolCall]:
    """The `function_call` and client `tool_search_call` items of a `responses.create`
    response, in order."""
    calls = []
    for item in response.get("output") or ():
        kind = item.get("type")
        if kind == "function_call":
            calls.append(
                ToolCall(
                    name=str(item.get("name", "")),
                    arguments=item.get("arguments") or "{}",
                    id=item.get("call_id"),
                )
            )
        elif kind == "tool_search_call" and item.get("execution") == "client":
            calls.append(
                ToolCall(
                    name=TOOL_SEARCH,
                    arguments=item.get("arguments") or {},
                    id=item.get("call_id"),
                    native_search=True,
                )
            )
    return calls


def output_items(response: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The response's output items, to append to `input` for the next request."""
    return [without_none(item) for item in response.get("output") or ()]


def result_items(results: Sequence[ToolResult]) -> list[dict[str, Any]]:
    """A `function_call_output` item per result, or a `tool_search_output` item for a
    native search."""
    items = []
    for result in results:
        if result.native_search:
            items.append(
                {
                    "type": "tool_search_output",
                    "call_id": result.call_id,
                    "execution": "client",
                    "status": "completed",
                    "tools": [
                        function_tool(definition, defer_loading=True)
                        for definition in result.loaded_tools
                    ],
                }
            )
        else:
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": result.call_id,
                    "output": result.content,
                }
            )
    return items


def request(
    params: Mapping[str, Any],
    messages: Sequence[Any],
    definitions: Sequence[ToolDefinition],
    native: bool = False,
) -> dict[str, Any]:
    """A `responses.create` request: `params` (model, instructions...), the input items and
    the tools."""
    body = {**params, "input": list(messages)}
    converted = tools(definitions, native=native)
    if converted:
        body["tools"] = converted
    return body


WIRE = Wire(
    request=request,
    tool_calls=tool_calls,
    with_response=lambda messages, response: [*messages, *output_items(response)],
    with_results=lambda messages, results: [*messages, *result_items(results)],
)


async def arun_loop(
    model: ModelCall,
    tool_search: ToolSearch,
    thread_id: str | None,
    messages: Sequence[Any],
    **options: Any,
) -> LoopResult:
    """Run a Responses conversation with tool search until the model stops calling tools.
    `messages` are input items; `options` are those of `toolscout.providers.loop.run`
    (`native`, `request_context`, `params`, `tools`, `handlers`, `max_steps`)."""
    return await run(WIRE, model, tool_search, thread_id, messages, **options)


def run_loop(
    model: ModelCall,
    tool_search: ToolSearch,
    thread_id: str | None,
    messages: Sequence[Any],
    **options: Any,
) -> LoopResult:
    """`arun_loop` for sync code."""
    return run_sync(WIRE, model, tool_search, thread_id, messages, **options)
