"""The Anthropic Messages API: tools, tool calls and tool results as plain dicts.

With `native=True`, deferred loading is Anthropic's own: every deferred tool the filter allows
is sent with `"defer_loading": true` (the API keeps it out of the model's context), and the
client-side `search_tools` answers with `tool_reference` blocks, which the API expands into
the found tools' definitions. The `tools` list stays byte-identical between steps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolscout.catalog.export import to_anthropic
from toolscout.protocol.definitions import ToolCall, ToolDefinition, ToolResult
from toolscout.protocol.processor import ToolSearch
from toolscout.providers.loop import LoopResult, ModelCall, Wire, run, run_sync, without_none


def tools(definitions: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """The definitions as Anthropic tools; pass-through ones as they were given."""
    converted = []
    for definition in definitions:
        if definition.raw is not None:
            converted.append(definition.raw)
            continue
        if definition.tool is not None:
            tool = to_anthropic(definition.tool)
            tool["name"] = definition.name
        else:
            tool = {
                "name": definition.name,
                "description": definition.description,
                "input_schema": definition.input_schema,
            }
        if definition.defer_loading:
            tool["defer_loading"] = True
            # The API refuses cache_control on a deferred tool.
            tool.pop("cache_control", None)
        converted.append(tool)
    return converted


def tool_calls(response: Mapping[str, Any]) -> list[ToolCall]:
    """The `tool_use` blocks of a `messages.create` response, in order."""
    return [
        ToolCall(
            name=str(block.get("name", "")), arguments=block.get("input") or {}, id=block.get("id")
        )
        for block in response.get("content") or ()
        if block.get("type") == "tool_use"
    ]


def assistant_message(response: Mapping[str, Any]) -> dict[str, Any]:
    """The model's turn, ready to append to `messages`."""
    return {
        "role": "assistant",
        "content": [without_none(block) for block in response.get("content") or ()],
    }


def result_message(results: Sequence[ToolResult]) -> dict[str, Any]:
    """One user message with a `tool_result` block per result; a native search's result holds
    `tool_reference` blocks, or its notice when it found nothing."""
    blocks = []
    for result in results:
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": result.call_id}
        if result.loaded_tools:
            block["content"] = [
                {"type": "tool_reference", "tool_name": definition.name}
                for definition in result.loaded_tools
            ]
        else:
            block["content"] = result.content
        if result.is_error:
            block["is_error"] = True
        blocks.append(block)
    return {"role": "user", "content": blocks}


def request(
    params: Mapping[str, Any],
    messages: Sequence[Any],
    definitions: Sequence[ToolDefinition],
    native: bool = False,
) -> dict[str, Any]:
    """A `messages.create` request: `params` (model, max_tokens, system...), the messages and
    the tools."""
    body = {**params, "messages": list(messages)}
    converted = tools(definitions)
    if converted:
        body["tools"] = converted
    return body


WIRE = Wire(
    request=request,
    tool_calls=tool_calls,
    with_response=lambda messages, response: [*messages, assistant_message(response)],
    with_results=lambda messages, results: [*messages, result_message(results)],
)


async def arun_loop(
    model: ModelCall,
    tool_search: ToolSearch,
    thread_id: str | None,
    messages: Sequence[Any],
    **options: Any,
) -> LoopResult:
    """Run a Messages API conversation with tool search until the model stops calling tools.
    `options` are those of `toolscout.providers.loop.run` (`native`, `request_context`,
    `params`, `tools`, `handlers`, `max_steps`)."""
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
