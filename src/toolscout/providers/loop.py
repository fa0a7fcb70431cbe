"""The agent loop every provider shares: prepare, ask the model, execute its calls, repeat.

A provider module supplies a `Wire`: how a request is built, how tool calls are read from a
response, and how the response and the results are appended to the conversation. The model is
any callable that takes the request dict and returns the response (a dict, an SDK object with
`model_dump()`, or an awaitable of either), so tests use scripted fakes and applications pass
`client.chat.completions.create` or `client.messages.create` through a small lambda.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolscout.protocol.definitions import ToolCall, ToolDefinition, ToolResult, result_text
from toolscout.protocol.processor import ToolSearch

ModelCall = Callable[[dict[str, Any]], Any]
"""Takes the request dict; returns the response (dict or SDK object), or an awaitable of it."""


@dataclass(frozen=True)
class Wire:
    """One provider's message shapes."""

    request: Callable[
        [Mapping[str, Any], Sequence[Any], Sequence[ToolDefinition], bool], dict[str, Any]
    ]
    """Builds a request from the params, the conversation, the tools and `native`."""
    tool_calls: Callable[[Mapping[str, Any]], list[ToolCall]]
    """Reads the tool calls out of a response."""
    with_response: Callable[[Sequence[Any], Mapping[str, Any]], list[Any]]
    """The conversation with the model's response appended."""
    with_results: Callable[[Sequence[Any], Sequence[ToolResult]], list[Any]]
    """The conversation with the tool results appended."""


@dataclass(frozen=True)
class LoopResult:
    """How a loop ended."""

    messages: list[Any]
    """The whole conversation, the model's last answer included."""
    response: dict[str, Any]
    """The model's last response, as a dict."""
    steps: int
    """Requests made to the model."""
    finished: bool
    """False when the loop stopped at `max_steps` with calls still pending."""


async def run(
    wire: Wire,
    model: ModelCall,
    tool_search: ToolSearch,
    thread_id: str | None,
    messages: Sequence[Any],
    *,
    request_context: Any = None,
    params: Mapping[str, Any] | None = None,
    tools: Sequence[Mapping[str, Any]] = (),
    handlers: Mapping[str, Callable[..., Any]] | None = None,
    native: bool = False,
    max_steps: int = 10,
) -> LoopResult:
    """Run the conversation until the model answers without calling a tool.

    Calls to `handlers` (tools passed in `tools`, outside the catalog) run there, with the
    arguments as keywords; every other call goes to `tool_search`.
    """
    conversation = list(messages)
    response: dict[str, Any] = {}
    for step in range(1, max_steps + 1):
        definitions = await tool_search.aprepare(
            thread_id, conversation, request_context, tools=tools, native=native
        )
        request = wire.request(params or {}, conversation, definitions, native)
        response = as_dict(await _maybe_await(model(request)))
        conversation = wire.with_response(conversation, response)
        calls = wire.tool_calls(response)
        if not calls:
            return LoopResult(conversation, response, step, True)
        results: list[ToolResult] = []
        for call in calls:
            if handlers and call.name in handlers and not tool_search.handles(call.name):
                results.append(await _run_handler(handlers[call.name], call))
                continue
            # Results so far are part of the conversation the next call is judged by.
            so_far = wire.with_results(conversation, results) if results else conversation
            results.append(
                await tool_search.aexecute(
                    call, thread_id, request_context, messages=so_far, native=native
                )
            )
        conversation = wire.with_results(conversation, results)
    return LoopResult(conversation, response, max_steps, False)


def run_sync(*args: Any, **kwargs: Any) -> LoopResult:
    """`run` for sync code."""
    return asyncio.run(run(*args, **kwargs))


def as_dict(response: Any) -> dict[str, Any]:
    """A response as a plain dict: SDK objects are `model_dump()`ed."""
    if isinstance(response, Mapping):
        return dict(response)
    dump = getattr(response, "model_dump", None)
    if callable(dump):
        dumped = dump()
        if isinstance(dumped, Mapping):
            return dict(dumped)
    raise TypeError(
        f"the model call returned {type(response).__name__}; return the response as a dict or "
        "an SDK object with model_dump()"
    )


def without_none(item: Any) -> Any:
    """A dict without its None values (SDK dumps carry them; APIs reject some)."""
    if isinstance(item, Mapping):
        return {key: value for key, value in item.items() if value is not None}
    return as_dict(item) if hasattr(item, "model_dump") else item


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


async def _run_handler(handler: Callable[..., Any], call: ToolCall) -> ToolResult:
    arguments, problem = call.parsed_arguments()
    if arguments is None:
        return ToolResult(call.id, call.name, f"Invalid call to {call.name}: {problem}.", True)
    try:
        value = await _maybe_await(handler(**arguments))
    except Exception as error:
        return ToolResult(call.id, call.name, f"{type(error).__name__}: {error}", True)
    return ToolResult(call.id, call.name, result_text(value), value=value)
