"""OpenAI Chat Completions: tools, tool calls and tool results as plain dicts.

Chat Completions has no deferred loading of its own, so every mode works through the
meta-tools; `native=True` is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolscout.catalog.export import to_openai_chat
from toolscout.protocol.definitions import ToolCall, ToolDefinition, ToolResult
from toolscout.protocol.processor import ToolSearch
from toolscout.providers.loop import LoopResult, ModelCall, Wire, run, run_sync, without_none


def tools(definitions: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """The definitions as Chat Completions tools; pass-through ones as they were given."""
    converted = []
    for definition in definitions:
        if definition.raw is not None:
            converted.append(definition.raw)
            continue
        if definition.defer_loading:
            raise ValueError("Chat Completions has no deferred loading: prepare without native")
        if definition.tool is not None:
            tool = to_openai_chat(definition.tool)
            tool["function"]["name"] = definition.name
        else:
            tool = {"type": "function", "function": definition.as_function()}
        converted.append(tool)
    return converted


def tool_calls(response: Mapping[str, Any]) -> list[ToolCall]:
    """The tool calls of a `chat.completions.create` response (its first choice)."""
    message = _message(response)
    calls = []
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        calls.append(
            ToolCall(
                name=str(function.get("name", "")),
                arguments=function.get("arguments") or "{}",
                id=call.get("id"),
            )
        )
    return calls


def assistant_message(response: Mapping[str, Any]) -> dict[str, Any]:
    """The model's message, ready to append to `messages`."""
    message = without_none(_message(response))
    message.setdefault("role", "assistant")
    if not message.get("tool_calls"):
        message.pop("tool_calls", None)
    return dict(message)


def result_messages(results: Sequence[ToolResult]) -> list[dict[str, Any]]:
    """One `{"role": "tool"}` message per result."""
    return [
        {"role": "tool", "tool_call_id": result.call_id, "content": result.content}
        for result in results
    ]


def request(
    params: Mapping[str, Any],
    messages: Sequence[Any],
    definitions: Sequence[ToolDefinition],
    native: bool = False,
) -> dict[str, Any]:
    """A `chat.completions.create` request: `params` (model, temperature...), the messages and
    the tools."""
    if native:
        raise ValueError("Chat Completions has no deferred loading: run without native=True")
    body = {**params, "messages": list(messages)}
    converted = tools(definitions)
    if converted:
        body["tools"] = converted
    return body


WIRE = Wire(
    request=request,
    tool_calls=tool_calls,
    with_response=lambda messages, response: [*messages, assistant_message(response)],
    with_results=lambda messages, results: [*messages, *result_messages(results)],
)


async def arun_loop(
    model: ModelCall,
    tool_search: ToolSearch,
    thread_id: str | None,
    messages: Sequence[Any],
    **options: Any,
) -> LoopResult:
    """Run a Chat Completions conversation with tool search until the model stops calling
    tools. `model` takes the request dict (see `request`) and returns the response; `options`
    are those of `toolscout.providers.loop.run` (`request_context`, `params`, `tools`,
    `handlers`, `max_steps`)."""
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


def _message(response: Mapping[str, Any]) -> Mapping[str, Any]:
    choices = response.get("choices") or [{}]
    message = choices[0].get("message") if isinstance(choices[0], Mapping) else None
    return message if isinstance(message, Mapping) else {}
