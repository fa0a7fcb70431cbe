"""Running a catalog tool's Python handler for a call: sync or async, with the request
context, and a failure turned into a sentence the model can read."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolscout.catalog.tool import Tool

REQUEST_CONTEXT: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "toolscout_request_context", default=None
)
"""The request context of the call a handler is running for; `REQUEST_CONTEXT.get()` reads it.
A handler with a `request_context` parameter that its input schema does not declare also
receives it as that argument."""

logger = logging.getLogger("toolscout.protocol")


@dataclass(frozen=True)
class HandlerOutcome:
    """What running a handler gave: its value, or why it gave none."""

    value: Any = None
    error: str | None = None
    """A sentence for the model: no handler, or what the handler raised."""


async def run_handler(
    tool: Tool,
    wire_name: str,
    arguments: Mapping[str, Any],
    request_context: Any,
    *,
    inline_sync: bool,
) -> HandlerOutcome:
    """Run `tool`'s handler with `arguments` (already checked against its schema).

    Args:
        tool: The catalog tool.
        wire_name: The name the model called it by, for error sentences.
        arguments: The call's arguments.
        request_context: Set in `REQUEST_CONTEXT`, and passed to a handler that asks for it.
        inline_sync: Run a sync handler in this thread (`ToolSearch.execute`) rather than in
            a worker thread (`aexecute`, so that it does not block the event loop).
    """
    handler = tool.handler
    if handler is None:
        return HandlerOutcome(error=f"Tool {wire_name!r} has no handler in this process.")
    kwargs = dict(arguments)
    if _wants_request_context(handler, tool):
        kwargs["request_context"] = request_context
    token = REQUEST_CONTEXT.set(request_context)
    try:
        if inline_sync or _is_async(handler):
            value = handler(**kwargs)
        else:
            value = await asyncio.to_thread(functools.partial(handler, **kwargs))
        if inspect.isawaitable(value):
            value = await value
    except Exception as error:
        logger.info("tool %r failed", tool.id, exc_info=True)
        return HandlerOutcome(error=f"Tool {wire_name!r} failed: {type(error).__name__}: {error}")
    finally:
        REQUEST_CONTEXT.reset(token)
    return HandlerOutcome(value=value)


def _wants_request_context(handler: Any, tool: Tool) -> bool:
    properties = tool.input_schema.get("properties")
    if isinstance(properties, Mapping) and "request_context" in properties:
        return False
    try:
        return "request_context" in inspect.signature(handler).parameters
    except (TypeError, ValueError):
        return False


def _is_async(handler: Any) -> bool:
    return inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(
        getattr(handler, "__call__", None)  # noqa: B004 - an async callable object
    )
