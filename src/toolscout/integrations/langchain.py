"""LangChain / LangGraph: tool search as agent middleware for `create_agent`.

`ToolScoutMiddleware(settings)` searches the tools the agent has (`create_agent(tools=[...])`)
with toolscout. Before each model call it sends the `always_available` tools, toolscout's
meta-tools and the tools this conversation has discovered, instead of every tool; each tool
call goes through toolscout first (discovery, the argument check, the filter), then to the
agent's own tool node, so tool errors, injected arguments and `Command`s behave as usual.
Discoveries are read from the messages (so a summarization that trims them forgets them),
or kept in a store per LangGraph `thread_id`.

`catalog_from_tools(tools)` wraps `BaseTool`s into a `Catalog` whose handlers invoke them,
for graphs that run `ToolSearch` themselves.

A filter receives `runtime.context` (the agent's `context_schema` object) as its request
context.
"""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import Awaitable, Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolscout.catalog.catalog import Catalog
from toolscout.catalog.tool import Tool
from toolscout.config.models import ToolSearchSettings
from toolscout.errors import require_extra
from toolscout.integrations._mirror import CatalogMirror
from toolscout.protocol.definitions import ToolCall, ToolDefinition
from toolscout.protocol.policy import ToolPolicy
from toolscout.protocol.processor import ToolSearch

with require_extra("langchain", feature="toolscout.integrations.langchain"):
    from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langchain_core.tools import BaseTool, StructuredTool
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from langgraph.config import get_config
    from langgraph.prebuilt.tool_node import ToolCallRequest
    from langgraph.types import Command

__all__ = ["ToolScoutMiddleware", "catalog_from_tools"]

logger = logging.getLogger("toolscout.integrations")

ToolOutcome = ToolMessage | Command[Any]


def catalog_from_tools(tools: Iterable[BaseTool], *, namespace: str | None = None) -> Catalog:
    """A `Catalog` of LangChain tools; each tool's handler invokes it with the arguments."""
    return Catalog([_as_tool(tool, _invoker(tool), namespace) for tool in tools])


def langgraph_thread_id() -> str | None:
    """The default thread id: `configurable.thread_id` of the running LangGraph graph."""
    try:
        configurable = get_config().get("configurable") or {}
    except RuntimeError:  # outside a graph
        return None
    thread_id = configurable.get("thread_id")
    return str(thread_id) if thread_id is not None else None


@dataclass
class _Call:
    """The tool call being executed, for the handler that runs the agent's real tool."""

    request: ToolCallRequest
    handler: Callable[[ToolCallRequest], Any]
    tools: Mapping[str, BaseTool]
    outcome: ToolOutcome | None = None
    raised: list[BaseException] = field(default_factory=list)


_CURRENT_CALL: contextvars.ContextVar[_Call] = contextvars.ContextVar("toolscout_langchain")


class ToolScoutMiddleware(AgentMiddleware[Any, Any, Any]):
    """toolscout tool search for `create_agent`, in any of toolscout's modes.

    `create_agent(model, tools=[...], middleware=[ToolScoutMiddleware(settings)])`.

    Args:
        settings: Mode, engine, limits, `always_available` and store. With `enabled: false`
            every tool is sent as it is.
        filter: `filter(tool, runtime.context, phase)`, sync or async.
        thread_id: The conversation, for a store; LangGraph's `thread_id` by default.
    """

    def __init__(
        self,
        settings: ToolSearchSettings | None = None,
        *,
        filter: ToolPolicy | None = None,
        thread_id: Callable[[], str | None] = langgraph_thread_id,
    ) -> None:
        super().__init__()
        self.settings = settings or ToolSearchSettings(enabled=True)
        self.settings.refuse_auto("the LangChain middleware")
        self.filter = filter
        self.thread_id = thread_id
        self._mirror = CatalogMirror(_agent_tool, _tool_key)
        self._search: ToolSearch | None = None
        self._tools: dict[str, BaseTool] = {}
        self._lock = threading.Lock()
        names = self.settings.meta_tool_names.model_dump().values()
        # Registered so the agent's tool node accepts their calls; toolscout answers them.
        self.tools = [_meta_tool(name) for name in names] if self.settings.enabled else []
        if not self.settings.enabled:
            logger.warning("tool search is off (tool_search.enabled is false): every tool is sent")

    # -- model calls -----------------------------------------------------------------------

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelResponse[Any]]
    ) -> ModelResponse[Any] | AIMessage:
        if not self.settings.enabled:
            return handler(request)
        search, passthrough = self._processor(request.tools)
        definitions = search.prepare(
            self.thread_id(), _history(request.messages), _context(request), tools=passthrough
        )
        return handler(request.override(tools=self._listed(definitions)))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | AIMessage:
        if not self.settings.enabled:
            return await handler(request)
        search, passthrough = self._processor(request.tools)
        definitions = await search.aprepare(
            self.thread_id(), _history(request.messages), _context(request), tools=passthrough
        )
        return await handler(request.override(tools=self._listed(definitions)))

    # -- tool calls ------------------------------------------------------------------------

    def wrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], ToolOutcome]
    ) -> ToolOutcome:
        search = self._search
        if search is None or not self.settings.enabled:
            return handler(request)
        call = _Call(request, handler, dict(self._tools))
        token = _CURRENT_CALL.set(call)
        try:
            result = search.execute(
                _tool_call(request),
                self.thread_id(),
                _context(request),
                messages=_history(_messages(request)),
            )
        finally:
            _CURRENT_CALL.reset(token)
        return _outcome(call, result.content, result.is_error)

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolOutcome]],
    ) -> ToolOutcome:
        search = self._search
        if search is None or not self.settings.enabled:
            return await handler(request)
        call = _Call(request, handler, dict(self._tools))
        token = _CURRENT_CALL.set(call)
        try:
            result = await search.aexecute(
                _tool_call(request),
                self.thread_id(),
                _context(request),
                messages=_history(_messages(request)),
            )
        finally:
            _CURRENT_CALL.reset(token)
        return _outcome(call, result.content, result.is_error)

    # -- the catalog -----------------------------------------------------------------------

    def _processor(
        self, tools: Sequence[BaseTool | dict[str, Any]]
    ) -> tuple[ToolSearch, list[dict[str, Any]]]:
        """The processor over the agent's current tools, and the provider tools (dicts) it
        sends untouched."""
        meta = set(self.settings.meta_tool_names.model_dump().values())
        own = [tool for tool in tools if isinstance(tool, BaseTool) and tool.name not in meta]
        self._mirror.update(own)
        with self._lock:
            self._tools = {tool.name: tool for tool in own}
            if self._search is None:
                self._search = self.settings.build(self._mirror.catalog, filter=self.filter)
            return self._search, [tool for tool in tools if isinstance(tool, dict)]

    def _listed(self, definitions: Sequence[ToolDefinition]) -> list[BaseTool | dict[str, Any]]:
        """What the model is sent: the agent's own `BaseTool`s as they are, meta-tools as
        function definitions (their descriptions change with the mode and the step)."""
        listed: list[BaseTool | dict[str, Any]] = []
        for definition in definitions:
            if definition.raw is not None:
                listed.append(definition.raw)
            elif definition.tool_id in self._tools:
                listed.append(self._tools[definition.tool_id])
            else:
                listed.append({"type": "function", "function": definition.as_function()})
        return listed


def _run_agent_tool(tool_name: str, arguments: dict[str, Any]) -> Any:
    """Run the agent's tool through the tool node's own handler; the text is toolscout's,
    the `ToolMessage` or `Command` is returned to the agent as it is."""
    call = _CURRENT_CALL.get()
    request = call.request.override(
        tool_call={**call.request.tool_call, "name": tool_name, "args": arguments},
        tool=call.tools[tool_name],
    )
    try:
        outcome = call.handler(request)
    except BaseException as error:
        call.raised.append(error)
        raise
    if isinstance(outcome, Awaitable):
        return _finish(call, outcome)
    call.outcome = outcome
    return _text(outcome)


async def _finish(call: _Call, pending: Awaitable[ToolOutcome]) -> str:
    try:
        call.outcome = await pending
    except BaseException as error:
        call.raised.append(error)
        raise
    return _text(call.outcome)


def _outcome(call: _Call, content: str, is_error: bool) -> ToolOutcome:
    if call.raised:
        raise call.raised[0]
    if call.outcome is not None:
        return call.outcome
    tool_call = call.request.tool_call
    return ToolMessage(
        content=content,
        tool_call_id=tool_call["id"] or "",
        name=tool_call["name"],
        status="error" if is_error else "success",
    )


def _text(outcome: ToolOutcome) -> str:
    return outcome.text if isinstance(outcome, ToolMessage) else ""


def _as_tool(
    tool: BaseTool, handler: Callable[[str, dict[str, Any]], Any], namespace: str | None = None
) -> Tool:
    function = convert_to_openai_tool(tool)["function"]
    name = tool.name

    def run(**arguments: Any) -> Any:
        return handler(name, arguments)

    return Tool(
        name=name,
        namespace=namespace,
        description=tool.description or "",
        input_schema=function.get("parameters") or {"type": "object", "properties": {}},
        handler=run,
    )


def _agent_tool(tool: BaseTool) -> Tool:
    """An agent's tool, run through the agent's tool node when called."""
    return _as_tool(tool, _run_agent_tool)


def _tool_key(tool: BaseTool) -> Hashable:
    # Tool objects live as long as the agent that holds them; a new object is a new tool.
    return id(tool), tool.name, tool.description


def _invoker(tool: BaseTool) -> Callable[[str, dict[str, Any]], Any]:
    async def invoke(name: str, arguments: dict[str, Any]) -> Any:
        return await tool.ainvoke(arguments)

    return invoke


def _meta_tool(name: str) -> BaseTool:
    def answered_by_toolscout(**arguments: Any) -> str:
        return "This tool is answered by ToolScoutMiddleware, which is not installed."

    return StructuredTool.from_function(
        answered_by_toolscout,
        name=name,
        description="toolscout meta-tool",
        args_schema={"type": "object", "properties": {}, "additionalProperties": True},
    )


def _tool_call(request: ToolCallRequest) -> ToolCall:
    tool_call = request.tool_call
    return ToolCall(tool_call["name"], tool_call["args"], id=tool_call["id"])


def _context(request: ModelRequest[Any] | ToolCallRequest) -> Any:
    runtime = request.runtime
    return getattr(runtime, "context", None)


def _messages(request: ToolCallRequest) -> Sequence[Any]:
    state = request.state
    messages = state.get("messages") if isinstance(state, Mapping) else None
    return messages if isinstance(messages, list) else getattr(state, "messages", [])


def _history(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """The user messages (what preloading ranks) and the tool results (what `ContextStore`
    reads), in OpenAI's chat shape."""
    history = []
    for message in messages:
        if isinstance(message, ToolMessage):
            history.append({"role": "tool", "content": message.text})
        elif isinstance(message, HumanMessage):
            history.append({"role": "user", "content": message.text})
    return history
